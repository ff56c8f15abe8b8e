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
import java.util.regex.Pattern;

/**
 * Warm grep in long-lived processes that read call lines, side by side: {@code quiver call --batch -} and
 * bench/GrepServer.java (the tools alone, of any build), with a fresh ripgrep after each case. Run by
 * bench/grep-phases.sh, never as a test: it prints a Markdown table.
 *
 * <p>Each server is timed as GrepBatchBench times the batch process: from writing the request line to reading
 * its answer. Beside it, the time the server reports itself: {@code elapsed_ms} for the batch process (the
 * call chain's, from the arguments' parsing to the redaction's refresh) and {@code tool_ns} for GrepServer
 * (the tool's call alone). The servers take turns within each case, in an order that rotates every round.
 */
public final class GrepPhasesBench {

    private record Case(String name, String request, String theirs) {
    }

    private static final List<Case> CASES = List.of(
            new Case("grep literal, rare (full scan)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"qzxjvkwq\",\"fixedStrings\":true}}",
                    "rg -n -F qzxjvkwq | head -n 200"),
            new Case("grep regex (synchronized\\s+\\w+\\s*\\()",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"synchronized\\\\s+\\\\w+\\\\s*\\\\(\"}}",
                    "rg -n 'synchronized\\s+\\w+\\s*\\(' | head -n 200"),
            new Case("grep literal, ignore case, rare (full scan)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"QZXJVKWQ\",\"fixedStrings\":true,\"ignoreCase\":true}}",
                    "rg -n -i -F QZXJVKWQ | head -n 200"),
            new Case("grep literal, include-filtered, rare (qzxjvkwq in **/*.java)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"qzxjvkwq\",\"fixedStrings\":true,"
                            + "\"include\":\"**/*.java\"}}",
                    "rg -n -F qzxjvkwq -g '*.java' | head -n 200"),
            new Case("grep regex, few matches (^\\s*\\}\\s*else\\s*\\{\\s*//)",
                    "{\"tool\":\"grep\",\"args\":{\"pattern\":\"^\\\\s*\\\\}\\\\s*else\\\\s*\\\\{\\\\s*//\"}}",
                    "rg -n '^\\s*\\}\\s*else\\s*\\{\\s*//' | head -n 200"));

    private static final Pattern STATUS = Pattern.compile("\"status\":\"(\\w+)\"");
    private static final Pattern TOOL_NANOS = Pattern.compile("\"tool_ns\":(\\d+)");
    private static final Pattern ELAPSED_MILLIS = Pattern.compile("\"elapsed_ms\":(\\d+)");

    /** A process that answers one JSON line per request line, started by a shell command. */
    private static final class Server {
        final String label;
        final Process process;
        final OutputStream in;
        final BufferedReader out;

        Server(String label, String command, Path tree) throws IOException {
            this.label = label;
            process = new ProcessBuilder("bash", "-c", command).directory(tree.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            in = process.getOutputStream();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** The wall time of one call and the time the server reports, in nanoseconds. */
        long[] call(String request) throws IOException {
            long start = System.nanoTime();
            in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            String answer = out.readLine();
            long took = System.nanoTime() - start;
            String text = answer == null ? "" : answer;
            Matcher status = STATUS.matcher(text);
            if (!status.find() || !status.group(1).equals("ok")) {
                throw new IllegalStateException(label + ": " + request + " -> " + answer);
            }
            Matcher tool = TOOL_NANOS.matcher(text);
            Matcher elapsed = ELAPSED_MILLIS.matcher(text);
            long reported = tool.find() ? Long.parseLong(tool.group(1))
                    : elapsed.find() ? Long.parseLong(elapsed.group(1)) * 1_000_000 : -1;
            return new long[] {took, reported};
        }

        void close() throws IOException, InterruptedException {
            in.close();
            process.waitFor();
        }
    }

    /** Arguments: the tree, warm-up rounds, measured rounds, then servers as LABEL=SHELL-COMMAND. */
    public static void main(String[] args) throws Exception {
        Path tree = Path.of(args[0]);
        int warmUp = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        List<Server> servers = new ArrayList<>();
        for (String server : List.of(args).subList(3, args.length)) {
            int eq = server.indexOf('=');
            servers.add(new Server(server.substring(0, eq), server.substring(eq + 1), tree));
        }
        for (int w = 0; w < warmUp; w++) {
            for (Server server : servers) {
                for (Case c : CASES) {
                    server.call(c.request());
                }
            }
        }
        int n = CASES.size();
        int m = servers.size();
        List<List<List<Long>>> wall = new ArrayList<>();
        List<List<List<Long>>> reported = new ArrayList<>();
        List<List<Long>> theirs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            wall.add(new ArrayList<>());
            reported.add(new ArrayList<>());
            theirs.add(new ArrayList<>());
            for (int s = 0; s < m; s++) {
                wall.get(i).add(new ArrayList<>());
                reported.get(i).add(new ArrayList<>());
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < m; k++) {
                    int s = (k + r) % m;
                    long[] times = servers.get(s).call(CASES.get(i).request());
                    wall.get(i).get(s).add(times[0]);
                    reported.get(i).get(s).add(times[1]);
                }
                theirs.get(i).add(shell(CASES.get(i).theirs(), tree));
            }
        }
        for (Server server : servers) {
            server.close();
        }
        StringBuilder header = new StringBuilder("| case | rg |");
        for (Server server : servers) {
            header.append(' ').append(server.label).append(": wall / reported |");
        }
        System.out.println(header);
        System.out.println("|---|---|" + "---|".repeat(m));
        for (int i = 0; i < n; i++) {
            StringBuilder row = new StringBuilder("| " + CASES.get(i).name() + " | " + median(theirs.get(i)) + " |");
            for (int s = 0; s < m; s++) {
                row.append(' ').append(median(wall.get(i).get(s))).append(" / ")
                        .append(median(reported.get(i).get(s))).append(" |");
            }
            System.out.println(row);
        }
        System.out.println();
        System.out.println("Medians in ms, " + rounds + " rounds after " + warmUp + " warm-up rounds; reported: "
                + "elapsed_ms for a batch process (whole ms), the tool's call for GrepServer. "
                + Runtime.getRuntime().availableProcessors() + " cores.");
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
        return String.format("%.1f", sorted.get(sorted.size() / 2) / 1e6);
    }
}
