package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on ToolContext.askModel (7866e96). {@code finding...} tests assert the promised behaviour and
 * FAIL on 7866e96; {@code holds...} tests pass.
 */
class ModelAskAttackTest {

    private static final String OLD_SECRET = "zq8-old-secret-value-11";
    private static final String NEW_SECRET = "zq8-new-secret-value-22";

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    /** Asks the model what its {@code text} argument says (as ModelAskTest's Summarise). */
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
        Files.writeString(root.resolve(".env"), "TOKEN=" + OLD_SECRET + "\n");
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new Summarise(), "summarise", "read");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    /**
     * The question is redacted with the values known at the last call's end: redact() refreshes only
     * before the first look. A value the user put into .env since (between turns, in an editor) reaches
     * the model in the question; the same text in the tool's result is redacted (outcome() refreshes).
     */
    @Test
    void findingASecretAddedSinceTheLastCallIsRedactedInTheQuestion() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("first"), OpenAiStub.text("second"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, false);
            CallOutcome first = session.call("summarise", "{\"text\":\"x " + OLD_SECRET + "\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, first.status(), first.output());
            assertFalse(stub.requests().get(0).toString().contains(OLD_SECRET), "the first look redacts");

            Files.writeString(root.resolve(".env"), "TOKEN=" + OLD_SECRET + "\nNEW_TOKEN=" + NEW_SECRET + "\n");
            CallOutcome second = session.call("summarise", "{\"text\":\"staged: key = " + NEW_SECRET + "\"}",
                    new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, second.status(), second.output());
            assertFalse(stub.requests().get(1).toString().contains(NEW_SECRET),
                    "a known secret value reached the model in the question: " + stub.requests().get(1));
        }
    }

    /**
     * A cancelled question is abandoned, not stopped: CompletableFuture.cancel does not interrupt the
     * request, which the provider answers and bills, and its usage is never counted anywhere.
     */
    @Test
    void findingAQuestionInterruptedWhileTheModelAnswersIsCountedOrStopped() throws Exception {
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
