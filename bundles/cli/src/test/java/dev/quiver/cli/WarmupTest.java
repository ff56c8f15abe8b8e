package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;

/** The launcher's contract with this bundle's {@code Quiver-Warmup} header (docs/architecture.md, Start-up). */
class WarmupTest {

    @Test
    void theHeaderNamesAPublicRunnableThatRunsWithoutAHost() throws Exception {
        Manifest manifest;
        try (InputStream in = Files.newInputStream(Path.of("target", "classes", "META-INF", "MANIFEST.MF"))) {
            manifest = new Manifest(in);
        }
        String name = manifest.getMainAttributes().getValue("Quiver-Warmup");
        assertNotNull(name, "the bundle names its warm-up");
        Object warmup = Class.forName(name.strip()).getConstructor().newInstance();
        assertEquals(Warmup.class, warmup.getClass());
        // no kernel, no terminal: it only builds the command model, and must not fail for want of them
        ((Runnable) warmup).run();
    }
}
