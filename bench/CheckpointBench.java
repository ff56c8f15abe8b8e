import dev.quiver.api.Workspace;
import dev.quiver.kernel.checkpoint.Checkpoints;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Times checkpoints of a large real tree in one warm JVM, as a session takes them before each call
 * that can change files (the public {@link Checkpoints} API: a turn begun, then {@code beforeCall}),
 * and measures what each turn adds to the store. Run by bench/checkpoints.sh, never as a test: it
 * prints a Markdown table.
 */
public final class CheckpointBench {

    public static void main(String[] args) throws Exception {
        Path tree = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Workspace workspace = new WorkspaceFactoryComponent().open(tree);
        Path state = Files.createTempDirectory("quiver-bench-state");
        Path store = state.resolve(Checkpoints.FOLDER);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(tree)) {
            files = walk.filter(Files::isRegularFile).filter(p -> !tree.relativize(p).startsWith(".git")).sorted().toList();
        }
        Random random = new Random(42);
        Checkpoints checkpoints = new Checkpoints(workspace, state, Runnable::run);
        int turn = 0;

        checkpoints.beginTurn("bench", ++turn, "prompt", false);
        long first = time(checkpoints);
        checkpoints.endTurn();
        long firstStore = size(store);
        Thread.sleep(2500); // past the racy window of the files just read, as a session's next turn is

        for (int warm = 0; warm < 5; warm++) {
            checkpoints.beginTurn("bench", ++turn, "prompt", false);
            time(checkpoints);
        }
        List<Long> unchanged = new ArrayList<>();
        List<Long> gitStatus = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            checkpoints.beginTurn("bench", ++turn, "prompt", false);
            unchanged.add(time(checkpoints));
            gitStatus.add(gitStatus(tree)); // the same question asked of git, under the same load
        }
        long unchangedGrowth = size(store);
        checkpoints.beginTurn("bench", ++turn, "prompt", false);
        time(checkpoints);
        unchangedGrowth = size(store) - unchangedGrowth;

        List<Long> changed = new ArrayList<>();
        List<Long> spaced = new ArrayList<>();
        List<Long> growth = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            long before = size(store);
            checkpoints.beginTurn("bench", ++turn, "prompt", false);
            time(checkpoints);
            change(files, random, 10, round);
            changed.add(time(checkpoints)); // back to back: the last round's ten are still racy, so read again
            checkpoints.endTurn();
            growth.add(size(store) - before);
        }
        for (int round = 0; round < Math.min(rounds, 5); round++) {
            Thread.sleep(2100);
            checkpoints.beginTurn("bench", ++turn, "prompt", false);
            change(files, random, 10, rounds + round);
            spaced.add(time(checkpoints));
        }

        Checkpoints fresh = new Checkpoints(workspace, state, Runnable::run);
        fresh.beginTurn("bench-fresh", 1, "call", false);
        long freshFirst = time(fresh);

        System.out.println("| case | median ms | min–max ms |");
        System.out.println("|---|---|---|");
        System.out.printf("| first checkpoint, empty store (reads and stores every file) | %s | |%n", ms(first));
        System.out.printf("| nothing changed | %s | %s |%n", median(unchanged), range(unchanged));
        System.out.printf("| for comparison: `git status --porcelain` (a fresh process), nothing changed | %s | %s |%n",
                median(gitStatus), range(gitStatus));
        System.out.printf("| 10 files changed, calls back to back (the previous call's 10 read again: 20 reads) | %s | %s |%n",
                median(changed), range(changed));
        System.out.printf("| 10 files changed, calls 2 s apart (10 reads) | %s | %s |%n", median(spaced), range(spaced));
        System.out.printf("| first checkpoint of a new process on a warm store (stat cache loaded) | %s | |%n",
                ms(freshFirst));
        System.out.println();
        System.out.printf("Tree: %,d files. Store after the first checkpoint: %s. Growth per turn with 10 files "
                + "changed (two checkpoints, one commit each): median %s, min–max %s–%s; a checkpoint with nothing "
                + "changed adds %s (its commit). %d rounds after 5 warm-up rounds; %d cores; Java %s.%n",
                files.size(), kb(firstStore), kb(medianOf(growth)), kb(Collections.min(growth)),
                kb(Collections.max(growth)), kb(unchangedGrowth), rounds, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
    }

    private static long time(Checkpoints checkpoints) {
        long start = System.nanoTime();
        Optional<String> problem = checkpoints.beforeCall("bash (execute)");
        long elapsed = System.nanoTime() - start;
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
        return elapsed;
    }

    /** Wall time of git finding what changed in the tree, output discarded. */
    private static long gitStatus(Path tree) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("git", "status", "--porcelain").directory(tree.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        long start = System.nanoTime();
        builder.start().waitFor();
        return System.nanoTime() - start;
    }

    /** Appends a line to {@code count} files picked at random, as an edit or a formatter would. */
    private static void change(List<Path> files, Random random, int count, int round) throws IOException {
        for (int i = 0; i < count; i++) {
            Path file = files.get(random.nextInt(files.size()));
            Files.writeString(file, "// bench round " + round + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        }
    }

    /** Bytes of every file in a folder. */
    private static long size(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(Files::isRegularFile).mapToLong(path -> path.toFile().length()).sum();
        }
    }

    private static long medianOf(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static String median(List<Long> nanos) {
        return ms(medianOf(nanos));
    }

    private static String range(List<Long> nanos) {
        return ms(Collections.min(nanos)) + "–" + ms(Collections.max(nanos));
    }

    private static String ms(long nanos) {
        return String.valueOf(Math.round(nanos / 1e6));
    }

    private static String kb(long bytes) {
        return bytes >= 10L << 20 ? String.format("%,d MB", bytes >> 20) : String.format("%,d KB", (bytes + 512) >> 10);
    }
}
