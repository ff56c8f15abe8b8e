import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;

/**
 * grep and glob as a session meets them: in a fresh {@code quiver call --batch -} process, against ripgrep run
 * as a fresh process after each of our calls (so both see the same load). Run by bench/grep-batch.sh, never as
 * a test: it prints Markdown tables.
 *
 * <p>Early calls: for each case and each of {@code processes} fresh batch processes, the case is called three
 * times in a row; call 1 pays for class loading and the JIT of whatever the case runs first. Warm: one process
 * runs every case {@code 5} times, then {@code rounds} measured rounds. Ours is the wall time from writing the
 * request line to reading its answer, sent once the process has started (it reads its first line after the
 * framework is up, so the start is not counted). {@code --yolo} only lifts the repeat rule (the third
 * identical call in a batch asks, and headless an ask is a refusal); grep and glob are allowed anyway.
 */
public final class GrepBatchBench {

    private record Case(String name, String request, String theirs) {
    }

    private static final List<Case> CASES = List.of(
            new Case("grep literal, common (ConcurrentHashMap)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"ConcurrentHashMap\",\"fixedStrings\":true}}",
                    "rg -n -F ConcurrentHashMap | head -n 200"),
            new Case("grep literal, rare (full scan)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"qzxjvkwq\",\"fixedStrings\":true}}",
                    "rg -n -F qzxjvkwq | head -n 200"),
            new Case("grep regex (synchronized\\s+\\w+\\s*\\()",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"synchronized\\\\s+\\\\w+\\\\s*\\\\(\"}}",
                    "rg -n 'synchronized\\s+\\w+\\s*\\(' | head -n 200"),
            new Case("grep regex, ignore case (hashmap<\\w+)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"hashmap<\\\\w+\",\"ignoreCase\":true}}",
                    "rg -n -i 'hashmap<\\w+' | head -n 200"),
            new Case("grep literal, ignore case, rare (full scan)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"QZXJVKWQ\",\"fixedStrings\":true,\"ignoreCase\":true}}",
                    "rg -n -i -F QZXJVKWQ | head -n 200"),
            new Case("grep literal, include-filtered (ConcurrentHashMap in java.desktop/**/*.java)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"ConcurrentHashMap\",\"fixedStrings\":true,"
                            + "\"include\":\"java.desktop/**/*.java\"}}",
                    "rg -n -F ConcurrentHashMap -g 'java.desktop/**/*.java' | head -n 200"),
            new Case("grep literal, include-filtered, rare (qzxjvkwq in **/*.java)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"qzxjvkwq\",\"fixedStrings\":true,"
                            + "\"include\":\"**/*.java\"}}",
                    "rg -n -F qzxjvkwq -g '*.java' | head -n 200"),
            new Case("grep regex without a literal ([A-Z]{3}\\d)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"[A-Z]{3}\\\\d\"}}",
                    "rg -n '[A-Z]{3}\\d' | head -n 200"),
            new Case("grep regex, few matches (^\\s*\\}\\s*else\\s*\\{\\s*//)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"^\\\\s*\\\\}\\\\s*else\\\\s*\\\\{\\\\s*//\"}}",
                    "rg -n '^\\s*\\}\\s*else\\s*\\{\\s*//' | head -n 200"),
            new Case("glob **/*.java",
                    "{\"tool\":\"glob\",\"args\":{\"pattern\":\"**/*.java\"}}",
                    "rg --files -g '*.java' | head -n 200"));

    private static final java.util.regex.Pattern STATUS = java.util.regex.Pattern.compile("\"status\":\"(\\w+)\"");

    /** A running {@code quiver call --batch -}. */
    private static final class Batch implements AutoCloseable {
        final Process process;
        final OutputStream in;
        final BufferedReader out;

        Batch(String quiver, Path tree) throws IOException, InterruptedException {
            process = new ProcessBuilder(quiver, "--workspace", tree.toString(), "--yolo", "call", "--batch", "-")
                    .directory(tree.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            in = process.getOutputStream();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            // the start is not what is measured: a cheap call first would warm the tools, so just wait it out
            Thread.sleep(STARTUP_MILLIS);
        }

        long call(String request) throws IOException {
            long start = System.nanoTime();
            in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            String answer = out.readLine();
            long took = System.nanoTime() - start;
            Matcher status = STATUS.matcher(answer == null ? "" : answer);
            if (!status.find() || !status.group(1).equals("ok")) {
                throw new IllegalStateException("call failed: " + request + " -> " + answer);
            }
            return took;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            in.close();
            process.waitFor();
        }
    }

    /** Long enough for the framework to start, even under load. */
    static final long STARTUP_MILLIS = 3000;

    /** One build's figures: early[case][call], warm[case], and ripgrep's beside each. */
    private static final class Figures {
        final List<List<List<Long>>> early = new ArrayList<>();
        final List<List<Long>> earlyTheirs = new ArrayList<>();
        final List<List<Long>> warm = new ArrayList<>();
        final List<List<Long>> warmTheirs = new ArrayList<>();

        Figures() {
            for (int i = 0; i < CASES.size(); i++) {
                early.add(List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
                earlyTheirs.add(new ArrayList<>());
                warm.add(new ArrayList<>());
                warmTheirs.add(new ArrayList<>());
            }
        }
    }

    /**
     * Arguments: the tree, processes per case, warm rounds, then one or more bin/quiver to time; several
     * take turns process by process (and round by round when warm), so that they see the same load.
     */
    public static void main(String[] args) throws Exception {
        Path tree = Path.of(args[0]);
        int processes = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        List<String> builds = List.of(args).subList(3, args.length);
        int n = CASES.size();
        List<Figures> figures = new ArrayList<>();
        builds.forEach(build -> figures.add(new Figures()));
        for (int p = 0; p < processes; p++) {
            for (int i = 0; i < n; i++) {
                for (int b = 0; b < builds.size(); b++) {
                    Figures f = figures.get(b);
                    try (Batch batch = new Batch(builds.get(b), tree)) {
                        for (int k = 0; k < 3; k++) {
                            f.early.get(i).get(k).add(batch.call(CASES.get(i).request()));
                            f.earlyTheirs.get(i).add(shell(CASES.get(i).theirs(), tree));
                        }
                    }
                }
            }
        }
        List<Batch> batches = new ArrayList<>();
        for (String build : builds) {
            batches.add(new Batch(build, tree));
        }
        for (int w = 0; w < 5; w++) {
            for (Batch batch : batches) {
                for (Case c : CASES) {
                    batch.call(c.request());
                }
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < n; i++) {
                for (int b = 0; b < builds.size(); b++) {
                    figures.get(b).warm.get(i).add(batches.get(b).call(CASES.get(i).request()));
                    figures.get(b).warmTheirs.get(i).add(shell(CASES.get(i).theirs(), tree));
                }
            }
        }
        for (Batch batch : batches) {
            batch.close();
        }
        for (int b = 0; b < builds.size(); b++) {
            Figures f = figures.get(b);
            System.out.println("`" + builds.get(b) + "`:");
            System.out.println();
            System.out.println("| case | call 1 | call 2 | call 3 | rg beside calls 1–3 | warm | rg beside warm calls "
                    + "| warm min–max | rg command |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (int i = 0; i < n; i++) {
                System.out.printf("| %s | %s | %s | %s | %s | %s | %s | %s | `%s` |%n", CASES.get(i).name(),
                        median(f.early.get(i).get(0)), median(f.early.get(i).get(1)), median(f.early.get(i).get(2)),
                        median(f.earlyTheirs.get(i)), median(f.warm.get(i)), median(f.warmTheirs.get(i)),
                        range(f.warm.get(i)), CASES.get(i).theirs().replace("|", "\\|"));
            }
            System.out.println();
        }
        System.out.println("Medians in ms. Early calls: " + processes + " fresh batch processes per case and build, "
                + "calls 1–3 of the same request in each. Warm: " + rounds + " rounds after 5 warm-up rounds in one "
                + "process per build. " + Runtime.getRuntime().availableProcessors() + " cores.");
    }

    /** Wall time of a fresh shell running the command, output discarded. */
    private static long shell(String command, Path directory) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", command + " > /dev/null")
                .directory(directory.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("RIPGREP_CONFIG_PATH", "");
        long start = System.nanoTime();
        builder.start().waitFor();
        return System.nanoTime() - start;
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
