package dev.quiver.tools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RememberToolTest {

    @TempDir
    Path root;

    @TempDir
    Path state;

    private final RememberTool tool = new RememberTool();

    private ToolContext context() throws Exception {
        return new AgentContext(root, state, false);
    }

    private String remember(String note) throws Exception {
        return tool.call(Arguments.of(Map.of("note", note)), context()).text();
    }

    private List<String> lines() throws Exception {
        return Files.readAllLines(state.resolve("notes.md"), StandardCharsets.UTF_8);
    }

    @Test
    void notesAreAppendedOneLineEachToTheWorkspaceNotesFile() throws Exception {
        String first = remember("Build with mvn -o -q verify");
        assertTrue(first.contains("Remembered"), first);
        remember("Tests live in\nsrc/test  and use JUnit 5");
        assertEquals(List.of("- (fact) Build with mvn -o -q verify", "- (fact) Tests live in src/test and use JUnit 5"), lines());
    }

    @Test
    void lineBreaksCannotForgeASecondNoteAndDuplicatesAreKeptOnce() throws Exception {
        remember("one\n- two");
        assertEquals(List.of("- (fact) one - two"), lines());
        assertTrue(remember("one - two").startsWith("Already remembered"));
        assertEquals(1, lines().size());
    }

    @Test
    void linesTheUserWroteAroundTheNotesAreKeptOutAndTheFileIsCapped() throws Exception {
        Files.writeString(state.resolve("notes.md"), "# Notes\n- kept by hand\n");
        remember("first by the tool");
        assertEquals(List.of("- (fact) kept by hand", "- (fact) first by the tool"), lines());
        for (int i = 0; i < NoteStore.MAX_NOTES; i++) {
            remember("note " + i);
        }
        List<String> lines = lines();
        assertEquals(NoteStore.MAX_NOTES, lines.size());
        assertEquals("- (fact) note " + (NoteStore.MAX_NOTES - 1), lines.get(lines.size() - 1), "newest last");
        assertFalse(lines.contains("- (fact) kept by hand"), "the oldest went first");
    }

    @Test
    void emptyAndLongNotesAreRefusedAndNothingIsWritten() throws Exception {
        ToolException empty = assertThrows(ToolException.class, () -> remember(" \n "));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
        ToolException longer = assertThrows(ToolException.class, () -> remember("x".repeat(NoteStore.MAX_NOTE + 1)));
        assertTrue(longer.getMessage().contains(String.valueOf(NoteStore.MAX_NOTE)), longer.getMessage());
        assertFalse(Files.exists(state.resolve("notes.md")));
    }

    @Test
    void notesNeverGoIntoTheWorkingTree() throws Exception {
        remember("the build needs Java 17");
        assertFalse(Files.exists(root.resolve(".quiver")), "a note is Quiver's state, not the repository's");
        assertEquals(List.of("- (fact) the build needs Java 17"), lines());
    }

    @Test
    void aContextWithoutStateSaysNotesCannotBeSaved() throws Exception {
        ToolContext stateless = new AgentContext(root, state, false) {
            @Override
            public java.util.Optional<Path> stateFolder() {
                return java.util.Optional.empty();
            }
        };
        ToolException refused = assertThrows(ToolException.class,
                () -> tool.call(Arguments.of(Map.of("note", "x")), stateless));
        assertTrue(refused.getMessage().contains("cannot be saved"), refused.getMessage());
    }
}
