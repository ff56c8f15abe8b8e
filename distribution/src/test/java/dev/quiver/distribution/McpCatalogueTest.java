package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorded catalogue is served only for the exact inputs it was recorded with, and only when
 * it is this user's own well-formed file: anything planted, garbled, oversized or shared is ignored.
 */
class McpCatalogueTest {

    private static final String INITIALIZE = "{\"capabilities\":{\"tools\":{\"listChanged\":true}},"
            + "\"serverInfo\":{\"name\":\"quiver\",\"version\":\"1\"}}";
    private static final String TOOLS = "{\"tools\":[{\"name\":\"read_file\",\"description\":\"Reads\","
            + "\"inputSchema\":{\"type\":\"object\"}}]}";

    @TempDir
    Path temp;

    private Path home;
    private Path workspace;
    private StartRecord.Inputs inputs;

    @BeforeEach
    void installation() throws Exception {
        home = Files.createDirectories(temp.resolve("quiver"));
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/quiver.jar"), "launcher");
        Files.writeString(Files.createDirectories(home.resolve("bundle")).resolve("tools-1.0.jar"), "tools");
        Files.createDirectories(home.resolve("deploy"));
        workspace = Files.createDirectories(temp.resolve("ws"));
        inputs = new StartRecord.Inputs(home, workspace, List.of("mcp"),
                Map.of("HOME", temp.resolve("user").toString(), "XDG_STATE_HOME", temp.resolve("state").toString()),
                List.of(home.resolve("bundle"), home.resolve("deploy"), home.resolve("plugins")));
    }

    private Optional<McpCatalogue.Record> recordAndRead() throws Exception {
        McpCatalogue.of(inputs).orElseThrow().write(false, List.of("2025-06-18"), INITIALIZE, TOOLS);
        return McpCatalogue.of(inputs).orElseThrow().read();
    }

    private Path recordFile() throws Exception {
        try (Stream<Path> files = Files.list(temp.resolve("state/quiver/mcp-tools"))) {
            return files.filter(p -> p.toString().endsWith(".record")).findFirst().orElseThrow();
        }
    }

    @Test
    void aRecordIsReadBackForTheSameInputs() throws Exception {
        McpCatalogue.Record record = recordAndRead().orElseThrow();
        assertEquals(TOOLS, record.tools());
        assertEquals(INITIALIZE, record.initialize());
        assertEquals(List.of("2025-06-18"), record.protocols());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(recordFile())));
    }

    @Test
    void anyChangedInputMakesTheRecordStale() throws Exception {
        recordAndRead().orElseThrow();
        Files.writeString(home.resolve("deploy/extra-1.0.jar"), "a plugin"); // a bundle added
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty());
        Files.delete(home.resolve("deploy/extra-1.0.jar"));
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isPresent(), "the same inputs again");

        Files.writeString(workspace.resolve(".mcp.json"), "{\"mcpServers\":{}}"); // a config that was absent
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty());
        Files.delete(workspace.resolve(".mcp.json"));

        Path user = Files.createDirectories(temp.resolve("user/.config/quiver")).resolve("config.json");
        Files.writeString(user, "{\"permission\":{\"read_file\":\"deny\"}}");
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "a user config denying a tool");
        Files.delete(user);

        StartRecord.Inputs otherArgs = new StartRecord.Inputs(home, workspace, List.of("mcp", "--disallowedTools",
                "read_file"), inputs.environment(), inputs.bundleFolders());
        assertTrue(McpCatalogue.of(otherArgs).orElseThrow().read().isEmpty());
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isPresent());
    }

    @Test
    void theInputsTheStartRecordsGainedMakeItStaleToo() throws Exception {
        Path config = Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json");
        Files.writeString(config, "{}");
        recordAndRead().orElseThrow();

        // the same bytes through a link: the kernel does not read a workspace's config through one
        Path elsewhere = Files.writeString(temp.resolve("elsewhere.json"), "{}");
        Files.delete(config);
        Files.createSymbolicLink(config, elsewhere);
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "a config that became a link");
        Files.delete(config);
        Files.writeString(config, "{}");
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isPresent(), "the same inputs again");

        Map<String, String> properties = new java.util.TreeMap<>(inputs.properties());
        properties.put("quiver.catalog.enforce", "true");
        StartRecord.Inputs otherProperties = new StartRecord.Inputs(home, workspace, inputs.args(), inputs.environment(),
                inputs.bundleFolders(), properties);
        assertTrue(McpCatalogue.of(otherProperties).orElseThrow().read().isEmpty(), "another system property");

        // a change journal a killed process left: the next start rolls it back and says so
        Path sessions = Files.createDirectories(temp.resolve("user/.local/share/quiver/sessions"));
        Path changes = Files.createDirectories(sessions.resolve("ws-" + java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(workspace.toRealPath().toString()
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0, 6)).resolve("state/changes"));
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isPresent(), "an empty journal folder: nothing to recover");
        Files.writeString(changes.resolve("left-behind"), "x");
        assertThrows(java.io.IOException.class, () -> McpCatalogue.of(inputs), "a journal left behind");
        Files.delete(changes.resolve("left-behind"));

        // a bwrap that appears on PATH may change whether the shell is sandboxed
        Path bin = Files.createDirectories(temp.resolve("bin"));
        Map<String, String> environment = new java.util.HashMap<>(inputs.environment());
        environment.put("PATH", bin.toString());
        StartRecord.Inputs withPath = new StartRecord.Inputs(home, workspace, inputs.args(), environment,
                inputs.bundleFolders(), inputs.properties());
        McpCatalogue.of(withPath).orElseThrow().write(false, List.of("2025-06-18"), INITIALIZE, TOOLS);
        assertTrue(McpCatalogue.of(withPath).orElseThrow().read().isPresent());
        Files.writeString(bin.resolve("bwrap"), "#!/bin/sh\n");
        assertTrue(McpCatalogue.of(withPath).orElseThrow().read().isEmpty(), "a bwrap on PATH");
    }

    @Test
    void aRecordIsNotWrittenWhenTheInputsChangedWhileTheServerRan() throws Exception {
        McpCatalogue catalogue = McpCatalogue.of(inputs).orElseThrow();
        Files.writeString(Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json"), "{}");
        catalogue.write(false, List.of("2025-06-18"), INITIALIZE, TOOLS);
        assertTrue(!Files.exists(temp.resolve("state/quiver/mcp-tools"))
                || McpCatalogue.of(inputs).orElseThrow().read().isEmpty());
    }

    @Test
    void aGarbledRecordIsIgnored() throws Exception {
        recordAndRead().orElseThrow();
        Path file = recordFile();
        List<String> lines = Files.readAllLines(file);
        Files.writeString(file, String.join("\n", lines.subList(0, 5)) + "\ntools {\"tools\":[{\"name\":\n");
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "broken JSON");
        Files.writeString(file, String.join("\n", lines.subList(0, 5)) + "\ntools {\"tools\":[{\"nom\":1}]}\n");
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "a tool without a name");
        Files.writeString(file, "garbage");
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty());
        Files.write(file, new byte[(int) StartRecord.MAX_BYTES + 1]);
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "oversized");
    }

    @Test
    void aRecordOthersCouldHaveWrittenIsIgnored() throws Exception {
        recordAndRead().orElseThrow();
        Path file = recordFile();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "writable by others");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isPresent());

        Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "a folder others can write to");
        Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwx------"));

        Path planted = Files.move(file, temp.resolve("planted.record"));
        Files.createSymbolicLink(file, planted);
        assertTrue(McpCatalogue.of(inputs).orElseThrow().read().isEmpty(), "a link");
    }

    @Test
    void anArgumentFileOrAnEmptyHomeMeansNoCatalogue() throws Exception {
        Files.writeString(workspace.resolve("opts"), "--disallowedTools\nread_file\n");
        assertTrue(McpCatalogue.of(new StartRecord.Inputs(home, workspace, List.of("mcp", "@opts"), inputs.environment(),
                inputs.bundleFolders())).isEmpty(), "picocli reads arguments from @opts");
        Map<String, String> noHome = new java.util.HashMap<>(inputs.environment());
        noHome.put("HOME", "");
        assertTrue(McpCatalogue.of(new StartRecord.Inputs(home, workspace, inputs.args(), noHome, inputs.bundleFolders()))
                .isEmpty(), "an empty HOME");
        assertTrue(McpCatalogue.of(inputs).isPresent());
    }

    @Test
    void theJsonReaderIsStrict() {
        assertEquals(Map.of("a", List.of(Boolean.TRUE, "x\n")), MiniJson.parse(" {\"a\": [true, \"x\\n\"]} "));
        assertEquals("7", ((MiniJson.Number) MiniJson.parse("7")).literal());
        for (String bad : List.of("", "{", "{\"a\":1,}", "[1 2]", "01", "\"a", "{\"a\":1} x", "tru", "\"\u0001\"",
                "[".repeat(100) + "]".repeat(100))) {
            assertThrows(IllegalArgumentException.class, () -> MiniJson.parse(bad), bad);
        }
    }
}
