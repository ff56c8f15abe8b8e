package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.UndoReport;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on approval previews (897074d) through a real {@link KernelSession}. The stand-in tools do
 * exactly what the named production tools do against their workspace (the lines are cited), so what
 * the kernel records, shows and makes is what it would for them.
 *
 * <p>Each test's comment describes an attack from the review of that commit (several worked against
 * it and were fixed in f62a8bc); the test asserts the promise holds against it.
 */
class PreviewAttackTest {

    private static final String SECRET = "zq8-preview-secret-value-31";

    @TempDir
    Path temp;

    private Path root;
    private Workspace workspace;
    private Framework framework;
    private KernelSession session;
    private OpenAiStub stub;
    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    private final List<String> notices = new CopyOnWriteArrayList<>();

    // ------------------------------------------------------------------ stand-ins of the production tools

    private abstract static class Base implements Tool {
        private final String name;
        private final String schema;

        Base(String name, String schema) {
            this.name = name;
            this.schema = schema;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, name, schema);
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            Optional<String> path = arguments.optionalString("path");
            return List.of(Subject.path(path.isPresent() ? path.get() : arguments.string("from")));
        }
    }

    private static final String PATH = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
            + "\"content\":{\"type\":\"string\"}}}";
    private static final String FROM_TO = "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\"},"
            + "\"to\":{\"type\":\"string\"}}}";

    /** edit_file / write_file: readText, replace comparing with what was read, reads().wrote. */
    private static final class SetContent extends Base {
        SetContent() {
            super("set_content", PATH);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path file = ws.resolve(arguments.string("path"));
            byte[] before = null;
            if (Files.exists(file)) {
                ws.reads().requireFresh(file);
                before = ws.readText(file).text().getBytes(StandardCharsets.UTF_8);
            }
            try {
                ws.change("set_content").replace(file, before,
                        arguments.string("content").getBytes(StandardCharsets.UTF_8)).commit();
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            ws.reads().wrote(file);
            return ToolResult.of("Set " + ws.relativize(file) + ".");
        }
    }

    /** DeleteFileTool.call, one file (DeleteFileTool.java:103-105): Files.size, then workspace.delete. */
    private static final class DeleteOne extends Base {
        DeleteOne() {
            super("delete_one", PATH);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path file = ws.resolve(arguments.string("path"));
            try {
                long size = Files.size(file);
                ws.delete(file);
                return ToolResult.of("Deleted " + ws.relativize(file) + " (" + size + " bytes).");
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
        }
    }

    /** MoveFileTool.call (MoveFileTool.java:59-69): freshness judged, change.move, reads().wrote(target). */
    private static final class MoveOne extends Base {
        MoveOne() {
            super("move_one", FROM_TO);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path source = ws.resolve(arguments.string("from"));
            Path target = ws.resolve(arguments.string("to"));
            boolean fresh;
            try {
                ws.reads().requireFresh(source);
                fresh = true;
            } catch (ToolException unread) {
                fresh = false;
            }
            try {
                ws.change("move_file").move(source, target).commit();
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            if (fresh) {
                ws.reads().wrote(target);
            }
            return ToolResult.of("Moved.");
        }
    }

    /** CopyPathTool.call, a file (CopyPathTool.java:68-73): change.copy, then the size of the target. */
    private static final class CopyOne extends Base {
        CopyOne() {
            super("copy_one", FROM_TO);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path source = ws.resolve(arguments.string("from"));
            Path target = ws.resolve(arguments.string("to"));
            try {
                ws.change("copy_path").copy(source, target).commit();
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            long size;
            try {
                size = Files.size(target);
            } catch (IOException e) {
                size = 0; // as CopyPathTool.size does
            }
            return ToolResult.of("Copied " + ws.relativize(source) + " to " + ws.relativize(target) + " (" + size
                    + " bytes).");
        }
    }

    /**
     * A plugin that edits one file twice, each edit reading the file again and committing: within the
     * Tool.PREVIEW contract (every change through the workspace, no other effect).
     */
    private static final class EditTwice extends Base {
        EditTwice() {
            super("edit_twice", PATH);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path file = ws.resolve(arguments.string("path"));
            try {
                for (String[] edit : new String[][] {{"one", "ONE"}, {"two", "TWO"}}) {
                    String text = ws.readText(file).text();
                    ws.change("edit_twice").replace(file, text.getBytes(StandardCharsets.UTF_8),
                            text.replace(edit[0], edit[1]).getBytes(StandardCharsets.UTF_8)).commit();
                }
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            return ToolResult.of("Edited twice.");
        }
    }

    /** A previewable writer whose content the model writes (askModel) — the dry run must not reach the model. */
    private static final class AskThenWrite extends Base {
        AskThenWrite() {
            super("ask_then_write", PATH);
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            Workspace ws = context.workspace();
            Path file = ws.resolve(arguments.string("path"));
            String answer = context.askModel("Write it.", "input");
            try {
                ws.change("ask_then_write").replace(file, null, answer.getBytes(StandardCharsets.UTF_8)).commit();
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            return ToolResult.of("Wrote " + answer);
        }
    }

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        framework = new Framework();
        for (Tool tool : List.of(new SetContent(), new DeleteOne(), new MoveOne(), new CopyOne(), new EditTwice(),
                new AskThenWrite())) {
            framework.register(tool, tool.spec().name(), "write", Tool.PREVIEW, "true");
        }
    }

    private void open(OpenAiStub model) throws IOException {
        stub = model;
        var environment = StubSessions.environment(temp);
        workspace = new WorkspaceFactoryComponent().open(root);
        ModelProvider provider = model == null ? null : new ModelProvider() {
            @Override
            public ChatModel chatModel(ModelSettings settings) {
                return OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(model.baseUrl())
                        .apiKey("test").modelName(settings.name()).maxRetries(0).build();
            }

            @Override
            public StreamingChatModel streamingChatModel(ModelSettings settings) {
                return null;
            }
        };
        session = StubSessions.open(workspace, Config.load(Optional.empty(), root, environment), environment, framework,
                name -> name.equals("openai") ? Optional.ofNullable(provider) : Optional.empty(),
                new SessionOptions(root, Optional.empty(), false, true, false,
                        model == null ? Optional.empty() : Optional.of("openai/test"), Optional.empty(),
                        Optional.empty(), false, false));
    }

    @AfterEach
    void stop() throws Exception {
        if (session != null) {
            session.close();
        }
        framework.close();
        if (stub != null) {
            stub.close();
        }
    }

    private TurnListener answering(Function<ApprovalRequest, Approval> answer) {
        return new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request);
                return answer.apply(request);
            }

            @Override
            public void notice(String text) {
                notices.add(text);
            }
        };
    }

    private CallOutcome call(String tool, String arguments, Function<ApprovalRequest, Approval> answer) {
        return session.call(tool, arguments, answering(answer));
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private List<String> tree() throws IOException {
        try (Stream<Path> all = Files.walk(temp)) {
            return all.map(p -> temp.relativize(p).toString())
                    .filter(p -> !p.contains("audit") && !p.contains("sessions"))
                    .sorted().toList();
        }
    }

    // ---------------------------------------------------------------------------------------- attacks

    /**
     * delete_file of one file records Direct(Delete(file, null)); Preview.apply calls workspace.delete
     * without comparing. The question said "delete a.txt (3 bytes)"; what the user saved meanwhile is gone.
     */
    @Test
    void aDeleteApprovedAfterTheFileChangedIsRefused() throws Exception {
        open(null);
        Path file = root.resolve("a.txt");
        write(file, "v1\n");
        CallOutcome outcome = call("delete_one", "{\"path\":\"a.txt\"}", request -> {
            assertEquals(Optional.of("delete a.txt (3 bytes)\n"), request.diff());
            write(file, "an hour of the user's work\n"); // saved in the editor while the question waits
            return Approval.once();
        });
        assertTrue(Files.exists(file), "the file changed since the question (3 bytes -> 27 bytes) was deleted "
                + "anyway; outcome: " + outcome.status() + " " + outcome.output());
    }

    /**
     * A move is not compared when it is made, so it is not previewed: the question comes without a diff and
     * the call runs after the answer, where the read-before-write rule sees the source changed since the
     * model read it. Nothing the model never read is marked as read.
     */
    @Test
    void aMoveOfAFileChangedMeanwhileDoesNotMarkTheUnseenContentAsRead() throws Exception {
        open(null);
        Path file = root.resolve("a.txt");
        write(file, "what the model read\n");
        workspace.reads().read(file); // read_file
        CallOutcome outcome = call("move_one", "{\"from\":\"a.txt\",\"to\":\"b.txt\"}", request -> {
            write(file, "the user's new text, never shown to the model\n");
            return Approval.once();
        });
        assertEquals(Optional.empty(), asked.get(0).diff(), "a move was previewed");
        Path target = root.resolve("b.txt");
        if (outcome.status() == CallOutcome.Status.OK) {
            assertThrows(ToolException.class, () -> workspace.reads().requireFresh(target),
                    "the read-before-write rule now lets the model overwrite b.txt, whose content it never read");
        } else {
            assertEquals("the user's new text, never shown to the model\n", Files.readString(file), outcome.output());
            assertFalse(Files.exists(target));
        }
    }

    /** The dry run's answer is the call's, but a tool that looks at what it made sees nothing there. */
    @Test
    void theCallsAnswerDescribesWhatWasMade() throws Exception {
        open(null);
        write(root.resolve("a.txt"), "hello\n");
        CallOutcome outcome = call("copy_one", "{\"from\":\"a.txt\",\"to\":\"b.txt\"}", request -> Approval.once());
        assertEquals("hello\n", Files.readString(root.resolve("b.txt")));
        assertEquals("Copied a.txt to b.txt (6 bytes).", outcome.output(), "what the model is told it made");
    }

    /**
     * A tool that changes one file twice (each change reading it again): the dry run reads the disk, not
     * what it recorded, so its second replace is "made from" the original. The diff shows ONE reverted;
     * approved, the first change is made and the second refused: half the call, not "exactly or nothing".
     */
    @Test
    void twoChangesOfOneFileAreMadeWholeOrNotAtAll() throws Exception {
        open(null);
        Path file = root.resolve("a.txt");
        write(file, "one\ntwo\n");
        CallOutcome outcome = call("edit_twice", "{\"path\":\"a.txt\"}", request -> Approval.once());
        String now = Files.readString(file);
        assertTrue(now.equals("ONE\nTWO\n") || now.equals("one\ntwo\n"), "half the call was made: " + now.replace("\n", "|")
                + "; the question showed:\n" + asked.get(0).diff().orElse("") + "outcome: " + outcome.output());
    }

    /**
     * The comparison that builds the diff runs on the session's thread after the dry run, outside the
     * tool timeout, and is quadratic for lines repeated more than 64 times (JGit's histogram diff falls
     * back to Myers). 64 KB takes about 10 s here; the 1 MiB a write_file argument may carry, about 40 min.
     * The same comparison runs again for the summary after approval. Esc/ctrl-c cannot stop it.
     */
    @Test
    void theQuestionIsNotHeldBackByComparingTheFiles() throws Exception {
        open(null);
        Path file = root.resolve("data.txt");
        write(file, "a\nb\n".repeat(16_000));
        workspace.reads().read(file);
        AtomicLong askedAfter = new AtomicLong();
        long started = System.nanoTime();
        call("set_content", "{\"path\":\"data.txt\",\"content\":\"" + "a\\nc\\n".repeat(16_000) + "\"}", request -> {
            askedAfter.set((System.nanoTime() - started) / 1_000_000);
            return Approval.deny("");
        });
        assertTrue(askedAfter.get() < 3_000, "the question came " + askedAfter.get() + " ms after the call");
    }

    /**
     * Redactor's promise: known secret values are replaced before anything reaches a front end. The diff
     * carries the file's context lines unredacted, to the terminal and to an MCP client's dialog.
     */
    @Test
    void theDiffIsRedactedAsAResultIs() throws Exception {
        open(null);
        write(root.resolve(".env"), "DB_PASSWORD=" + SECRET + "\n");
        Path file = root.resolve("config.yml");
        write(file, "db:\n  password: " + SECRET + "\n  pool: 4\n");
        workspace.reads().read(file);
        call("set_content", "{\"path\":\"config.yml\",\"content\":\"db:\\n  password: " + SECRET
                + "\\n  pool: 8\\n\"}", request -> Approval.deny(""));
        String diff = asked.get(0).diff().orElse("");
        assertFalse(diff.contains(SECRET), "a known secret value in the approval diff:\n" + diff);
    }

    // ---------------------------------------------------------------------------------------- what held

    @Test
    void aDeniedCallLeavesNoTraceInTheTreeTheStateFolderOrTheLedger() throws Exception {
        open(null);
        Path file = root.resolve("a.txt");
        write(file, "one\n");
        workspace.reads().read(file);
        // the first call makes the session's own store (home/.local/share/quiver): not the preview's doing
        call("set_content", "{\"path\":\"deep/er/new.txt\",\"content\":\"x\"}", request -> Approval.deny(""));
        assertFalse(Files.exists(root.resolve("deep")), "the dry run made the folders of a new file");
        List<String> before = tree();
        call("set_content", "{\"path\":\"a.txt\",\"content\":\"two\\n\"}", request -> {
            assertEquals(before, uncheckedTree(), "written before the answer");
            return Approval.deny("");
        });
        call("delete_one", "{\"path\":\"a.txt\"}", request -> Approval.deny(""));
        call("move_one", "{\"from\":\"a.txt\",\"to\":\"m/b.txt\"}", request -> Approval.deny(""));
        assertEquals(before, tree(), "a denied call left something (checkpoints, journals, temporaries, folders)");
        assertEquals("one\n", Files.readString(file));
        workspace.reads().requireFresh(file); // still the content the model read
        Path b = root.resolve("m/b.txt");
        assertFalse(Files.exists(b));
    }

    private List<String> uncheckedTree() {
        try {
            return tree();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aFileThatAppearsOrIsSwappedForALinkMeanwhileIsRefused() throws Exception {
        open(null);
        Path file = root.resolve("new.txt");
        CallOutcome appeared = call("set_content", "{\"path\":\"new.txt\",\"content\":\"mine\\n\"}", request -> {
            write(file, "someone else's\n");
            return Approval.once();
        });
        assertEquals(CallOutcome.Status.ERROR, appeared.status(), appeared.output());
        assertEquals("someone else's\n", Files.readString(file));

        Path a = root.resolve("a.txt");
        write(a, "alpha\n");
        write(root.resolve("other.txt"), "other\n");
        workspace.reads().read(a);
        CallOutcome swapped = call("set_content", "{\"path\":\"a.txt\",\"content\":\"beta\\n\"}", request -> {
            try {
                Files.delete(a);
                Files.createSymbolicLink(a, Path.of("other.txt"));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return Approval.once();
        });
        assertEquals(CallOutcome.Status.ERROR, swapped.status(), swapped.output());
        assertEquals("other\n", Files.readString(root.resolve("other.txt")));
    }

    @Test
    void alwaysGrantsMakesThePreviewAndTheNextCallRunsUnasked() throws Exception {
        open(null);
        Path file = root.resolve("a.txt");
        CallOutcome first = call("set_content", "{\"path\":\"a.txt\",\"content\":\"1\\n\"}", request -> Approval.always());
        assertEquals(CallOutcome.Status.OK, first.status(), first.output());
        assertEquals("1\n", Files.readString(file));
        workspace.reads().read(file);
        CallOutcome second = call("set_content", "{\"path\":\"a.txt\",\"content\":\"2\\n\"}", request -> Approval.deny(""));
        assertEquals(1, asked.size(), "asked again after always");
        assertEquals(CallOutcome.Status.OK, second.status(), second.output());
        assertEquals("2\n", Files.readString(file));
    }

    @Test
    void theDryRunNeverReachesTheModelAndTheCallIsAskedWithoutADiff() throws Exception {
        open(OpenAiStub.start(OpenAiStub.text("from the model")));
        CallOutcome outcome = call("ask_then_write", "{\"path\":\"n.txt\"}", request -> {
            assertEquals(0, stub.requests().size(), "the dry run asked the model");
            return Approval.once();
        });
        assertEquals(Optional.empty(), asked.get(0).diff());
        assertEquals(CallOutcome.Status.OK, outcome.status(), outcome.output());
        assertEquals(1, stub.requests().size());
        assertEquals("from the model", Files.readString(root.resolve("n.txt")));
    }

    @Test
    void undoTakesBackAPreviewedChange() throws Exception {
        Path file = root.resolve("a.txt");
        write(file, "original\n");
        open(OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("set_content", "{\"path\":\"a.txt\",\"content\":\"changed\\n\"}")),
                OpenAiStub.text("done")));
        workspace.reads().read(file);
        session.send("change it", answering(request -> Approval.once()));
        assertEquals("changed\n", Files.readString(file));
        assertTrue(asked.get(0).diff().isPresent());
        UndoReport report = session.undo(1, false);
        assertTrue(report.applied(), report.toString());
        assertEquals("original\n", Files.readString(file));
    }
}
