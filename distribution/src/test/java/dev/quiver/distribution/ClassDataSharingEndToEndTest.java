package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.distribution.QuiverProcess.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data-sharing archive the build writes (docs/architecture.md, Start-up) holds the bundle
 * classes a start needs, the ones it only loads included ({@link CdsTraining}): a start of the built
 * distribution reads next to none of them from the jars.
 */
class ClassDataSharingEndToEndTest {

    @TempDir
    Path temp;

    @Test
    void aStartReadsItsBundleClassesFromTheArchive() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Path log = temp.resolve("classes.log");
        Run run = QuiverProcess.run(QuiverProcess.distribution(), workspace,
                Map.of("QUIVER_JAVA_OPTS", "-Xlog:class+load=info:file=" + log), "", "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());

        List<String> lines = Files.readAllLines(log);
        long shared = lines.stream().filter(line -> line.endsWith("source: shared objects file (top)")).count();
        List<String> fromJars = lines.stream().filter(line -> line.contains("source: file:") && line.contains("/bundle/")).toList();
        assertTrue(shared > 1000, "the archive is in use: " + shared + " classes from it");
        // a handful stay out (Java 17 archives no class that failed to link, such as SCR's Config Admin support)
        assertTrue(fromJars.size() <= 20, fromJars.size() + " bundle classes read from their jars:\n"
                + String.join("\n", fromJars.subList(0, Math.min(40, fromJars.size()))));
    }
}
