import dev.quiver.api.Arguments;
import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.tools.git.GitLogFileTool;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Times git_log_file in one warm JVM against {@code git log --follow} run as a fresh process, on a
 * generated history of 10,000 commits over 500 files, in which the followed files are renamed twice. Run
 * by bench/git-log-file.sh, never as a test: it prints Markdown. Rounds interleave ours and theirs, so
 * both see the same load; each case also checks that both list the same commits.
 */
public final class GitLogFileBench {

    static final int COMMITS = 10_000;
    static final int FILES = 500;

    private record Case(String name, String path, int limit) {
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

    public static void main(String[] args) throws Exception {
        Path repo = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long built = System.nanoTime();
        generate(repo);
        System.err.printf("History: %d commits, %d files, generated with git fast-import in %d ms.%n", COMMITS,
                FILES + 2, (System.nanoTime() - built) / 1_000_000);
        Context context = new Context(new WorkspaceFactoryComponent().open(repo));
        List<Case> cases = List.of(
                new Case("often changed (every 25th commit), renamed twice, newest 100", "lib/final.txt", 100),
                new Case("often changed, newest 20 (the default limit)", "lib/final.txt", 20),
                new Case("rarely changed (4 commits and 2 renames): the whole history is walked", "lib/rare-final.txt", 100));
        GitLogFileTool tool = new GitLogFileTool();
        System.out.println("| case | ours: median ms | ours: min–max | ours: first call | `git log --follow`: median ms | theirs: min–max | same commits |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Case c : cases) {
            List<Long> ours = new ArrayList<>();
            List<Long> theirs = new ArrayList<>();
            long first = -1;
            List<String> ourIds = null;
            List<String> theirIds = null;
            for (int round = 0; round < rounds + 1; round++) {
                long start = System.nanoTime();
                String text = tool.call(Arguments.of(Map.of("path", c.path(), "limit", c.limit())), context).text();
                long ms = (System.nanoTime() - start) / 1_000_000;
                ourIds = text.lines().skip(1).filter(l -> l.matches("[0-9a-f]{7}  .*")).map(l -> l.substring(0, 7)).toList();
                start = System.nanoTime();
                String cli = git(repo, "log", "--follow", "-n", String.valueOf(c.limit()), "--format=%h", "--abbrev=7",
                        "--", c.path());
                long cliMs = (System.nanoTime() - start) / 1_000_000;
                theirIds = cli.lines().toList();
                if (round == 0) {
                    first = ms; // class loading and the JIT; reported on its own
                    continue;
                }
                ours.add(ms);
                theirs.add(cliMs);
            }
            System.out.printf("| %s | %d | %d–%d | %d | %d | %d–%d | %s (%d) |%n", c.name(), median(ours),
                    Collections.min(ours), Collections.max(ours), first, median(theirs), Collections.min(theirs),
                    Collections.max(theirs), ourIds.equals(theirIds) ? "yes" : "NO", ourIds.size());
        }
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /**
     * 10,000 commits, one file changed in each; {@code target.txt} changes every 25th commit and
     * {@code rare.txt} three times, and both are renamed at commits 3,000 and 7,000 (renames only, so git
     * and JGit both see them as 100% similar).
     */
    private static void generate(Path repo) throws Exception {
        Files.createDirectories(repo);
        git(repo, "init", "-q", "-b", "main");
        Process importer = new ProcessBuilder("git", "fast-import", "--quiet").directory(repo.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try (OutputStream out = new BufferedOutputStream(importer.getOutputStream(), 1 << 16)) {
            String target = "src/d3/target.txt";
            String rare = "src/d5/rare.txt";
            long time = 1_700_000_000L;
            for (int k = 1; k <= COMMITS; k++) {
                StringBuilder commit = new StringBuilder("commit refs/heads/main\n")
                        .append("committer Bench <bench@localhost> ").append(time + k * 60L).append(" +0000\n");
                data(commit, "commit " + k + "\n");
                if (k == 3000 || k == 7000) {
                    String nextTarget = k == 3000 ? "src/d7/middle.txt" : "lib/final.txt";
                    String nextRare = k == 3000 ? "src/d8/rare-middle.txt" : "lib/rare-final.txt";
                    commit.append("R ").append(target).append(' ').append(nextTarget).append('\n');
                    commit.append("R ").append(rare).append(' ').append(nextRare).append('\n');
                    target = nextTarget;
                    rare = nextRare;
                } else if (k == 1) {
                    for (int f = 0; f < FILES; f++) {
                        file(commit, "src/d" + (f % 20) + "/f" + f + ".txt", lines("file " + f, 0, 12));
                    }
                    file(commit, target, lines("target", 0, 20));
                    file(commit, rare, lines("rare", 0, 20));
                } else if (k % 25 == 0) {
                    file(commit, target, lines("target", k, 20));
                } else if (k == 1501 || k == 5001 || k == 9001) {
                    file(commit, rare, lines("rare", k, 20));
                } else {
                    int f = (int) ((k * 7919L) % FILES);
                    file(commit, "src/d" + (f % 20) + "/f" + f + ".txt", lines("file " + f, k, 12));
                }
                out.write(commit.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        if (importer.waitFor() != 0) {
            throw new IOException("git fast-import failed");
        }
        git(repo, "checkout", "-q", "main");
    }

    /** Lines of a file at version {@code k}: one line (chosen by k) carries the version, so edits stay similar. */
    private static String lines(String name, int k, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(name).append(" line ").append(i).append(i == k % count ? " version " + k : "").append('\n');
        }
        return text.toString();
    }

    private static void file(StringBuilder commit, String path, String content) {
        commit.append("M 100644 inline ").append(path).append('\n');
        data(commit, content);
    }

    private static void data(StringBuilder commit, String text) {
        commit.append("data ").append(text.getBytes(StandardCharsets.UTF_8).length).append('\n').append(text).append('\n');
    }

    private static String git(Path directory, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        builder.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + ": " + out);
        }
        return out;
    }
}
