package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.kernel.conversation.ArgumentLimit;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.model.openai.OpenAiModelProvider;
import dev.quiver.testing.OpenAiStub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole sessions with the real OpenAI provider bundle against the loopback server: the configured
 * {@code modelTimeout} reaches the HTTP client as the longest silence, and a session file holding a
 * huge call resumes, in a process whose heap could never hold the tokenizer's work on it.
 */
class ModelLimitsSessionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

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

    private static SessionOptions options(Path root, OpenAiStub stub, Optional<String> resume) {
        return new SessionOptions(root, Optional.empty(), false, false, false, Optional.of("openai/test"),
                Optional.of(stub.baseUrl()), resume);
    }

    @Test
    void aConfiguredModelTimeoutOfOneSecondLetsAFourSecondStreamFinish() throws Exception {
        Path config = Files.createDirectories(Path.of(environment.get("XDG_CONFIG_HOME"), "quiver"));
        Files.writeString(config.resolve("config.json"), "{\"modelTimeout\": 1}");
        String answer = "A slow model sends this answer in small pieces, a quarter second apart, for seconds.";
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.paced(OpenAiStub.text(answer), Duration.ofMillis(250)))) {
            KernelSession session = StubSessions.open(root, environment, framework, new OpenAiModelProvider(),
                    options(root, stub, Optional.empty()));
            TurnResult result = session.send("go", new TurnListener() { });
            assertEquals(TurnResult.Status.DONE, result.status());
            assertEquals(answer, result.answer());
            assertTrue(stub.requests().get(0).path("stream").asBoolean(), "the provider streamed");
        }
    }

    @Test
    void aRetryIsToldToTheTurnsListenerWhileTheAnswerIsLate() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(429, "Slow down", Map.of("retry-after-ms", "200")),
                OpenAiStub.text("made it"))) {
            KernelSession session = StubSessions.open(root, environment, framework, new OpenAiModelProvider(),
                    options(root, stub, Optional.empty()));
            java.util.List<String> notices = new java.util.concurrent.CopyOnWriteArrayList<>();
            TurnResult result = session.send("go", new TurnListener() {
                @Override
                public void notice(String text) {
                    notices.add(text);
                }
            });
            assertEquals("made it", result.answer());
            assertTrue(notices.stream().anyMatch(n -> n.startsWith("The OpenAI-compatible server answered HTTP 429; "
                    + "retrying in 0.2 s (attempt 2 of 5)")), notices.toString());
        }
    }

    @Test
    void aSessionHoldingTenMegabytesOfOneCallsArgumentsResumesInA128MegabyteHeap() throws Exception {
        // one run of letters: what made the tokenizer take 2.6 GB and ten seconds
        String huge = "{\"path\":\"big.txt\",\"content\":\"" + "a".repeat(10 * 1024 * 1024) + "\"}";
        SessionStore.Recorder recorder = SessionStore.fromEnvironment(environment).create(root, "openai/test");
        recorder.user("write the big file");
        // the rest as Quiver wrote it before calls were bounded: the whole argument in the session file
        ObjectNode assistant = JSON.createObjectNode().put("type", "assistant").put("time", "2026-01-01T00:00:00Z");
        assistant.putNull("text");
        assistant.putArray("calls").addObject().put("id", "call_1").put("name", "write_file").put("arguments", huge);
        ObjectNode result = JSON.createObjectNode().put("type", "tool").put("time", "2026-01-01T00:00:01Z")
                .put("id", "call_1").put("tool", "write_file").put("status", "error").put("decision", "deny")
                .put("by", "default").put("output", "Error: the call failed.");
        Files.writeString(recorder.file(), JSON.writeValueAsString(assistant) + "\n" + JSON.writeValueAsString(result)
                + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        assertTrue(Files.size(recorder.file()) > 10_000_000);

        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("Carrying on in smaller parts."))) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "-Xmx128m", "-XX:+ExitOnOutOfMemoryError", "-cp",
                    System.getProperty("java.class.path"), Resume.class.getName(), temp.toString(), stub.baseUrl())
                    .redirectErrorStream(true).start();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the resumed session never ended");
            assertEquals(0, child.exitValue(), output);
            assertTrue(output.contains("answer: Carrying on in smaller parts."), output);

            JsonNode messages = stub.requests().get(0).get("messages");
            assertTrue(messages.toString().length() < 100_000, "the resumed request is small");
            assertEquals(ArgumentLimit.standIn(huge.length()),
                    messages.get(2).get("tool_calls").get(0).get("function").get("arguments").asText());
            assertEquals("next", messages.get(messages.size() - 1).get("content").asText());
        }
    }

    /** The resumed session, in its own small-heap process: {@code TEMP BASE_URL}. */
    public static final class Resume {
        public static void main(String[] args) throws Exception {
            Path temp = Path.of(args[0]);
            Path root = temp.resolve("workspace").toRealPath();
            try (Framework framework = new Framework()) {
                SessionOptions options = new SessionOptions(root, Optional.empty(), false, false, false,
                        Optional.of("openai/test"), Optional.of(args[1]), Optional.of(SessionOptions.LATEST));
                KernelSession session = StubSessions.open(root, StubSessions.environment(temp), framework,
                        new OpenAiModelProvider(), options);
                System.out.println("answer: " + session.send("next", new TurnListener() { }).answer());
            }
            System.exit(0);
        }
    }
}
