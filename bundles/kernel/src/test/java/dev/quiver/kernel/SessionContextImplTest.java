package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionContextImplTest {

    @TempDir
    Path temp;

    @Test
    void aConfigEditIsReportedEvenWhenSomeoneReadTheNewValueFirst() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Path file = Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json");
        Files.writeString(file, "{\"mcp\":{\"a\":{\"command\":\"x\"}}}");
        Config config = Config.load(Optional.empty(), workspace, Map.of("XDG_CONFIG_HOME", temp.resolve("x").toString()));
        SessionContextImpl context = new SessionContextImpl(() -> "s1", workspace, config, java.util.Map.of(), false);
        CountDownLatch changed = new CountDownLatch(1);
        try (AutoCloseable handle = context.onConfigChange(changed::countDown)) {
            Files.writeString(file, "{\"mcp\":{}}");
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5000));
            assertEquals(Optional.of(Map.of()), context.config("mcp"), "the reader sees the new value at once");
            assertTrue(changed.await(10, TimeUnit.SECONDS), "and the listener still hears about it");
        } finally {
            context.close();
        }
    }
}
