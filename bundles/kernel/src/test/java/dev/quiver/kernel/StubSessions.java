package dev.quiver.kernel;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Real {@link KernelSession}s for tests: a workspace, a private home and XDG folders, the framework's
 * registry, and the loopback OpenAI server as the model (LangChain4j's real client, without streaming).
 */
final class StubSessions {

    private StubSessions() {
    }

    /** A home under {@code temp} with the XDG config, data and state folders in it, as a session's environment. */
    static Map<String, String> environment(Path temp) throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        return Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_DATA_HOME", home.resolve(".local/share").toString(),
                "XDG_STATE_HOME", home.resolve(".local/state").toString());
    }

    /** A headless session on the workspace with the model {@code openai/test} served by {@code stub}. */
    static KernelSession open(Path root, Map<String, String> environment, Framework framework, OpenAiStub stub,
            boolean yolo) throws IOException {
        return open(new WorkspaceFactoryComponent().open(root), environment, framework, stub, yolo);
    }

    /** As {@link #open(Path, Map, Framework, OpenAiStub, boolean)}, on a workspace already opened. */
    static KernelSession open(dev.quiver.api.Workspace workspace, Map<String, String> environment, Framework framework,
            OpenAiStub stub, boolean yolo) throws IOException {
        return open(workspace, environment, framework, provider(stub), options(workspace.root(), yolo));
    }

    /** A headless session, as {@link #open(Path, Map, Framework, OpenAiStub, boolean)}, on a workspace the user has not trusted. */
    static KernelSession openUntrusted(Path root, Map<String, String> environment, Framework framework, OpenAiStub stub)
            throws IOException {
        dev.quiver.api.Workspace workspace = new WorkspaceFactoryComponent().open(root);
        Config config = Config.load(new Config.Files(List.of(), Optional.empty(), Config.userConfigFile(environment),
                root, (any, digest) -> false));
        return open(workspace, config, environment, framework,
                name -> name.equals("openai") ? Optional.of(provider(stub)) : Optional.empty(), options(root, false));
    }

    private static SessionOptions options(Path root, boolean yolo) {
        return new SessionOptions(root, Optional.empty(), yolo, false, false, Optional.of("openai/test"), Optional.empty(),
                Optional.empty());
    }

    /** The loopback server as the {@code openai} provider. */
    static ModelProvider provider(OpenAiStub stub) {
        return new ModelProvider() {
            @Override
            public ChatModel chatModel(ModelSettings settings) {
                return OpenAiChatModel.builder().httpClientBuilder(JdkHttpClient.builder()).baseUrl(stub.baseUrl())
                        .apiKey("test").modelName(settings.name()).maxRetries(0).build();
            }

            @Override
            public StreamingChatModel streamingChatModel(ModelSettings settings) {
                return null;
            }
        };
    }

    /** A session on the workspace with {@code provider} as the {@code openai} provider. */
    static KernelSession open(Path root, Map<String, String> environment, Framework framework, ModelProvider provider,
            SessionOptions options) throws IOException {
        return open(new WorkspaceFactoryComponent().open(root), environment, framework, provider, options);
    }

    private static KernelSession open(dev.quiver.api.Workspace workspace, Map<String, String> environment,
            Framework framework, ModelProvider provider, SessionOptions options) throws IOException {
        return open(workspace, Config.load(Optional.empty(), workspace.root(), environment), environment, framework,
                name -> name.equals("openai") ? Optional.of(provider) : Optional.empty(), options);
    }

    /** A session with its own config and the providers {@code providers} names. */
    static KernelSession open(dev.quiver.api.Workspace workspace, Config config, Map<String, String> environment,
            Framework framework, java.util.function.Function<String, Optional<ModelProvider>> providers,
            SessionOptions options) throws IOException {
        return new KernelSession(workspace, options, config, framework.registry, providers, List::of,
                SessionStore.fromEnvironment(environment), tool -> false, () -> { })
                .withWorkspaces(new WorkspaceFactoryComponent());
    }
}
