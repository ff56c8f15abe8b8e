package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One change that adds, deletes, moves and replaces files, deletes a folder tree, copies a folder and
 * moves a folder ({@link StructuralChangeLoop}), killed with SIGKILL at random moments, 48 times: after
 * the next open's recovery the whole tree, every file and folder, is state A or state B, never a mix,
 * and no temporary, stray folder, pending file or journal is left. And a one-step delete killed as it
 * runs ({@link DeleteLoop}): what recovery says of it is what the tree shows.
 */
class KilledStructuralChangeTest {

    private static final int RUNS = 48;

    @TempDir
    Path dir;

    @Test
    void everyKilledStructuralChangeEndsWithTheWholeTreeOldOrNew() throws Exception {
        Path root = Files.createDirectories(dir.resolve("ws"));
        Path state = Files.createDirectories(dir.resolve("state"));
        StructuralChangeLoop.seed(root);
        TreeMap<String, String> stateA = tree(root);
        JailedWorkspace workspace = JailedWorkspace.open(root, state);
        StructuralChangeLoop.turn(workspace, root);
        TreeMap<String, String> stateB = tree(root);
        StructuralChangeLoop.turn(workspace, root);
        assertEquals(stateA, tree(root), "a turn there and back is not state A again");
        assertNotEquals(stateA, stateB);

        Random random = new Random();
        int mixedBeforeRecovery = 0;
        int sawA = 0;
        List<String> said = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), StructuralChangeLoop.class.getName(), root.toString(),
                    state.toString()).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("started", out.readLine(), "the child did not start its loop");
            if (run % 3 == 2) {
                awaitJournal(state.resolve(Transaction.FOLDER)); // while it renames, moves and deletes
            } else {
                Thread.sleep(random.nextInt(80)); // anywhere in a change, mostly while it stages
            }
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
            TreeMap<String, String> killed = tree(root);
            if (!killed.equals(stateA) && !killed.equals(stateB)) {
                mixedBeforeRecovery++;
            }

            said.addAll(JailedWorkspace.open(root, state).recovered());
            TreeMap<String, String> after = tree(root);
            assertTrue(after.equals(stateA) || after.equals(stateB), "run " + run + ": the tree is neither state: "
                    + difference(after, stateA) + " from A; " + difference(after, stateB) + " from B; said " + said);
            sawA += after.equals(stateA) ? 1 : 0;
            if (Files.exists(state.resolve(Transaction.FOLDER))) {
                try (Stream<Path> pending = Files.list(state.resolve(Transaction.FOLDER))) {
                    assertEquals(List.of(), pending.toList(), "run " + run + ": journals left");
                }
            }
        }
        System.out.println("killed structural changes: " + RUNS + " runs, " + mixedBeforeRecovery + " left a mix "
                + "before recovery, " + sawA + " ended at A; " + said.stream().filter(s -> s.contains("finished")).count()
                + " finished, " + said.stream().filter(s -> s.contains("rolled back")).count() + " rolled back");
        assertTrue(said.stream().anyMatch(s -> s.matches("An interrupted apply_patch \\(.+\\) was finished: .+")),
                said.toString());
        assertTrue(said.stream().noneMatch(s -> s.contains("left as") || s.contains("not recovered")
                || s.contains("could not")), said.toString());
    }

    @Test
    void aKilledDeleteSaysWhatCameOfIt() throws Exception {
        Path root = Files.createDirectories(dir.resolve("ws"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Random random = new Random();
        List<String> said = new ArrayList<>();
        for (int run = 0; run < 24; run++) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), DeleteLoop.class.getName(), root.toString(),
                    state.toString()).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("started", out.readLine(), "the child did not start its loop");
            // until the file is there or gone, as it was not when the child started: a delete comes next or ran
            Path file = root.resolve(DeleteLoop.NAME);
            boolean there = Files.exists(file);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); Files.exists(file) == there
                    && System.nanoTime() < end; ) {
                Thread.onSpinWait();
            }
            Thread.sleep(random.nextInt(there ? 5 : 20));
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");

            List<String> now = JailedWorkspace.open(root, state).recovered();
            said.addAll(now);
            for (String sentence : now) {
                // a delete rolled back left the file as it was; one finished deleted it
                if (sentence.matches("An interrupted delete_file \\(.+\\) was rolled back: no file changed\\.")) {
                    assertTrue(Files.exists(file), "run " + run + ": said " + sentence + " but the file is gone");
                }
                if (sentence.matches("An interrupted delete_file \\(.+\\) was finished: 1 file\\.")) {
                    assertTrue(!Files.exists(file), "run " + run + ": said " + sentence + " but the file is there");
                }
            }
            if (Files.exists(file)) {
                assertTrue(java.util.Arrays.equals(DeleteLoop.content(), Files.readAllBytes(file)), "run " + run
                        + ": the file is torn");
            }
            assertEquals(List.of(), leftovers(root), "run " + run + ": temporaries left");
        }
        System.out.println("killed deletes: " + said);
    }

    private static List<String> leftovers(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(path -> Temporaries.isTemporary(path.getFileName().toString())).map(Path::toString).toList();
        }
    }

    /** Returns once a journal exists, that is once a change has begun to rename (bounded, so never hangs). */
    private static void awaitJournal(Path journals) throws IOException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); System.nanoTime() < end; ) {
            try (Stream<Path> names = Files.list(journals)) {
                if (names.anyMatch(path -> path.getFileName().toString().endsWith(".journal"))) {
                    return;
                }
            } catch (java.nio.file.NoSuchFileException notYet) {
                // made by the first change
            }
        }
    }

    /**
     * Every entry below the root, temporaries included: a folder as {@code "folder"}, a file as its
     * content. An empty folder or a temporary makes a tree differ from both states.
     */
    private static TreeMap<String, String> tree(Path root) throws IOException {
        TreeMap<String, String> tree = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path path : all.filter(path -> !path.equals(root)).toList()) {
                tree.put(root.relativize(path).toString(), Files.isDirectory(path) ? "folder"
                        : new String(Files.readAllBytes(path), StandardCharsets.UTF_8));
            }
        }
        return tree;
    }

    private static List<String> difference(TreeMap<String, String> tree, TreeMap<String, String> expected) {
        List<String> differ = new ArrayList<>();
        for (String name : tree.keySet()) {
            if (!tree.get(name).equals(expected.get(name))) {
                differ.add((expected.containsKey(name) ? "changed " : "extra ") + name);
            }
        }
        for (String name : expected.keySet()) {
            if (!tree.containsKey(name)) {
                differ.add("missing " + name);
            }
        }
        return differ;
    }
}
