package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write call's approval question shows the diff of what it will change, from a dry run against a
 * recording workspace; approved, exactly that is made; denied or changed meanwhile, nothing is.
 */
class ApprovalDiffTest {

    @TempDir
    Path temp;

    private Path root;
    private Framework framework;
    private KernelSession session;
    private final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();

    /** Sets a file's content, comparing with what it read, as edit_file does; counts its runs. */
    private static final class SetContent implements Tool {
        final AtomicInteger runs = new AtomicInteger();
        private final String name;

        SetContent(String name) {
            this.name = name;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Set a file's content.", "{\"type\":\"object\",\"properties\":{"
                    + "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},\"fail\":{\"type\":\"boolean\"}}}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.path(arguments.string("path")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            runs.incrementAndGet();
            if (arguments.bool("fail", false)) {
                throw new ToolException("it fails as asked");
            }
            Workspace workspace = context.workspace();
            Path file = workspace.resolve(arguments.string("path"));
            try {
                byte[] before = Files.exists(file) ? Files.readAllBytes(file) : null;
                workspace.change("set_content").replace(file, before,
                        arguments.string("content").getBytes(StandardCharsets.UTF_8)).commit();
            } catch (IOException e) {
                throw new ToolException(e.getMessage(), e);
            }
            workspace.reads().wrote(file);
            return ToolResult.of("Set " + workspace.relativize(file) + ".");
        }
    }

    private final SetContent previewed = new SetContent("set_content");
    private final SetContent undeclared = new SetContent("set_plain");

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        framework = new Framework();
        framework.register(previewed, "set_content", "write", Tool.PREVIEW, "true");
        framework.register(undeclared, "set_plain", "write");
        session = StubSessions.open(root, StubSessions.environment(temp), framework, (dev.quiver.langchain4j.ModelProvider) null,
                new SessionOptions(root, Optional.empty(), false, true, false, Optional.empty(), Optional.empty(),
                        Optional.empty(), false, false));
    }

    @AfterEach
    void stop() throws Exception {
        session.close();
        framework.close();
    }

    /** A call answered by {@code answer}, which sees the question while nothing is written yet. */
    private CallOutcome call(String tool, String arguments, Function<ApprovalRequest, Approval> answer) {
        return session.call(tool, arguments, new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request);
                return answer.apply(request);
            }

            @Override
            public void notice(String text) {
                output.add(text);
            }
        });
    }

    @Test
    void theQuestionShowsTheDiffBeforeAnythingIsWrittenAndTheApprovedChangeIsMadeOnce() throws Exception {
        Path file = Files.writeString(root.resolve("a.txt"), "alpha\nbeta\ngamma\n");
        CallOutcome outcome = call("set_content", "{\"path\":\"a.txt\",\"content\":\"alpha\\nBETA\\ngamma\\n\"}", request -> {
            try {
                assertEquals("alpha\nbeta\ngamma\n", Files.readString(file), "written before the answer");
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return Approval.once();
        });
        assertEquals(Optional.of("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"),
                asked.get(0).diff());
        assertEquals(CallOutcome.Status.OK, outcome.status(), outcome.output());
        assertEquals("Set a.txt.", outcome.output());
        assertEquals("alpha\nBETA\ngamma\n", Files.readString(file));
        assertEquals(1, previewed.runs.get(), "the tool ran again after the approval");
        assertEquals(List.of("changed a.txt +1 \u22121"), output, "the one-line summary after the call");
    }

    @Test
    void aDeniedCallChangesNothingAndANewFileShowsItsHead() throws Exception {
        CallOutcome outcome = call("set_content", "{\"path\":\"src/new.txt\",\"content\":\"x\\ny\\n\"}",
                request -> Approval.deny("no"));
        assertEquals(Optional.of("--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"), asked.get(0).diff());
        assertEquals(CallOutcome.Status.DENIED, outcome.status());
        assertTrue(Files.notExists(root.resolve("src")), "the dry run made a folder");
    }

    @Test
    void aFileChangedWhileTheQuestionWaitsIsNotOverwritten() throws Exception {
        Path file = Files.writeString(root.resolve("a.txt"), "one\n");
        CallOutcome outcome = call("set_content", "{\"path\":\"a.txt\",\"content\":\"two\\n\"}", request -> {
            try {
                Files.writeString(file, "someone else's\n");
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return Approval.once();
        });
        assertEquals(CallOutcome.Status.ERROR, outcome.status());
        assertTrue(outcome.output().contains("a.txt") && outcome.output().contains("No file was changed"), outcome.output());
        assertEquals("someone else's\n", Files.readString(file));
    }

    @Test
    void aToolThatDoesNotDeclarePreviewOrWhoseDryRunFailsIsAskedWithoutADiffAndRunsAfterTheAnswer() throws Exception {
        Files.writeString(root.resolve("a.txt"), "one\n");
        CallOutcome plain = call("set_plain", "{\"path\":\"a.txt\",\"content\":\"two\\n\"}", request -> Approval.once());
        assertEquals(1, asked.size(), plain.output());
        assertEquals(Optional.empty(), asked.get(0).diff());
        assertEquals(1, undeclared.runs.get(), "an undeclared tool ran before the answer or not at all");
        assertEquals(CallOutcome.Status.OK, plain.status(), plain.output());
        assertEquals("two\n", Files.readString(root.resolve("a.txt")));

        CallOutcome failing = call("set_content", "{\"path\":\"a.txt\",\"content\":\"x\",\"fail\":true}",
                request -> Approval.once());
        assertEquals(Optional.empty(), asked.get(1).diff());
        assertEquals(CallOutcome.Status.ERROR, failing.status());
        assertEquals("it fails as asked", failing.output());
        assertEquals(2, previewed.runs.get(), "the dry run, then the call itself");
    }

    @Test
    void anAllowedCallIsMadeFromItsRecordTooAndItsDiffIsHeardOnce() throws Exception {
        session.close();
        session = StubSessions.open(root, StubSessions.environment(temp), framework, (dev.quiver.langchain4j.ModelProvider) null,
                new SessionOptions(root, Optional.empty(), true, false, false, Optional.empty(), Optional.empty(),
                        Optional.empty(), false, false));
        List<String> diffs = new CopyOnWriteArrayList<>();
        CallOutcome outcome = session.call("set_content", "{\"path\":\"b.txt\",\"content\":\"new\\n\"}", new TurnListener() {
            @Override
            public void callChanged(String tool, String diff) {
                diffs.add(tool + ": " + diff);
            }
        });
        assertEquals(CallOutcome.Status.OK, outcome.status(), outcome.output());
        assertEquals("new\n", Files.readString(root.resolve("b.txt")));
        assertEquals(List.of("set_content: --- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n"), diffs);
        assertEquals(1, previewed.runs.get(), "an allowed call ran twice");
    }

    @Test
    void aBinaryOrHugeContentIsDescribedBySizeNotDumped() throws Exception {
        Files.write(root.resolve("blob.bin"), new byte[] {0, 1, 2, 3});
        call("set_content", "{\"path\":\"blob.bin\",\"content\":\"text now\"}", request -> Approval.deny(""));
        assertEquals(Optional.of("--- a/blob.bin\n+++ b/blob.bin\nBinary file: 4 bytes -> 8 bytes\n"), asked.get(0).diff());
    }
}
