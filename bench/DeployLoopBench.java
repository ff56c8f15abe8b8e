import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A plugin author's loop, timed in a running {@code quiver call --batch -}: a tool bundle's jar copied into the
 * watched folder (deploy/) until its tool answers a call, and the jar deleted until the tool is gone. The batch
 * process is asked every {@value #ASK_MILLIS} ms; each answer says whether the tool is there. Run by
 * bench/deploy-loop.sh, never as a test: it prints a Markdown table.
 */
public final class DeployLoopBench {

    static final long ASK_MILLIS = 5;
    private static final String CALL = "{\"tool\":\"hello\",\"args\":{\"name\":\"bench\"}}";

    public static void main(String[] args) throws Exception {
        String quiver = args[0];
        Path jar = Path.of(args[1]);
        Path work = Path.of(args[2]);
        int rounds = Integer.parseInt(args[3]);
        List<String> polls = List.of(args).subList(4, args.length);
        System.out.println("| FileInstall poll | jar copied → first successful call: median ms | min–max "
                + "| jar deleted → tool gone: median ms | min–max |");
        System.out.println("|---|---|---|---|---|");
        for (String poll : polls) {
            List<Long> added = new ArrayList<>();
            List<Long> removed = new ArrayList<>();
            Path deploy = Files.createDirectories(work.resolve("deploy-" + poll));
            Path workspace = Files.createDirectories(work.resolve("workspace-" + poll));
            ProcessBuilder builder = new ProcessBuilder(quiver, "--workspace", workspace.toString(), "--yolo", "call",
                    "--batch", "-").directory(workspace.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
            Map<String, String> environment = builder.environment();
            environment.put("QUIVER_JAVA_OPTS", "-Dfelix.fileinstall.dir=" + deploy + " -Dquiver.plugins.dir="
                    + work.resolve("plugins-" + poll) + (poll.equals("default") ? "" : " -Dfelix.fileinstall.poll=" + poll));
            Process process = builder.start();
            OutputStream in = process.getOutputStream();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            ask(in, out); // the framework is up
            for (int round = 0; round < rounds + 1; round++) {
                // the author edits, builds, copies: a random phase against the poll, so no round is lined up with it
                Thread.sleep(700 + java.util.concurrent.ThreadLocalRandom.current().nextInt(500));
                Path copy = deploy.resolve("hello-tool-1.0.0.jar");
                Path staged = work.resolve("hello-tool.staged");
                Files.copy(jar, staged);
                long start = System.nanoTime();
                Files.move(staged, copy); // as a build tool's copy lands: whole, at once
                while (!ask(in, out)) {
                    Thread.sleep(ASK_MILLIS);
                }
                long took = System.nanoTime() - start;
                Thread.sleep(700 + java.util.concurrent.ThreadLocalRandom.current().nextInt(500));
                start = System.nanoTime();
                Files.delete(copy);
                while (ask(in, out)) {
                    Thread.sleep(ASK_MILLIS);
                }
                long gone = System.nanoTime() - start;
                if (round > 0) { // the first round loads the classes of installing and removing
                    added.add(took);
                    removed.add(gone);
                }
            }
            in.close();
            process.waitFor();
            System.out.printf("| %s | %s | %s | %s | %s |%n", poll.equals("default") ? "as configured" : poll + " ms",
                    median(added), range(added), median(removed), range(removed));
        }
        System.out.println();
        System.out.println(rounds + " rounds after one warm-up round, each in one batch process per poll setting; "
                + Runtime.getRuntime().availableProcessors() + " cores.");
    }

    /** Whether the hello tool answered a call. */
    private static boolean ask(OutputStream in, BufferedReader out) throws IOException {
        in.write((CALL + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String answer = out.readLine();
        if (answer == null) {
            throw new IllegalStateException("the batch process ended");
        }
        return answer.contains("\"status\":\"ok\"");
    }

    private static String median(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return ms(sorted.get(sorted.size() / 2));
    }

    private static String range(List<Long> nanos) {
        return ms(Collections.min(nanos)) + "–" + ms(Collections.max(nanos));
    }

    private static String ms(long nanos) {
        return String.valueOf(Math.round(nanos / 1e6));
    }
}
