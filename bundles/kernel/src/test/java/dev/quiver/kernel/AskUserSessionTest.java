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
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ask} tool's path through real sessions against the scripted OpenAI server: offered on the wire
 * only where someone can answer, its question reaching the front end's listener, and never a subagent's.
 */
class AskUserSessionTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    /** Asks as the agent set's {@code ask} does: one question, its options as labels. */
    private static final class Asking implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("ask", "Ask the user.", "{\"type\":\"object\",\"properties\":{"
                    + "\"question\":{\"type\":\"string\"},\"options\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
                    + "\"required\":[\"question\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            List<UserQuestion.Option> options = new ArrayList<>();
            for (String label : arguments.strings("options")) {
                options.add(new UserQuestion.Option(label, ""));
            }
            return ToolResult.of(context.askUser(new UserQuestion(arguments.string("question"), options, false))
                    .map(answer -> "chose " + answer).orElse("dismissed"));
        }
    }

    /** Starts a subagent, as {@code task} does. */
    private static final class Delegating implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("task", "Subagent.", "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},"
                    + "\"required\":[\"prompt\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            return ToolResult.of(context.runSubagent("helper", ToolContext.SubagentKind.WORKER, arguments.string("prompt")));
        }
    }

    /** A front end that answers every question with its first option and keeps what it was asked. */
    private static final class Answering implements TurnListener {
        final List<UserQuestion> asked = new CopyOnWriteArrayList<>();

        @Override
        public Optional<List<String>> ask(UserQuestion question) {
            asked.add(question);
            return Optional.of(List.of(question.options().get(0).label()));
        }
    }

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new Asking(), "ask", "state");
        framework.register(new Delegating(), "task", "state");
        framework.register(new TestTools.Echo("reader"), "reader", "read");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    private KernelSession open(OpenAiStub stub, boolean interactive) throws Exception {
        return StubSessions.open(root, environment, framework, StubSessions.provider(stub), new SessionOptions(root,
                Optional.empty(), false, interactive, false, Optional.of("openai/test"), Optional.empty(), Optional.empty()));
    }

    private static List<String> toolNames(JsonNode request) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.path("function").path("name").asText()));
        return names;
    }

    private static String systemPrompt(JsonNode request) {
        return request.path("messages").get(0).path("content").asText();
    }

    private static String lastToolResult(JsonNode request) {
        String found = null;
        for (JsonNode message : request.path("messages")) {
            if (message.path("role").asText().equals("tool")) {
                found = message.path("content").asText();
            }
        }
        return found;
    }

    @Test
    void anInteractiveSessionOffersAskAndTheQuestionReachesTheFrontEndWhoseAnswerTheModelReads() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("ask", "{\"question\":\"Which db?\",\"options\":[\"pg-17\",\"lite\"]}")),
                OpenAiStub.text("using pg-17"))) {
            Answering front = new Answering();
            assertEquals("using pg-17", open(stub, true).send("set up the db", front).answer());
            assertTrue(toolNames(stub.requests().get(0)).contains("ask"), toolNames(stub.requests().get(0)).toString());
            assertEquals("Which db?", front.asked.get(0).question());
            assertEquals("chose [pg-17]", lastToolResult(stub.requests().get(1)));
        }
    }

    @Test
    void aHeadlessSessionWithholdsAskFromTheWireAndItsPromptSaysToDecideAndStateTheAssumption() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("decided"))) {
            KernelSession session = open(stub, false);
            assertEquals("decided", session.send("set up the db", new Answering()).answer());
            List<String> offered = toolNames(stub.requests().get(0));
            assertFalse(offered.contains("ask"), offered.toString());
            assertTrue(offered.contains("reader"), offered.toString());
            String prompt = systemPrompt(stub.requests().get(0));
            assertTrue(prompt.contains("Do not ask questions; decide, and state your assumption."), prompt);
            assertFalse(prompt.matches("(?s).*Tools in this step:[^\\n]*\\bask\\b.*"), prompt);
            // nor can it be called by name: quiver call and batch lines see the same list
            assertTrue(session.tools().stream().noneMatch(tool -> tool.name().equals("ask")));
            assertTrue(session.call("ask", "{\"question\":\"q\"}", new Answering()).output().contains("No tool named"),
                    session.call("ask", "{\"question\":\"q\"}", new Answering()).output());
        }
    }

    @Test
    void aSubagentIsNotOfferedAskAndTheFrontEndIsNeverAskedForIt() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("task", "{\"prompt\":\"look\"}")),
                OpenAiStub.text("child report"),
                OpenAiStub.text("done"))) {
            Answering front = new Answering();
            assertEquals("done", open(stub, true).send("go", front).answer());
            List<String> child = toolNames(stub.requests().get(1));
            assertFalse(child.contains("ask"), child.toString());
            assertTrue(front.asked.isEmpty());
        }
    }

    @Test
    void aFrontEndThatCannotAskGivesTheModelAClearRefusal() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("ask", "{\"question\":\"Which?\",\"options\":[\"a\"]}")),
                OpenAiStub.text("ok"))) {
            open(stub, true).send("go", new TurnListener() { });
            String result = lastToolResult(stub.requests().get(1));
            assertTrue(result.contains("cannot ask") && result.contains("state the assumption"), result);
        }
    }
}
