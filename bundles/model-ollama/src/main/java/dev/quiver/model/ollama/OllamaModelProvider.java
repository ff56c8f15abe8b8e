package dev.quiver.model.ollama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.ollama.OllamaStreamingChatModel;
import dev.quiver.langchain4j.ModelException;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.langchain4j.BaseUrls;
import dev.quiver.langchain4j.QuiverHttpClientBuilder;
import dev.quiver.langchain4j.RetryPolicy;
import java.io.IOException;
import java.net.URI;
import java.util.Optional;
import java.util.function.Function;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * A local Ollama server's {@code /api/chat}: tool calls, and streaming as newline-delimited JSON.
 * The base URL is the server root ({@code http://127.0.0.1:11434} by default); Quiver adds
 * {@code /api/chat}. Without {@code --base-url} or the config's {@code baseUrl}, {@code OLLAMA_HOST}
 * is read the way Ollama's own client reads it ({@code host:port} without a scheme means http, port
 * 11434 by default). Ollama needs no key.
 *
 * <p>Runs LangChain4j's Ollama module 1.18.1 (the newest served) on the 1.19.0 core of
 * {@code dev.quiver.langchain4j}. Requests go through Quiver's {@code RetryingHttpClient};
 * LangChain4j's own retries are off.
 */
@Component(property = ModelProvider.PROVIDER + "=ollama")
public class OllamaModelProvider implements ModelProvider {

    static final String DEFAULT_BASE_URL = "http://127.0.0.1:11434";
    static final String HOST_VARIABLE = "OLLAMA_HOST";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Function<String, String> environment;
    private final RetryPolicy retryPolicy;

    @Activate
    public OllamaModelProvider() {
        this(System::getenv, RetryPolicy.DEFAULT);
    }

    OllamaModelProvider(Function<String, String> environment, RetryPolicy retryPolicy) {
        this.environment = environment;
        this.retryPolicy = retryPolicy;
    }

    @Override
    public ChatModel chatModel(ModelSettings settings) {
        String root = root(settings);
        return OllamaChatModel.builder()
                .maxRetries(0)
                .httpClientBuilder(http(settings))
                .baseUrl(root)
                .modelName(settings.name())
                .build();
    }

    @Override
    public StreamingChatModel streamingChatModel(ModelSettings settings) {
        String root = root(settings);
        return OllamaStreamingChatModel.builder()
                .httpClientBuilder(http(settings))
                .baseUrl(root)
                .modelName(settings.name())
                .build();
    }

    private String root(ModelSettings settings) {
        Optional<String> given = settings.baseUrl().map(String::trim);
        String root = given
                .or(() -> Optional.ofNullable(environment.apply(HOST_VARIABLE)).map(String::trim)
                        .filter(s -> !s.isEmpty()).map(OllamaModelProvider::fromOllamaHost))
                .orElse(DEFAULT_BASE_URL);
        URI uri = BaseUrls.check(root, true, "the Ollama server's http or https root such as " + DEFAULT_BASE_URL);
        BaseUrls.refuseEndpoint(root, uri, "/api/chat", "/api/generate");
        while (root.endsWith("/")) {
            root = root.substring(0, root.length() - 1);
        }
        if (root.endsWith("/api")) {
            root = root.substring(0, root.length() - "/api".length());
        }
        return root;
    }

    /** {@code OLLAMA_HOST} as Ollama's client reads it: no scheme means http and port 11434. */
    static String fromOllamaHost(String host) {
        int scheme = host.indexOf("://");
        if (scheme >= 0) {
            return host;
        }
        String hostPort = host;
        int slash = hostPort.indexOf('/');
        String path = slash < 0 ? "" : hostPort.substring(slash);
        hostPort = slash < 0 ? hostPort : hostPort.substring(0, slash);
        boolean hasPort = hostPort.startsWith("[") ? hostPort.contains("]:") : hostPort.contains(":");
        if (hostPort.isEmpty() || hostPort.startsWith(":")) {
            hostPort = "127.0.0.1" + hostPort;
        }
        if (hostPort.startsWith("0.0.0.0")) {
            hostPort = "127.0.0.1" + hostPort.substring("0.0.0.0".length()); // a bind address, not one to call
        }
        return "http://" + hostPort + (hasPort ? "" : ":11434") + path;
    }

    private QuiverHttpClientBuilder http(ModelSettings settings) {
        return new QuiverHttpClientBuilder()
                .retryNotices(settings.retries())
                .service("Ollama")
                .model(settings.name())
                .notFoundHint("Check the model name, or fetch it with: ollama pull " + settings.name())
                .timeouts(QuiverHttpClientBuilder.DEFAULT_CONNECT_TIMEOUT, settings.timeout())
                .retryPolicy(retryPolicy)
                .streamEnd(OllamaModelProvider::isLastLine)
                .streamError(OllamaModelProvider::streamError);
    }

    /** Ollama's last streamed line says {@code "done": true}. */
    private static boolean isLastLine(ServerSentEvent line) {
        String data = line.data();
        if (data == null || !data.contains("\"done\"")) {
            return false;
        }
        try {
            return JSON.readTree(data).path("done").asBoolean(false);
        } catch (IOException e) {
            return false;
        }
    }

    /** A streamed line {@code {"error": ".."}}. */
    private static ModelException streamError(ServerSentEvent line) {
        String data = line.data();
        if (data == null || !data.contains("\"error\"")) {
            return null;
        }
        try {
            JsonNode error = JSON.readTree(data).path("error");
            if (!error.isTextual()) {
                return null;
            }
            return new ModelException(ModelException.Kind.SERVER, 0, "Ollama reported an error in the stream: "
                    + error.asText());
        } catch (IOException e) {
            return null;
        }
    }
}
