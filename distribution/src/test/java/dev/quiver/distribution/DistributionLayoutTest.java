package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What the assembled distribution holds, checked on its jars rather than on the poms that made them. */
class DistributionLayoutTest {

    /**
     * jtokkit (7 MB with its encodings) is one bundle that kernel, model-openai and tools-extra import: a
     * bundle that embeds it again doubles the download and gives its classes a second, separate class space.
     */
    @Test
    void exactlyOneJarCarriesJtokkit() throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.walk(QuiverProcess.distribution())) {
            jars = files.filter(file -> file.toString().endsWith(".jar")).sorted().toList();
        }
        List<String> carriers = jars.stream().filter(DistributionLayoutTest::carriesJtokkit)
                .map(jar -> jar.getFileName().toString()).toList();
        assertEquals(1, carriers.size(), "jars with com/knuddels/jtokkit/ classes: " + carriers);
        assertTrue(carriers.get(0).startsWith("dev.quiver.jtokkit-"), carriers.toString());
    }

    private static boolean carriesJtokkit(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().anyMatch(entry -> entry.getName().startsWith("com/knuddels/jtokkit/")
                    && entry.getName().endsWith(".class"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + jar, e);
        }
    }
}
