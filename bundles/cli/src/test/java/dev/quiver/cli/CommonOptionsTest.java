package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.SessionOptions;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CommonOptionsTest {

    @Test
    void optionsAfterTheSubcommandWinAndTheRestComeFromBeforeIt() {
        CommonOptions before = new CommonOptions();
        new CommandLine(before).parseArgs("--yolo", "--model", "openai/a", "--workspace", "/tmp/w");
        CommonOptions after = new CommonOptions();
        new CommandLine(after).parseArgs("--model", "openai/b", "--base-url", "http://h/v1");
        SessionOptions merged = after.over(before).session(false);
        assertEquals(Optional.of("openai/b"), merged.model());
        assertEquals(Optional.of("http://h/v1"), merged.baseUrl());
        assertEquals(Path.of("/tmp/w"), merged.workspace());
        assertTrue(merged.yolo());
    }

    @Test
    void mcpConfigFilesBeforeAndAfterTheSubcommandAllCountAsAbsolutePaths() {
        CommonOptions before = new CommonOptions();
        new CommandLine(before).parseArgs("--mcp-config", "servers.json");
        CommonOptions after = new CommonOptions();
        new CommandLine(after).parseArgs("--mcp-config", "/etc/more.json", "--mcp-config", "third.json");
        SessionOptions merged = after.over(before).session(false);
        assertEquals(java.util.List.of(Path.of("servers.json").toAbsolutePath(), Path.of("/etc/more.json"),
                Path.of("third.json").toAbsolutePath()), merged.mcpConfig());
        assertEquals(java.util.List.of(), new CommonOptions().session(false).mcpConfig());
    }

    @Test
    void toolRulesGivenBeforeAndAfterTheSubcommandBothCount() {
        CommonOptions before = new CommonOptions();
        new CommandLine(before).parseArgs("--disallowedTools", "bash(git push *)");
        CommonOptions after = new CommonOptions();
        new CommandLine(after).parseArgs("--disallowedTools", "bash(rm *)", "--allowedTools", "Read");
        SessionOptions merged = after.over(before).session(false);
        assertEquals(java.util.Map.of("bash", java.util.List.of("git push *", "rm *")), merged.run().disallowedTools());
        assertEquals(java.util.Map.of("read_file", java.util.List.of("*")), merged.run().allowedTools());
    }
}
