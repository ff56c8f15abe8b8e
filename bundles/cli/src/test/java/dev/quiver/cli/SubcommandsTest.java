package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Which subcommands a command line gets: the one it names, or all of them when it names none. */
class SubcommandsTest {

    private static List<String> added(String... args) {
        CommandLine root = new CommandLine(new RootCommand(null, "", null));
        Subcommands.add(root, args);
        return List.copyOf(root.getSubcommands().keySet());
    }

    @Test
    void theNamedSubcommandAloneAfterTheRootsOptionsAndTheirValues() {
        assertEquals(List.of("tools"), added("tools", "--json"));
        assertEquals(List.of("call"), added("--workspace", "tools", "call", "read_file", "{}"));
        assertEquals(List.of("check"), added("--model=openai/x", "check", "bash", "{}"));
    }

    @Test
    void helpVersionAndUnknownWordsGetTheWholeTree() {
        List<String> all = List.of("tools", "call", "check", "sessions", "undo", "trust", "mcp", "catalog");
        assertEquals(all, added("-h", "tools"), "the root's usage lists every subcommand");
        assertEquals(all, added("--version", "tools"));
        assertEquals(all, added("tool"));
        assertEquals(all, added("--no-such-option", "tools"));
        assertEquals(all, added());
    }

    @Test
    void aLoneWordCloseToACommandIsATypoAndEverythingElseIsAPrompt() {
        assertEquals(java.util.Optional.of("tools"), Subcommands.typoOf("tool"));
        assertEquals(java.util.Optional.of("check"), Subcommands.typoOf("chekc"));
        assertEquals(java.util.Optional.of("sessions"), Subcommands.typoOf("sesion"));
        assertEquals(java.util.Optional.of("catalog"), Subcommands.typoOf("Catalogue"));
        assertEquals(java.util.Optional.empty(), Subcommands.typoOf("test"), "two edits from trust, a short name");
        assertEquals(java.util.Optional.empty(), Subcommands.typoOf("hello"));
        assertEquals(java.util.Optional.empty(), Subcommands.typoOf("tools"), "a command is no typo");
        assertEquals(java.util.Optional.empty(), Subcommands.typoOf("tool please"));
    }
}
