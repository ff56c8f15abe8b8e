import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.tools.core.GlobTool;
import dev.quiver.tools.core.GrepTool;
import dev.quiver.tools.edit.plus.ListDirTool;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Times grep, glob and list_dir in one warm JVM against ripgrep and git as fresh processes on the same
 * tree, with the same hit cap. Run by bench/files.sh, never as a test: it prints a Markdown table.
 *
 * <p>Each round runs every case once, ours and theirs interleaved, so both see the same machine load.
 * The first call of each of our cases in this JVM is reported on its own ("first call"): it pays for
 * class loading, the JIT and filling the directory-listing cache.
 */
public final class FilesBench {

    private record Case(String name, Tool tool, Map<String, Object> arguments, String theirs) {
    }

    private static final class Context implements ToolContext {
        private final Workspace workspace;

        Context(Workspace workspace) {
            this.workspace = workspace;
        }

        @Override
        public Workspace workspace() {
            return workspace;
        }

        @Override
        public Optional<Object> config(String key) {
            return Optional.empty();
        }

        @Override
        public void stream(String text) {
        }

        @Override
        public java.util.Map<String, String> environment() {
            return System.getenv();
        }

        @Override
        public boolean isCancelled() {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        Path tree = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        Context context = new Context(new WorkspaceFactoryComponent().open(tree));
        Tool grep = new GrepTool();
        Tool glob = new GlobTool();
        Tool listDir = new ListDirTool();
        List<Case> cases = List.of(
                new Case("grep literal, common (ConcurrentHashMap)", grep,
                        Map.of("pattern", "ConcurrentHashMap", "fixedStrings", true),
                        "rg -n -F ConcurrentHashMap | head -n 200"),
                new Case("grep literal, absent (full scan)", grep,
                        Map.of("pattern", "qzxjvkwq", "fixedStrings", true),
                        "rg -n -F qzxjvkwq | head -n 200"),
                new Case("grep regex (synchronized\\s+\\w+\\s*\\()", grep,
                        Map.of("pattern", "synchronized\\s+\\w+\\s*\\("),
                        "rg -n 'synchronized\\s+\\w+\\s*\\(' | head -n 200"),
                new Case("grep regex, ignore case (hashmap<\\w+)", grep,
                        Map.of("pattern", "hashmap<\\w+", "ignoreCase", true),
                        "rg -n -i 'hashmap<\\w+' | head -n 200"),
                new Case("grep regex without a literal ([A-Z]{3}\\d)", grep,
                        Map.of("pattern", "[A-Z]{3}\\d"),
                        "rg -n '[A-Z]{3}\\d' | head -n 200"),
                new Case("grep regex, few matches (^\\s*\\}\\s*else\\s*\\{\\s*//)", grep,
                        Map.of("pattern", "^\\s*\\}\\s*else\\s*\\{\\s*//"),
                        "rg -n '^\\s*\\}\\s*else\\s*\\{\\s*//' | head -n 200"),
                new Case("glob **/*.java (rg --files)", glob,
                        Map.of("pattern", "**/*.java"),
                        "rg --files -g '*.java' | head -n 200"),
                new Case("glob **/*.java (git ls-files)", glob,
                        Map.of("pattern", "**/*.java"),
                        "git ls-files '*.java' | head -n 200"),
                new Case("list_dir depth 3 (300 entries)", listDir,
                        Map.of("path", ".", "depth", 3),
                        "rg --files --max-depth 3 | head -n 300"));
        List<Long> first = new ArrayList<>();
        List<List<Long>> ours = new ArrayList<>();
        List<List<Long>> theirs = new ArrayList<>();
        for (Case c : cases) {
            first.add(time(c, context));
            ours.add(new ArrayList<>());
            theirs.add(new ArrayList<>());
        }
        for (int warm = 0; warm < 5; warm++) {
            for (Case c : cases) {
                time(c, context);
            }
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < cases.size(); i++) {
                ours.get(i).add(time(cases.get(i), context));
                theirs.get(i).add(shell(cases.get(i).theirs(), tree));
            }
        }
        System.out.println("| case | ours: median ms | ours: min–max | ours: first call | theirs | theirs: median ms "
                + "| theirs: min–max |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            System.out.printf("| %s | %s | %s | %s | `%s` | %s | %s |%n", c.name(), median(ours.get(i)),
                    range(ours.get(i)), ms(first.get(i)), c.theirs(), median(theirs.get(i)), range(theirs.get(i)));
        }
        System.out.println();
        System.out.println(rounds + " rounds after 5 warm-up rounds; " + Runtime.getRuntime().availableProcessors()
                + " cores; Java " + System.getProperty("java.version") + ".");
        for (Case c : cases) {
            String out = c.tool().call(Arguments.of(c.arguments()), context).text();
            System.out.println("- " + c.name() + ": " + out.split("\n").length + " output lines");
        }
    }

    private static long time(Case c, ToolContext context) throws ToolException {
        long start = System.nanoTime();
        c.tool().call(Arguments.of(c.arguments()), context);
        return System.nanoTime() - start;
    }

    /** Wall time of a fresh shell running the command, output discarded. */
    private static long shell(String command, Path directory) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", command + " > /dev/null")
                .directory(directory.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("RIPGREP_CONFIG_PATH", "");
        long start = System.nanoTime();
        Process process = builder.start();
        process.waitFor();
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
