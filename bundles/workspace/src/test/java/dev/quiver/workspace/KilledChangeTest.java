package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 40-file change killed with SIGKILL at random moments of its write phase, 40 times: after the next
 * open's recovery every file holds the old content or every file the new one, never a mix, and no
 * temporary file or pending journal is left.
 */
class KilledChangeTest {

    static final int FILES = 40;
    private static final int RUNS = 40;

    @TempDir
    Path dir;

    static String name(int i) {
        return "src/pkg" + (i % 4) + "/File" + i + ".java";
    }

    /** A file's content at a version: some kilobytes, so that staging takes a while. */
    static byte[] content(int i, char version) {
        StringBuilder text = new StringBuilder("version " + version + " of file " + i + "\n");
        for (int line = 0; line < 200; line++) {
            text.append("line ").append(line).append(" of version ").append(version).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    static char versionOf(byte[] content) {
        return (char) content["version ".length()];
    }

    @Test
    void everyKilledChangeEndsAllOldOrAllNew() throws Exception {
        Path root = Files.createDirectories(dir.resolve("ws"));
        Path state = Files.createDirectories(dir.resolve("state"));
        for (int i = 0; i < FILES; i++) {
            Path file = root.resolve(name(i));
            Files.createDirectories(file.getParent());
            Files.write(file, content(i, 'A'));
        }
        Random random = new Random();
        int mixedBeforeRecovery = 0;
        List<String> said = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), ChangeLoop.class.getName(), root.toString(),
                    state.toString(), String.valueOf(FILES)).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            assertEquals("started", first, "the child did not start its loop");
            if (run % 2 == 0) {
                Thread.sleep(random.nextInt(60)); // anywhere in a change, mostly while it stages
            } else {
                awaitJournal(state.resolve(Transaction.FOLDER)); // while it renames
            }
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");

            if (versions(root).size() > 1) {
                mixedBeforeRecovery++;
            }
            said.addAll(JailedWorkspace.open(root, state).recovered());
            List<Character> versions = versions(root);
            assertEquals(1, versions.size(), "run " + run + ": files at versions " + versions + " after recovery");
            assertEquals(List.of(), leftovers(root), "run " + run + ": temporaries left in the tree");
            // a child killed before its first change began never made the folder
            if (Files.exists(state.resolve(Transaction.FOLDER))) {
                try (Stream<Path> pending = Files.list(state.resolve(Transaction.FOLDER))) {
                    assertEquals(List.of(), pending.toList(), "run " + run + ": journals left");
                }
            }
        }
        System.out.println("killed 40-file changes: " + RUNS + " runs, " + mixedBeforeRecovery + " left a mix before "
                + "recovery; " + said.stream().filter(s -> s.contains("finished")).count() + " finished, "
                + said.stream().filter(s -> s.contains("rolled back")).count() + " rolled back");
        // the kills that waited for a journal fell after it was complete: those changes were finished
        assertTrue(said.stream().anyMatch(s -> s.matches("An interrupted apply_patch \\(.+\\) was finished: 40 files\\.")),
                said.toString());
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

    /** The versions the files are at, each once. */
    private static List<Character> versions(Path root) throws IOException {
        List<Character> versions = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            char version = versionOf(Files.readAllBytes(root.resolve(name(i))));
            byte[] expected = content(i, version);
            assertTrue(java.util.Arrays.equals(expected, Files.readAllBytes(root.resolve(name(i)))),
                    name(i) + " is torn");
            if (!versions.contains(version)) {
                versions.add(version);
            }
        }
        return versions;
    }

    private static List<Path> leftovers(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(path -> Temporaries.isTemporary(path.getFileName().toString())).toList();
        }
    }
}
