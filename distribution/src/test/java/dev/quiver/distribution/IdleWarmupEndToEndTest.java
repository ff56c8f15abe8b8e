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
 * never does, {@code QUIVER_WARMUP=off} turns it off, and the tree is byte for byte as it was. What it
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
        String out = batch(Map.of("QUIVER_LOG", "debug"), "Idle warm-up done: 21 files listed, 1 secret files found");
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
        QuiverProcess.Run run = QuiverProcess.run(workspace, Map.of("QUIVER_LOG", "debug"), "", "call", "grep",
                "{\"pattern\":\"needle7\"}");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stdout().contains("src/p3/F7.java:1:"), run.stdout());
        assertFalse(logText().contains("Idle warm-up"), logText());
    }
}
