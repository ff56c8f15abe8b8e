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
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tool's question to the session's model: sent without tools, redacted, and counted in the turn and the session. */
class ModelAskTest {

    private static final String SECRET = "zq8-unique-secret-value-93";
    private static final String NEW_SECRET = "zq8-new-secret-value-22";

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    /** Asks the model what its {@code text} argument says, and returns the answer. */
    private static final class Summarise implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("summarise", "Summarise text with the model.",
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            return ToolResult.of("summary: " + context.askModel("Summarise in one line.", arguments.string("text")));
        }
    }

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        Files.writeString(root.resolve(".env"), "TOKEN=" + SECRET + "\n");
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new Summarise(), "summarise", "read");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    @Test
    void aToolsQuestionGoesToTheSessionsModelWithoutToolsRedactedAndCountsInTheTurn() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("summarise", "{\"text\":\"the key is " + SECRET + " and more\"}")),
                OpenAiStub.text("a one-line summary"), OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            List<Usage> usages = new CopyOnWriteArrayList<>();
            TurnResult result = session.send("summarise it", new TurnListener() {
                @Override
                public void usage(Usage usage) {
                    usages.add(usage);
                }
            });
            assertEquals("done", result.answer());
            assertEquals(1, result.calls().size());
            assertEquals(CallOutcome.Status.OK, result.calls().get(0).status(), result.calls().get(0).output());
            assertEquals("summary: a one-line summary", result.calls().get(0).output());

            List<JsonNode> requests = stub.requests();
            assertEquals(3, requests.size());
            JsonNode question = requests.get(1);
            assertFalse(question.has("tools"), "the question was offered tools: " + question);
            JsonNode messages = question.path("messages");
            assertEquals(2, messages.size(), messages.toString());
            assertEquals("system", messages.get(0).path("role").asText());
            assertEquals("Summarise in one line.", messages.get(0).path("content").asText());
            assertEquals("user", messages.get(1).path("role").asText());
            String asked = messages.get(1).path("content").asText();
            assertTrue(asked.startsWith("the key is [redacted"), asked);
            assertFalse(question.toString().contains(SECRET), "a secret value reached the model: " + question);

            assertEquals(3, usages.size(), "one usage per model request, the question's too");
            assertEquals(30, result.usage().inputTokens(), "the turn's total leaves out the question");
            assertEquals(15, result.usage().outputTokens());
        }
    }

    @Test
    void aDirectCallAsksTheConfiguredModelAndWithoutOneTheToolSaysWhatToPass() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("direct answer"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            CallOutcome outcome = session.call("summarise", "{\"text\":\"x\"}", new TurnListener() { });
            assertEquals("summary: direct answer", outcome.output());
            assertEquals(1, stub.requests().size());
        }
        KernelSession modelless = StubSessions.open(root, environment, framework, (dev.quiver.langchain4j.ModelProvider) null,
                new SessionOptions(root, Optional.empty(), false, false, false, Optional.empty(), Optional.empty(),
                        Optional.empty()));
        CallOutcome outcome = modelless.call("summarise", "{\"text\":\"x\"}", new TurnListener() { });
        assertEquals(CallOutcome.Status.ERROR, outcome.status());
        assertTrue(outcome.output().contains("No model is configured for this session")
                && outcome.output().contains("--model PROVIDER/NAME"), outcome.output());
    }

    @Test
    void aModelThatFailsGivesTheToolAnErrorNamingTheFailureAndTheTurnGoesOn() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("summarise", "{\"text\":\"x\"}")),
                OpenAiStub.failure(400, "context length exceeded"), OpenAiStub.text("went on"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            TurnResult result = session.send("go", new TurnListener() { });
            assertEquals("went on", result.answer());
            CallOutcome outcome = result.calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, outcome.status());
            assertTrue(outcome.output().contains("context length exceeded"), outcome.output());
        }
    }

    /**
     * The question is redacted with the secret values known when it is asked: a value the user put into
     * .env since the last call (between turns, in an editor) is replaced as in a tool's result.
     */
    @Test
    void aSecretAddedSinceTheLastCallIsRedactedInTheQuestion() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("first"), OpenAiStub.text("second"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            CallOutcome first = session.call("summarise", "{\"text\":\"x " + SECRET + "\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, first.status(), first.output());
            assertFalse(stub.requests().get(0).toString().contains(SECRET), "the first look redacts");

            Files.writeString(root.resolve(".env"), "TOKEN=" + SECRET + "\nNEW_TOKEN=" + NEW_SECRET + "\n");
            CallOutcome second = session.call("summarise", "{\"text\":\"staged: key = " + NEW_SECRET + "\"}",
                    new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, second.status(), second.output());
            assertFalse(stub.requests().get(1).toString().contains(NEW_SECRET),
                    "a known secret value reached the model in the question: " + stub.requests().get(1));
        }
    }

    /**
     * A question given up on (ctrl-c) cannot be taken back: the provider answers and bills it, so its
     * usage is counted when the answer comes.
     */
    @Test
    void aQuestionGivenUpOnIsStillCountedWhenTheProviderAnswersIt() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("summarise", "{\"text\":\"x\"}")),
                OpenAiStub.delayed(Duration.ofSeconds(2), OpenAiStub.text("a late answer")),
                OpenAiStub.text("went on"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            List<Usage> usages = new CopyOnWriteArrayList<>();
            CompletableFuture<TurnResult> turn = CompletableFuture.supplyAsync(() -> session.send("go", new TurnListener() {
                @Override
                public void usage(Usage usage) {
                    usages.add(usage);
                }
            }));
            // wait until the question is on its way, then press ctrl-c
            long deadline = System.currentTimeMillis() + 5_000;
            while (stub.requests().size() < 2 && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(200);
            assertTrue(session.interruptCalls(), "no call was running");
            TurnResult result = turn.get(20, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.ERROR, result.calls().get(0).status(), result.calls().get(0).output());
            Thread.sleep(3_000); // the abandoned request is still answered
            assertEquals(3, stub.requests().size());
            assertEquals(3, usages.size(), "every request the provider answered (and billed) is counted; counted: "
                    + usages.size() + ", turn total " + result.usage());
        }
    }
}
