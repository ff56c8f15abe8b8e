package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.UserMessage;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.UndoReport;
import dev.quiver.kernel.checkpoint.Checkpoints;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.core.ReadFileTool;
import dev.quiver.tools.extra.InsertLinesTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Undo through a real {@link KernelSession}: a scripted model runs a real command that deletes a
 * folder, the session's undo brings it back byte for byte and rewinds the conversation (the next
 * request and the stored session no longer hold the turn), and a checkpoint that cannot be written
 * is told once while every command still runs.
 */
class UndoSessionTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;
    private final TestTools.Shell shell = new TestTools.Shell();

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(shell, "sh", "execute");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private KernelSession open(OpenAiStub stub) throws Exception {
        return StubSessions.open(root, environment, framework, stub, true);
    }

    private static String command(String command) {
        return "{\"command\":\"" + command + "\"}";
    }

    /** The user prompts of a request the model received. */
    private static List<String> prompts(JsonNode request) {
        List<String> prompts = new ArrayList<>();
        request.get("messages").forEach(message -> {
            if (message.get("role").asText().equals("user")) {
                prompts.add(message.get("content").asText());
            }
        });
        return prompts;
    }

    @Test
    void undoBringsBackAFolderACommandDeletedAndRewindsTheConversation() throws Exception {
        Files.createDirectories(root.resolve("src/lib"));
        Files.writeString(root.resolve("src/Main.java"), "public class Main {}\n");
        Files.write(root.resolve("src/lib/table.bin"), new byte[] {0, 1, 2, (byte) 0xff});
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("sh", command("echo kept > notes.txt"))),
                OpenAiStub.text("Noted."),
                OpenAiStub.calls(OpenAiStub.call("sh", command("rm -rf src"))),
                OpenAiStub.text("Deleted."),
                OpenAiStub.text("Here we are."));
                KernelSession session = open(model)) {
            session.send("take a note", new TurnListener() { });
            session.send("delete src", new TurnListener() { });
            assertFalse(Files.exists(root.resolve("src")));

            UndoReport preview = session.previewUndo(1, false);
            assertFalse(preview.applied());
            assertEquals(List.of("src/Main.java", "src/lib/table.bin"),
                    preview.restored().stream().map(UndoReport.Change::path).toList());
            assertFalse(Files.exists(root.resolve("src")), "a preview changes nothing");

            UndoReport report = session.undo(1, false);
            assertTrue(report.applied());
            assertEquals(1, report.rewound());
            assertEquals("public class Main {}\n", Files.readString(root.resolve("src/Main.java")));
            assertEquals(List.of(0, 1, 2, 255), toList(Files.readAllBytes(root.resolve("src/lib/table.bin"))));
            assertEquals("kept\n", Files.readString(root.resolve("notes.txt")), "the turn before is not undone");

            session.send("what now?", new TurnListener() { });
            List<JsonNode> requests = model.requests();
            assertEquals(List.of("take a note", "what now?"), prompts(requests.get(requests.size() - 1)),
                    "the undone turn is gone from the conversation");

            HostException tooMany = assertThrows(HostException.class, () -> session.undo(3, false));
            assertTrue(tooMany.getMessage().startsWith("This conversation holds 2 turns"), tooMany.getMessage());

            List<String> stored = SessionStore.fromEnvironment(environment).resume(root, session.id(), "openai/test")
                    .history().stream().filter(UserMessage.class::isInstance)
                    .map(message -> ((UserMessage) message).singleText()).toList();
            assertEquals(List.of("take a note", "what now?"), stored, "and from the stored session");
        }
    }

    /**
     * The line tools (the extra set) write through the workspace like edit_file, so the checkpoint
     * before their call holds the file: the real read_file and insert_lines run in a turn, and undo
     * gives back the very bytes, CRLF line ends and the missing final line break included.
     */
    @Test
    void undoTakesBackALineEditByteForByte() throws Exception {
        framework.register(new ReadFileTool(), "read_file", "read");
        framework.register(new InsertLinesTool(), "insert_lines", "write", dev.quiver.api.Tool.SET, "extra");
        Path file = root.resolve("notes.txt");
        byte[] before = "first\r\nsecond\r\nno final break \u00e9".getBytes(StandardCharsets.UTF_8);
        Files.write(file, before);
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("read_file", "{\"path\":\"notes.txt\"}")),
                OpenAiStub.calls(OpenAiStub.call("insert_lines",
                        "{\"path\":\"notes.txt\",\"line\":2,\"content\":\"inserted\\n\"}")),
                OpenAiStub.text("Inserted."));
                KernelSession session = open(model)) {
            session.send("insert a line", new TurnListener() { });
            assertEquals("first\r\ninserted\r\nsecond\r\nno final break \u00e9",
                    Files.readString(file, StandardCharsets.UTF_8), "insert_lines ran");

            UndoReport report = session.undo(1, false);
            assertTrue(report.applied());
            assertEquals(List.of("notes.txt"), report.restored().stream().map(UndoReport.Change::path).toList());
            assertArrayEquals(before, Files.readAllBytes(file));
        }
    }

    @Test
    void aTurnThatChangedNoFileIsRewoundAlone() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Hello."));
                KernelSession session = open(model)) {
            session.send("hi", new TurnListener() { });
            UndoReport report = session.undo(1, false);
            assertEquals(List.of(), report.changes());
            assertEquals(1, report.rewound());
        }
    }

    @Test
    void aCheckpointThatCannotBeWrittenIsToldOnceAndEveryCommandStillRuns() throws Exception {
        Path store = SessionStore.fromEnvironment(environment).stateFolder(root).resolve(Checkpoints.FOLDER);
        Files.createDirectories(store);
        Files.writeString(store.resolve("objects"), "a file where the objects folder belongs\n");
        Files.writeString(root.resolve("a.txt"), "a\n");
        List<String> notices = new ArrayList<>();
        TurnListener listener = new TurnListener() {
            @Override
            public void notice(String text) {
                notices.add(text);
            }
        };
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("sh", command("echo one > one.txt"))),
                OpenAiStub.calls(OpenAiStub.call("sh", command("echo two > two.txt"))),
                OpenAiStub.text("Both written."));
                KernelSession session = open(model)) {
            session.send("write two files", listener);
            CallOutcome direct = session.call("sh", command("echo three > three.txt"), listener);
            assertEquals(CallOutcome.Status.OK, direct.status());
        }
        assertEquals("one\n", Files.readString(root.resolve("one.txt")));
        assertEquals("two\n", Files.readString(root.resolve("two.txt")));
        assertEquals("three\n", Files.readString(root.resolve("three.txt")));
        assertEquals(3, shell.calls.get());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).startsWith("Quiver could not record a checkpoint before this call"), notices.get(0));
    }

    private static List<Integer> toList(byte[] bytes) {
        List<Integer> values = new ArrayList<>();
        for (byte b : bytes) {
            values.add(b & 0xff);
        }
        return values;
    }
}
