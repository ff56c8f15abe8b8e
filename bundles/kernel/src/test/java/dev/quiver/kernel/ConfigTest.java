package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {

    @TempDir
    Path temp;

    private Map<String, String> environment() {
        return Map.of("XDG_CONFIG_HOME", temp.resolve("xdg").toString());
    }

    @Test
    void explicitFileWinsOverWorkspaceWhichWinsOverUser() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.createDirectories(workspace.resolve(".quiver"));
        Files.writeString(workspace.resolve(".quiver/config.json"), "{\"model\":\"openai/workspace\",\"baseUrl\":\"http://w/v1\"}");
        Files.createDirectories(temp.resolve("xdg/quiver"));
        Files.writeString(temp.resolve("xdg/quiver/config.json"), "{\"model\":\"openai/user\",\"toolTimeout\":5}");
        Path explicit = Files.writeString(temp.resolve("explicit.json"), "{\"model\":\"openai/explicit\"}");

        Config config = Config.load(Optional.of(explicit), workspace, environment());
        assertEquals(Optional.of("openai/explicit"), config.text("model"));
        assertEquals(Optional.of("http://w/v1"), config.text("baseUrl"));
        assertEquals(Optional.of(5L), config.positiveNumber("toolTimeout"));
        assertEquals(0, config.warnings().size(), config.warnings().toString());
    }

    @Test
    void malformedFileIsReportedWithItsNameAndLineAndSkipped() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.createDirectories(workspace.resolve(".quiver"));
        Path broken = Files.writeString(workspace.resolve(".quiver/config.json"), "{\n\"model\": \"openai/x\",\n oops\n}");
        Files.createDirectories(temp.resolve("xdg/quiver"));
        Files.writeString(temp.resolve("xdg/quiver/config.json"), "{\"model\":\"openai/user\"}");

        Config config = Config.load(Optional.empty(), workspace, environment());
        assertEquals(Optional.of("openai/user"), config.text("model"), "the other files still apply");
        assertEquals(1, config.warnings().size());
        String warning = config.warnings().get(0);
        assertTrue(warning.contains(broken.toString()) && warning.contains("line 3"), warning);
    }

    @Test
    void wrongTypesAreIgnoredWithAWarningNamingTheKey() throws Exception {
        Path explicit = Files.writeString(temp.resolve("c.json"), "{\"model\":42,\"toolTimeout\":-1}");
        Config config = Config.load(Optional.of(explicit), Files.createDirectories(temp.resolve("ws")), environment());
        assertEquals(Optional.empty(), config.text("model"));
        assertEquals(Optional.empty(), config.positiveNumber("toolTimeout"));
        assertEquals(2, config.warnings().size(), config.warnings().toString());
        assertTrue(config.warnings().get(0).contains("'model'"));
    }

    @Test
    void aMissingExplicitFileIsReported() {
        Config config = Config.load(Optional.of(temp.resolve("nope.json")), temp, environment());
        assertTrue(config.warnings().get(0).contains("does not exist"), config.warnings().toString());
    }

    @Test
    void commentsAndTrailingCommasAreReadAsJsoncIsWritten() throws Exception {
        Files.createDirectories(temp.resolve("xdg/quiver"));
        Files.writeString(temp.resolve("xdg/quiver/config.json"), """
                // the user's settings
                {
                  "model": "openai/user", /* the default */
                  "toolTimeout": 7, // seconds
                }
                """);
        Config config = Config.load(Optional.empty(), Files.createDirectories(temp.resolve("ws")), environment());
        assertEquals(List.of(), config.warnings());
        assertEquals(Optional.of("openai/user"), config.text("model"));
        assertEquals(Optional.of(7L), config.positiveNumber("toolTimeout"));
    }
}
