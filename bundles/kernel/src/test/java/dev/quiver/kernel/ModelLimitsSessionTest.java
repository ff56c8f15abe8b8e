package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.model.openai.OpenAiModelProvider;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole sessions with the real OpenAI provider bundle against the loopback server: the configured
 * {@code modelTimeout} reaches the HTTP client as the longest silence.
 */
class ModelLimitsSessionTest {

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
}
