package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.model.openai.OpenAiModelProvider;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /model}: checked before anything changes, by the same rules as the start, and the start's server kept. */
class ModelSwitchTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;
    /** openai and a second provider name, "local", both served by the OpenAI provider bundle. */
    private final ModelProvider openAi = new OpenAiModelProvider();

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

    private KernelSession session(OpenAiStub stub, Config config) throws Exception {
        return session(stub, config, openAi);
    }

    /** A session whose "local" provider is {@code local}. */
    private KernelSession session(OpenAiStub stub, Config config, ModelProvider local) throws Exception {
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, false, false,
                Optional.of("openai/test"), Optional.of(stub.baseUrl()), Optional.empty());
        return StubSessions.open(new WorkspaceFactoryComponent().open(root), config, environment, framework,
                name -> name.equals("openai") ? Optional.of(openAi) : name.equals("local") ? Optional.of(local)
                        : Optional.empty(), options);
    }

    /** The OpenAI provider always at {@code url}: a local server that needs no key. */
    private ModelProvider at(String url) {
        return new ModelProvider() {
            private ModelSettings there(ModelSettings settings) {
                return new ModelSettings(settings.name(), Optional.of(url), settings.timeout(), settings.allowedBaseUrls());
            }

            @Override
            public dev.langchain4j.model.chat.ChatModel chatModel(ModelSettings settings) {
                return openAi.chatModel(there(settings));
            }

            @Override
            public dev.langchain4j.model.chat.StreamingChatModel streamingChatModel(ModelSettings settings) {
                return openAi.streamingChatModel(there(settings));
            }
        };
    }

    @Test
    void returningToTheStartsProviderTalksToTheStartsServerAgain() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("one"), OpenAiStub.text("two"))) {
            KernelSession session = session(stub, Config.load(Optional.empty(), root, environment), at(stub.baseUrl()));
            assertEquals("one", session.send("first", new TurnListener() { }).answer());
            session.switchModel("local/llama3");
            session.switchModel("openai/second");
            TurnResult again = session.send("again", new TurnListener() { });
            assertEquals(TurnResult.Status.DONE, again.status());
            assertEquals("two", again.answer());
            assertEquals("second", stub.requests().get(1).path("model").asText(), "the new model, at the start's URL");
        }
    }

    @Test
    void aModelWithoutItsProviderIsRefusedAndTheModelInUseStays() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("still here"))) {
            KernelSession session = session(stub, Config.load(Optional.empty(), root, environment));
            HostException refused = assertThrows(HostException.class, () -> session.switchModel("gpt-4.1"));
            assertEquals("Model must be written PROVIDER/NAME, for example openai/gpt-4.1; got 'gpt-4.1'.",
                    refused.getMessage());
            assertThrows(HostException.class, () -> session.switchModel("nowhere/x"));
            assertEquals(Optional.of("openai/test"), session.model());
            assertEquals("still here", session.send("hi", new TurnListener() { }).answer());
            assertEquals("test", stub.requests().get(0).path("model").asText());
        }
    }

    @Test
    void theManagedPolicysAllowedModelsHoldForASwitchAsForTheStart() throws Exception {
        Path managed = Files.writeString(temp.resolve("managed.json"), "{\"allowedModels\": [\"openai/test\"]}");
        Config config = Config.load(new Config.Files(List.of(managed), Optional.empty(), Optional.empty(), root,
                (folder, digest) -> true));
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("allowed"))) {
            KernelSession session = session(stub, config);
            HostException refused = assertThrows(HostException.class, () -> session.switchModel("openai/forbidden"));
            assertTrue(refused.getMessage().contains("does not allow the model openai/forbidden"), refused.getMessage());
            assertEquals(Optional.of("openai/test"), session.model());
        }
    }

    @Test
    void aSwitchToAServerThePolicyRefusesIsRefusedBeforeTheModelChanges() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("allowed"))) {
            Path managed = Files.writeString(temp.resolve("managed.json"),
                    "{\"allowedBaseUrls\": [\"" + stub.baseUrl() + "\"]}");
            Config config = Config.load(new Config.Files(List.of(managed), Optional.empty(), Optional.empty(), root,
                    (folder, digest) -> true));
            KernelSession session = session(stub, config);
            // "local" has no start URL: its default server is not the allowed one
            HostException refused = assertThrows(HostException.class, () -> session.switchModel("local/llama3"));
            assertTrue(refused.getMessage().contains("does not allow the model server"), refused.getMessage());
            assertEquals(Optional.of("openai/test"), session.model());
        }
    }
}
