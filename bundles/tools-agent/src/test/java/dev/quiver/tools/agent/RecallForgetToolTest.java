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

class RecallForgetToolTest {

    @TempDir
    Path root;

    @TempDir
    Path state;

    private ToolContext untrusted() throws Exception {
        return new AgentContext(root, state, false);
    }

    private ToolContext trusted() throws Exception {
        return new AgentContext(root, state, true);
    }

    private String remember(String note, String kind) throws Exception {
        return new RememberTool().call(Arguments.of(Map.of("note", note, "kind", kind)), untrusted()).text();
    }

    private String recall(String words, ToolContext context) throws Exception {
        return new RecallTool().call(Arguments.of(Map.of("words", words)), context).text();
    }

    private String forget(String note, ToolContext context) throws Exception {
        return new ForgetTool().call(Arguments.of(Map.of("note", note)), context).text();
    }

    private List<String> lines() throws Exception {
        return Files.readAllLines(state.resolve(NoteStore.FILE), StandardCharsets.UTF_8);
    }

    @Test
    void aNoteKeepsItsKindAndAnUnknownKindIsRefused() throws Exception {
        String saved = remember("Tests run with make check", "command");
        assertTrue(saved.contains("Remembered as " + NoteStore.id("Tests run with make check")), saved);
        remember("snake_case columns because the ORM expects them", "decision");
        assertEquals(List.of("- (command) Tests run with make check",
                "- (decision) snake_case columns because the ORM expects them"), lines());
        ToolException unknown = assertThrows(ToolException.class, () -> remember("x", "rumour"));
        assertTrue(unknown.getMessage().contains("fact, decision, preference, gotcha, command"), unknown.getMessage());
        assertEquals(2, lines().size());
    }

    @Test
    void recallNeedsEveryWordListsNewestFirstAndCountsEachRecall() throws Exception {
        Files.writeString(state.resolve(NoteStore.FILE), "- seed before migration\n- (gotcha) the migration must run "
                + "before the seed\n- (fact) the seed data lives in db/seed\n");
        String found = recall("SEED migration", untrusted());
        assertTrue(found.startsWith("2 of 3 notes match"), found);
        int newer = found.indexOf("(gotcha) the migration must run before the seed");
        int older = found.indexOf("(fact) seed before migration");
        assertTrue(newer > 0 && older > newer, "newest first: " + found);
        assertFalse(found.contains("db/seed"), "every word must appear: " + found);
        assertTrue(found.contains("recalled 1 time"), found);
        String again = recall("migration", untrusted());
        assertTrue(again.contains("[" + NoteStore.id("the migration must run before the seed") + "] (gotcha) the "
                + "migration must run before the seed · recalled 2 times"), again);
        assertTrue(Files.readString(state.resolve(NoteStore.RECALLS)).contains("\t2\n"));
        assertEquals(3, lines().size(), "recall leaves the notes file as it was");
        assertTrue(recall("nothing-like-this", untrusted()).startsWith("No note of 3"));
        String newest = recall("", untrusted());
        assertTrue(newest.startsWith("The newest notes"), newest);
    }

    @Test
    void recallListsAtMostFifteenAndSaysHowManyMore() throws Exception {
        for (int i = 0; i < 20; i++) {
            remember("note number " + i, "fact");
        }
        String found = recall("note", untrusted());
        assertEquals(RecallTool.MAX_SHOWN, found.lines().filter(line -> line.startsWith("- [")).count(), found);
        assertTrue(found.contains("note number 19"), found);
        assertFalse(found.contains("note number 4 "), found);
        assertTrue(found.contains("5 older matches not shown"), found);
    }

    @Test
    void forgetRemovesANoteByIdOrExactTextAndNothingElse() throws Exception {
        remember("the API is under /v2", "fact");
        remember("use JUnit 5", "preference");
        remember("keep the changelog", "decision");
        recall("API", untrusted());
        String byId = forget(NoteStore.id("the API is under /v2"), untrusted());
        assertTrue(byId.startsWith("Forgot [") && byId.contains("2 notes left"), byId);
        forget("(preference) use JUnit 5", untrusted());
        assertEquals(List.of("- (decision) keep the changelog"), lines());
        assertFalse(Files.readString(state.resolve(NoteStore.RECALLS)).contains(NoteStore.id("the API is under /v2")),
                "the count of a forgotten note goes with it");
        ToolException missing = assertThrows(ToolException.class, () -> forget("keep the", untrusted()));
        assertTrue(missing.getMessage().contains("recall"), "a substring is not enough: " + missing.getMessage());
        assertEquals(1, lines().size());
    }

    @Test
    void theRepositorysNotesAreReadOnlyWhenTrustedLabelledAndCannotBeForgotten() throws Exception {
        Files.createDirectories(root.resolve(".quiver"));
        Files.writeString(root.resolve(NoteStore.SHARED), "# Team notes\n- (command) deploy with make ship\n");
        remember("make ship needs VPN", "gotcha");

        String untrustedView = recall("ship", untrusted());
        assertFalse(untrustedView.contains("deploy with make ship"), untrustedView);
        assertTrue(untrustedView.contains("not searched: the user has not trusted this workspace"), untrustedView);

        String trustedView = recall("ship", trusted());
        assertTrue(trustedView.contains("(command) deploy with make ship · the repository's (.quiver/notes.md)"),
                trustedView);
        assertTrue(trustedView.indexOf("make ship needs VPN") < trustedView.indexOf("deploy with make"),
                "the agent's own notes first: " + trustedView);

        String id = NoteStore.id("deploy with make ship");
        ToolException refused = assertThrows(ToolException.class, () -> forget(id, trusted()));
        assertTrue(refused.getMessage().contains("only the user can remove it"), refused.getMessage());
        assertThrows(ToolException.class, () -> forget("deploy with make ship", trusted()));
        assertEquals("# Team notes\n- (command) deploy with make ship\n", Files.readString(root.resolve(NoteStore.SHARED)));
    }

    @Test
    void aNotesFileThatIsALinkIsNeitherReadNorWritten() throws Exception {
        Path outside = Files.writeString(root.resolve("elsewhere.md"), "- (fact) planted\n");
        Files.createSymbolicLink(state.resolve(NoteStore.FILE), outside);
        assertFalse(recall("planted", untrusted()).contains("planted"));
        ToolException refused = assertThrows(ToolException.class, () -> forget("planted", untrusted()));
        assertTrue(refused.getMessage().contains("not a plain file"), refused.getMessage());
        assertEquals("- (fact) planted\n", Files.readString(outside));
    }

    @Test
    void bytesThatAreNotUtf8AndControlCharactersCannotBreakALine() throws Exception {
        Files.write(state.resolve(NoteStore.FILE), new byte[] {'-', ' ', 'a', (byte) 0xff, 0x1b, '[', '2', 'J', 'b', '\n'});
        String found = recall("a", untrusted());
        assertTrue(found.contains("(fact) a\uFFFD [2Jb"), found);
    }
}
