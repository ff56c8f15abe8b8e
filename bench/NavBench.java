import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.tools.nav.FindSymbolTool;
import dev.quiver.tools.nav.OutlineTool;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Times find_symbol and outline in one warm JVM against ripgrep with a definition regex and universal-ctags,
 * run as fresh processes on the same tree. Run by bench/nav.sh, never as a test: it prints Markdown.
 *
 * <p>Each round runs every case once, ours and theirs interleaved, so both see the same load. The first call
 * of each of our cases is reported on its own: it pays for class loading, the JIT, loading the natives and
 * parsing every file that holds the name, which later calls find in the outline cache. Hit counts are
 * printed too, since the point of parsing is to be exact where a regex is not.
 */
public final class NavBench {

    private record Case(String name, Tool tool, Map<String, Object> arguments, String theirs, String touch) {
    }

    private record Context(Workspace workspace) implements ToolContext {
        @Override
        public Optional<Object> config(String key) {
            return Optional.empty();
        }

        @Override
        public void stream(String text) {
        }

        @Override
        public Map<String, String> environment() {
            return System.getenv();
        }

        @Override
        public boolean isCancelled() {
            return false;
        }
    }

    private static final String MODIFIERS = "^\\s*((public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\\s+)*";

    public static void main(String[] args) throws Exception {
        Path tree = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Context context = new Context(new WorkspaceFactoryComponent().open(tree));
        String large = fileOfAbout(tree, 5000);
        Tool find = new FindSymbolTool();
        Tool outline = new OutlineTool();
        boolean ctags = new File("/usr/bin/ctags").canExecute();
        List<Case> cases = new ArrayList<>(List.of(
                new Case("find_symbol class ConcurrentHashMap", find, Map.of("name", "ConcurrentHashMap", "kind", "class"),
                        "rg -n '" + MODIFIERS + "class\\s+ConcurrentHashMap\\b' -g '*.java'", null),
                new Case("find_symbol class name, rare (ForkJoinWorkerThread)", find,
                        Map.of("name", "ForkJoinWorkerThread"),
                        "rg -n '" + MODIFIERS + "(class|interface|enum|record)\\s+ForkJoinWorkerThread\\b' -g '*.java'", null),
                new Case("find_symbol glob *HashMap (classes)", find, Map.of("name", "*HashMap", "kind", "class"),
                        "rg -n '" + MODIFIERS + "class\\s+\\w*HashMap\\b' -g '*.java'", null),
                new Case("find_symbol method computeIfAbsent", find, Map.of("name", "computeIfAbsent", "kind", "method"),
                        "rg -n '^\\s*[\\w<>\\[\\], ?.@]*\\s+computeIfAbsent\\s*\\(' -g '*.java'", null),
                new Case("outline, " + large + " (cached)", outline, Map.of("path", large), "ctags -f - --fields=+ne " + large,
                        null),
                new Case("outline, " + large + " (parsed every call)", outline, Map.of("path", large),
                        "ctags -f - --fields=+ne " + large, large)));
        if (ctags) {
            cases.add(new Case("ctags -R, whole tree (index, then look up ConcurrentHashMap)", null, Map.of(),
                    "ctags -R -f - --languages=Java . | grep -c '^ConcurrentHashMap\t'", null));
        }
        List<Long> first = new ArrayList<>();
        List<List<Long>> ours = new ArrayList<>();
        List<List<Long>> theirs = new ArrayList<>();
        for (Case c : cases) {
            first.add(c.tool() == null ? 0 : time(c, context, tree));
            ours.add(new ArrayList<>());
            theirs.add(new ArrayList<>());
        }
        for (int warm = 0; warm < 3; warm++) {
            for (Case c : cases) {
                if (c.tool() != null) {
                    time(c, context, tree);
                }
            }
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                if (c.tool() != null) {
                    ours.get(i).add(time(c, context, tree));
                }
                if (c.tool() != null || round < 2) {
                    theirs.get(i).add(shell(c.theirs(), tree));
                }
            }
        }
        System.out.println("| case | ours: median ms | ours: min–max | ours: first call | theirs | theirs: median ms "
                + "| theirs: min–max |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            boolean mine = c.tool() != null;
            System.out.printf("| %s | %s | %s | %s | `%s` | %s | %s |%n", c.name(), mine ? median(ours.get(i)) : "—",
                    mine ? range(ours.get(i)) : "—", mine ? ms(first.get(i)) : "—", c.theirs().replace("|", "\\|"),
                    median(theirs.get(i)), range(theirs.get(i)));
        }
        System.out.println();
        System.out.println(rounds + " rounds after 3 warm-up rounds; " + Runtime.getRuntime().availableProcessors()
                + " cores; Java " + System.getProperty("java.version") + "; "
                + (ctags ? "universal-ctags installed" : "universal-ctags not installed") + ".");
        for (Case c : cases) {
            if (c.tool() == null) {
                continue;
            }
            String out = c.tool().call(Arguments.of(c.arguments()), context).text();
            long theirLines = count(c.theirs(), tree);
            System.out.println("- " + c.name() + ": ours " + out.split("\n").length + " lines, theirs " + theirLines
                    + " lines");
        }
    }

    /** A .java file of the tree with the line count nearest to {@code lines}, as a workspace-relative path. */
    private static String fileOfAbout(Path tree, int lines) throws Exception {
        Path best = null;
        long bestDistance = Long.MAX_VALUE;
        try (Stream<Path> files = Files.walk(tree)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                long size = Files.size(file);
                if (size < 100_000 || size > 400_000) {
                    continue;
                }
                long distance = Math.abs(Files.readAllLines(file, java.nio.charset.StandardCharsets.ISO_8859_1).size() - lines);
                if (distance < bestDistance) {
                    bestDistance = distance;
                    best = file;
                }
            }
        }
        return tree.relativize(best).toString();
    }

    private static long time(Case c, ToolContext context, Path tree) throws Exception {
        if (c.touch() != null) {
            // a new modification time makes the outline cache parse the file again
            Path file = tree.resolve(c.touch());
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + (long) (Math.random() * 1e6)));
        }
        long start = System.nanoTime();
        c.tool().call(Arguments.of(c.arguments()), context);
        return System.nanoTime() - start;
    }

    private static Process start(String command, Path directory, ProcessBuilder.Redirect out) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", command).directory(directory.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("RIPGREP_CONFIG_PATH", "");
        return builder.start();
    }

    /** Wall time of a fresh shell running the command, output discarded. */
    private static long shell(String command, Path directory) throws Exception {
        long start = System.nanoTime();
        start(command, directory, ProcessBuilder.Redirect.DISCARD).waitFor();
        return System.nanoTime() - start;
    }

    private static long count(String command, Path directory) throws Exception {
        Process process = start(command, directory, ProcessBuilder.Redirect.PIPE);
        long lines = new String(process.getInputStream().readAllBytes()).lines().count();
        process.waitFor();
        return lines;
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
