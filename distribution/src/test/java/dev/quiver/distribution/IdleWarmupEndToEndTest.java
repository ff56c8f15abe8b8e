package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The idle warm-up as the built distribution runs it (docs/configuration.md, "Idle warm-up"): a
 * {@code call --batch} process warms up while it waits for its first line, a one-shot {@code call}
 * never does, {@code QUIVER_WARMUP=off} turns it off, and the tree is byte for byte as it was; on a tree
 * too slow to walk it gives up at its budget, and a batch whose input ends does not wait for it. What it
 * did is read from the debug log ({@code QUIVER_LOG=debug}); the waits are bounds, never timings.
 */
class IdleWarmupEndToEndTest {

    private static final long BOUND_SECONDS = 60;

    @TempDir
    Path temp;

    private Path workspace;

    @BeforeEach
    void setUp() throws IOException {
        workspace = Files.createDirectories(temp.resolve("ws"));
        for (int i = 0; i < 20; i++) {
            Path folder = Files.createDirectories(workspace.resolve("src/p" + (i % 4)));
            Files.writeString(folder.resolve("F" + i + ".java"), "class F" + i + " { int needle" + i + "; }\n");
        }
        Files.writeString(workspace.resolve(".env"), "TOKEN=abcdefgh12345678\n");
    }

    private Path log() {
        return QuiverProcess.home(workspace).resolve(".state/quiver/quiver.log");
    }

    private String logText() throws IOException {
        return Files.exists(log()) ? Files.readString(log()) : "";
    }

    private Map<String, String> tree() throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(workspace)) {
            for (Path path : all.toList()) {
                files.put(workspace.relativize(path).toString(), Files.isDirectory(path) ? "/"
                        : new String(Files.readAllBytes(path), StandardCharsets.ISO_8859_1));
            }
        }
        return files;
    }

    /** Runs {@code call --batch -}, writing its one line only once {@code ready} holds of the log (bounded). */
    private String batch(Map<String, String> environment, String awaited) throws Exception {
        Process process = QuiverProcess.startPiped(workspace, environment, "call", "--batch", "-");
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (!logText().contains(awaited) && System.nanoTime() < end && process.isAlive()) {
                Thread.sleep(50);
            }
            assertTrue(logText().contains(awaited), "the log says '" + awaited + "': " + logText());
            try (var in = process.getOutputStream()) {
                in.write("{\"tool\":\"grep\",\"args\":{\"pattern\":\"needle7\"}}\n".getBytes(StandardCharsets.UTF_8));
            }
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(0, process.exitValue(), out);
            return out;
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void aBatchWarmsUpWhileItWaitsAndChangesNothing() throws Exception {
        Map<String, String> before = tree();
        String out = batch(Map.of("QUIVER_LOG", "debug", "QUIVER_WARMUP", "on"), "Idle warm-up done: 21 files listed, 1 secret files found");
        assertTrue(out.contains("src/p3/F7.java:1:"), out);
        assertEquals(before, tree(), "the tree is byte for byte as it was");
    }

    @Test
    void theSwitchTurnsItOff() throws Exception {
        String out = batch(Map.of("QUIVER_LOG", "debug", "QUIVER_WARMUP", "off"), "");
        assertTrue(out.contains("src/p3/F7.java:1:"), out);
        assertFalse(logText().contains("Idle warm-up"), logText());
    }

    @Test
    void aOneShotCallNeverWarmsUp() throws Exception {
        QuiverProcess.Run run = QuiverProcess.run(workspace, Map.of("QUIVER_LOG", "debug", "QUIVER_WARMUP", "on"), "", "call", "grep",
                "{\"pattern\":\"needle7\"}");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().contains("src/p3/F7.java:1:"), run.stdout());
        assertFalse(logText().contains("Idle warm-up"), logText());
    }

    /**
     * Adds a tree whose walk takes longer than the warm-up's 10 s budget: 120 nested levels, each with an
     * ignore file of 500 rules that every entry below is matched against.
     */
    private void slowTree() throws IOException {
        StringBuilder rules = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            rules.append("*never-").append(i).append("-[a-z]*/**/x").append(i).append("?.log\n");
        }
        Path level = workspace;
        for (int depth = 0; depth < 120; depth++) {
            Files.writeString(level.resolve(".gitignore"), rules);
            for (int sibling = 0; sibling < 20; sibling++) {
                Path folder = Files.createDirectories(level.resolve("s" + sibling));
                for (int j = 0; j < 10; j++) {
                    Files.writeString(folder.resolve("f" + j + ".txt"), "x\n");
                }
            }
            level = Files.createDirectories(level.resolve("n"));
        }
    }

    @Test
    void aWarmupOverItsBudgetGivesUpAndTheBatchGoesOn() throws Exception {
        slowTree();
        // a budget the slow tree's walk (seconds here) is sure to pass, so the test does not hang on a machine's speed
        Process process = QuiverProcess.startPiped(workspace, Map.of("QUIVER_LOG", "debug", "QUIVER_WARMUP", "on",
                "QUIVER_JAVA_OPTS", "-Dquiver.warmup.budget.ms=200"), "call", "--batch", "-");
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (!logText().contains("Idle warm-up over its budget") && System.nanoTime() < end
                    && process.isAlive()) {
                Thread.sleep(100);
            }
            assertTrue(logText().contains("Idle warm-up over its budget"), "the warm-up gave up: " + logText());
            assertTrue(process.isAlive(), "the batch still waits for its input");
            process.getOutputStream().close();
            process.getInputStream().readAllBytes();
            assertTrue(process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(0, process.exitValue());
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void aBatchWhoseInputEndsAtOnceExitsWithoutWaitingForALongWarmup() throws Exception {
        slowTree();
        Process process = QuiverProcess.startPiped(workspace, Map.of("QUIVER_LOG", "debug", "QUIVER_WARMUP", "on"), "call", "--batch", "-");
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (!logText().contains("Idle warm-up started") && System.nanoTime() < end && process.isAlive()) {
                Thread.sleep(20);
            }
            assertTrue(logText().contains("Idle warm-up started"), logText());
            long closed = System.nanoTime();
            process.getOutputStream().close();
            process.getInputStream().readAllBytes();
            assertTrue(process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS), "the batch ended");
            long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
            assertEquals(0, process.exitValue());
            assertFalse(logText().contains("Idle warm-up done"), "the walk was still under way when the input ended: "
                    + logText());
            // a bound for "does not hang on the warm-up": generous against the 100 ms closing waits for it, below
            // the 5 s the warm-up once held the exit up
            assertTrue(exitMillis < 4000, "the batch took " + exitMillis + " ms to exit after its input ended");
        } finally {
            process.destroyForcibly();
        }
    }
}
