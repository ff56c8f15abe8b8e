package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.UserQuestion;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.agent.SpawnSubagentTool;
import dev.quiver.tools.agent.TaskTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calls of one model answer in real sessions against the scripted OpenAI server: reads (and
 * subagents that only read) run together, a write runs alone, results go back in the order asked for,
 * and the front end hears one call at a time, approvals included. Overlap is proved by tools that wait
 * for each other, each wait bounded so a build that runs them one by one fails instead of hanging.
 */
class ConcurrentCallsTest {

    /** Longer than any healthy wait here: only a build that never lets the calls meet waits this long. */
    private static final long MEETING_SECONDS = 30;

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    /** What a {@link Scripted} call does with its {@code id}. */
    interface Body {
        String run(String id) throws Exception;
    }

    /** A tool whose call runs the test's {@link Body} with the call's {@code id}. */
    private static final class Scripted implements Tool {
        private final String name;
        private final Body body;

        Scripted(String name, Body body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "A test tool.",
                    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.name(arguments.string("id")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            try {
                return ToolResult.of(body.run(arguments.string("id")));
            } catch (ToolException e) {
                throw e;
            } catch (Exception e) {
                throw new ToolException(e.toString());
            }
        }
    }

    /** Every call's start and end and every approval, as the front end hears them. */
    private static class Heard implements TurnListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void callStarted(String callId, String tool, String arguments) {
            events.add("start " + callId);
        }

        @Override
        public void callEnded(CallOutcome outcome) {
            events.add("end " + outcome.output());
        }
    }

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    private KernelSession open(OpenAiStub stub, boolean interactive) throws Exception {
        return StubSessions.open(root, environment, framework, StubSessions.provider(stub), new SessionOptions(root,
                Optional.empty(), false, interactive, false, Optional.of("openai/test"), Optional.empty(),
                Optional.empty()));
    }

    /** A read tool whose calls each wait until {@code calls} of them have started. */
    private void meeting(String name, int calls) {
        CountDownLatch started = new CountDownLatch(calls);
        framework.register(new Scripted(name, id -> {
            started.countDown();
            if (!started.await(MEETING_SECONDS, TimeUnit.SECONDS)) {
                throw new ToolException("no other call started while " + id + " ran");
            }
            return "met " + id;
        }), name, "read");
    }

    private static String id(String id) {
        return "{\"id\":\"" + id + "\"}";
    }

    /** Each tool result of a request: its call id and content, in the order the request carries them. */
    private static List<String> toolResults(JsonNode request) {
        List<String> results = new ArrayList<>();
        for (JsonNode message : request.path("messages")) {
            if (message.path("role").asText().equals("tool")) {
                results.add(message.path("tool_call_id").asText() + " " + message.path("content").asText());
            }
        }
        return results;
    }

    @Test
    void twoReadsOfOneStepRunAtTheSameTime() throws Exception {
        meeting("meet", 2);
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("meet", id("a")), OpenAiStub.call("meet", id("b"))),
                OpenAiStub.text("done"))) {
            TurnResult result = open(stub, false).send("go", new TurnListener() { });
            assertEquals(List.of("met a", "met b"), result.calls().stream().map(CallOutcome::output).toList());
        }
    }

    @Test
    void resultsGoBackInTheOrderAskedForAndTheFrontEndHearsOneCallAtATimeThoughTheLaterEndedFirst() throws Exception {
        CountDownLatch fastEnded = new CountDownLatch(1);
        framework.register(new Scripted("slow", id -> {
            if (!fastEnded.await(MEETING_SECONDS, TimeUnit.SECONDS)) {
                throw new ToolException("fast never ran while slow waited");
            }
            return "slow " + id;
        }), "slow", "read");
        framework.register(new Scripted("fast", id -> {
            fastEnded.countDown();
            return "fast " + id;
        }), "fast", "read");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("slow", id("1")), OpenAiStub.call("fast", id("2"))),
                OpenAiStub.text("done"))) {
            Heard heard = new Heard();
            TurnResult result = open(stub, false).send("go", heard);
            assertEquals(List.of("slow 1", "fast 2"), result.calls().stream().map(CallOutcome::output).toList());
            List<String> ids = stub.callIds();
            assertEquals(List.of(ids.get(0) + " slow 1", ids.get(1) + " fast 2"), toolResults(stub.requests().get(1)),
                    "each result is paired with its call and sent in the order the model asked");
            assertEquals(List.of("start " + ids.get(0), "end slow 1", "start " + ids.get(1), "end fast 2"),
                    heard.events, "the front end hears each call from its start to its end, in request order");
        }
    }

    @Test
    void aWriteBetweenReadsRunsAloneAfterTheReadBeforeItAndBeforeTheReadAfterIt() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        AtomicBoolean firstEnded = new AtomicBoolean();
        AtomicBoolean writeEnded = new AtomicBoolean();
        framework.register(new Scripted("look", id -> {
            if (id.equals("first")) {
                // the write starting while this read runs is the bug: a broken build shows it within this wait
                boolean overlapped = writing.await(300, TimeUnit.MILLISECONDS);
                firstEnded.set(true);
                return overlapped ? "first overlapped the write" : "first alone";
            }
            return writeEnded.get() ? "second after the write" : "second overlapped the write";
        }), "look", "read");
        framework.register(new Scripted("put", id -> {
            writing.countDown();
            boolean after = firstEnded.get();
            writeEnded.set(true);
            return after ? "write after the first" : "write overlapped the first";
        }), "put", "write");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("look", id("first")), OpenAiStub.call("put", id("w")),
                        OpenAiStub.call("look", id("second"))),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            TurnResult result = session.send("go", new TurnListener() { });
            assertEquals(List.of("first alone", "write after the first", "second after the write"),
                    result.calls().stream().map(CallOutcome::output).toList());
        }
    }

    @Test
    void approvalsOfCallsThatRunTogetherAreAskedOneAtATimeEachWithinItsCall() throws Exception {
        Path config = Files.createDirectories(Path.of(environment.get("XDG_CONFIG_HOME")).resolve("quiver"));
        Files.writeString(config.resolve("config.json"), "{\"permission\": {\"peek\": {\"*\": \"ask\"}}}\n");
        framework.register(new Scripted("peek", id -> "peeked " + id), "peek", "read");
        CountDownLatch bothAsked = new CountDownLatch(2);
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("peek", id("a")), OpenAiStub.call("peek", id("b"))),
                OpenAiStub.text("done"))) {
            Heard heard = new Heard() {
                @Override
                public Approval approve(ApprovalRequest request) {
                    events.add("ask " + request.subject());
                    bothAsked.countDown();
                    try {
                        // a second question while this one is open is the bug: a broken build shows it within this wait
                        if (request.subject().equals("a") && bothAsked.await(300, TimeUnit.MILLISECONDS)) {
                            events.add("asked two at once");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Approval.once();
                }
            };
            TurnResult result = open(stub, true).send("go", heard);
            assertEquals(List.of("peeked a", "peeked b"), result.calls().stream().map(CallOutcome::output).toList());
            List<String> ids = stub.callIds();
            assertEquals(List.of("start " + ids.get(0), "ask a", "end peeked a", "start " + ids.get(1), "ask b",
                    "end peeked b"), heard.events);
        }
    }

    @Test
    void twoTaskCallsOfOneStepRunTheirChildrenAtTheSameTimeAndTheirUsageAddsUp() throws Exception {
        framework.register(new TaskTool(), "task", "state");
        meeting("meet", 2);
        String explore = "{\"description\":\"look %s\",\"prompt\":\"Look at %s.\"}";
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", explore.formatted("a", "a")),
                        OpenAiStub.call("task", explore.formatted("b", "b"))),
                // each child's first request gets one of these, whichever asks first: both meet
                OpenAiStub.calls(OpenAiStub.call("meet", id("x"))),
                OpenAiStub.calls(OpenAiStub.call("meet", id("y"))),
                OpenAiStub.text("child report"),
                OpenAiStub.text("child report"),
                OpenAiStub.text("done"))) {
            TurnResult result = open(stub, false).send("go", new TurnListener() { });
            assertEquals("done", result.answer());
            List<String> reports = result.calls().stream().map(CallOutcome::output).toList();
            assertEquals(2, reports.size());
            assertTrue(reports.get(0).startsWith("Subagent 'look a' (explore) finished in 2 steps with 1 call."),
                    reports.get(0));
            assertTrue(reports.get(1).startsWith("Subagent 'look b' (explore) finished in 2 steps with 1 call."),
                    reports.get(1));
            assertEquals(6, stub.requests().size());
            assertEquals(60, result.usage().inputTokens(), "each of the 6 requests counts once");
            assertEquals(30, result.usage().outputTokens());
        }
    }

    @Test
    void aWorkerTaskIsAWriteAndRunsAlone() throws Exception {
        assertFalse(StepCalls.overlaps(List.of(), request("task", "{}")), "a tool not offered runs alone");
        framework.register(new TaskTool(), "task", "state");
        List<RegisteredTool> offered = framework.registry.snapshot();
        assertTrue(StepCalls.overlaps(offered, request("task", "{\"description\":\"d\",\"prompt\":\"p\"}")));
        assertTrue(StepCalls.overlaps(offered, request("task", "{\"kind\":\"review\"}")));
        assertFalse(StepCalls.overlaps(offered, request("task", "{\"kind\":\" Worker \"}")));
        assertFalse(StepCalls.overlaps(offered, request("task", "not json")));
    }

    @Test
    void aPluginToolThatTookAnAgentToolsNameAndDeclaresAWriteRunsAlone() throws Exception {
        framework.register(new SpawnSubagentTool(), "spawn_subagent", "state");
        assertTrue(StepCalls.overlaps(framework.registry.snapshot(), request("spawn_subagent", "{}")),
                "the built-in worker writes only in its own checkout");
        // a plugin's tools under the agent tools' names, ranked above the built-ins, that say they write
        String ranked = org.osgi.framework.Constants.SERVICE_RANKING;
        framework.register(new Scripted("spawn_subagent", id -> id), "spawn_subagent", "write", ranked, 100);
        framework.register(new Scripted("task", id -> id), "task", "execute", ranked, 100);
        List<RegisteredTool> offered = framework.registry.snapshot();
        assertFalse(StepCalls.overlaps(offered, request("spawn_subagent", "{}")));
        assertFalse(StepCalls.overlaps(offered, request("task", "{\"kind\":\"explore\"}")));
    }

    /** A read tool whose call asks the user which answer to give, through the front end. */
    private static final class Quiz implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("quiz", "A test tool.",
                    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.name(arguments.string("id")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            String id = arguments.string("id");
            return ToolResult.of(id + ": " + context.askUser(new UserQuestion("which " + id + "?", List.of(), false))
                    .orElse(List.of("dismissed")));
        }
    }

    @Test
    void aToolsQuestionInCallsThatRunTogetherReachesTheUserWhenItsCallsTurnComes() throws Exception {
        framework.register(new Quiz(), "quiz", "read");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("quiz", id("a")), OpenAiStub.call("quiz", id("b"))),
                OpenAiStub.text("done"))) {
            Heard heard = new Heard() {
                @Override
                public Optional<List<String>> ask(UserQuestion question) {
                    events.add("ask " + question.question());
                    return Optional.of(List.of("yes"));
                }
            };
            TurnResult result = open(stub, true).send("go", heard);
            assertEquals(List.of("a: [yes]", "b: [yes]"), result.calls().stream().map(CallOutcome::output).toList());
            List<String> ids = stub.callIds();
            assertEquals(List.of("start " + ids.get(0), "ask which a?", "end a: [yes]", "start " + ids.get(1),
                    "ask which b?", "end b: [yes]"), heard.events);
        }
    }

    @Test
    void twoCallsOfOneAnswerUnderOneIdEachGetAnIdOfTheirOwnSoEachResultIsPairedWithItsCall() throws Exception {
        framework.register(new Scripted("echo", id -> "echo " + id), "echo", "read");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("echo", id("a"), "dup"), OpenAiStub.call("echo", id("b"), "dup")),
                OpenAiStub.text("done"))) {
            Heard heard = new Heard();
            open(stub, false).send("go", heard);
            JsonNode second = stub.requests().get(1);
            List<String> sent = new ArrayList<>();
            for (JsonNode message : second.path("messages")) {
                message.path("tool_calls").forEach(call -> sent.add(call.path("id").asText()));
            }
            assertEquals(2, sent.size(), second.toString());
            assertEquals("dup", sent.get(0), "the first call keeps the model's id");
            assertFalse(sent.get(1).equals("dup"), "the second call kept the repeated id");
            assertEquals(List.of(sent.get(0) + " echo a", sent.get(1) + " echo b"), toolResults(second));
            assertEquals(List.of("start dup", "end echo a", "start " + sent.get(1), "end echo b"), heard.events);
        }
    }

    private static dev.langchain4j.agent.tool.ToolExecutionRequest request(String name, String arguments) {
        return dev.langchain4j.agent.tool.ToolExecutionRequest.builder().id("call_1").name(name).arguments(arguments)
                .build();
    }
}
