package dev.quiver.model.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
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
 * Chat completions for api.openai.com and OpenAI-compatible servers (vLLM, llama.cpp, LM Studio,
 * OpenRouter). The base URL includes the version path, as in OpenAI's own SDKs:
 * {@code https://api.openai.com/v1}, {@code http://127.0.0.1:8000/v1}. Requests go through
 * Quiver's {@code RetryingHttpClient}; LangChain4j's own retries are off. Requests that offer tools
 * ask for parallel tool calls.
 */
@Component(property = ModelProvider.PROVIDER + "=openai")
public class OpenAiModelProvider implements ModelProvider {

    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    static final String KEY_VARIABLE = "OPENAI_API_KEY";
    static final String BASE_URL_VARIABLE = "OPENAI_BASE_URL";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Function<String, String> environment;
    private final RetryPolicy retryPolicy;

    @Activate
    public OpenAiModelProvider() {
        this(System::getenv, RetryPolicy.DEFAULT);
    }

    OpenAiModelProvider(Function<String, String> environment) {
        this(environment, RetryPolicy.DEFAULT);
    }

    OpenAiModelProvider(Function<String, String> environment, RetryPolicy retryPolicy) {
        this.environment = environment;
        this.retryPolicy = retryPolicy;
    }

    @Override
    public ChatModel chatModel(ModelSettings settings) {
        Target target = target(settings);
        ChatModel model = OpenAiChatModel.builder()
                .httpClientBuilder(http(target, settings))
                .baseUrl(target.baseUrl())
                .apiKey(target.key())
                .modelName(settings.name())
                .reasoningEffort(reasoningEffort(settings).orElse(null))
                .maxRetries(0)
                .build();
        return new ParallelToolCalls.Chat(model);
    }

    @Override
    public StreamingChatModel streamingChatModel(ModelSettings settings) {
        Target target = target(settings);
        StreamingChatModel model = OpenAiStreamingChatModel.builder()
                .httpClientBuilder(http(target, settings))
                .baseUrl(target.baseUrl())
                .apiKey(target.key())
                .modelName(settings.name())
                .reasoningEffort(reasoningEffort(settings).orElse(null))
                .build();
        return new ParallelToolCalls.Streaming(model);
    }

    /**
     * The reasoning models: OpenAI's o-series, GPT-5 and gpt-oss (also as served by compatible servers,
     * by their name's last part). Every other chat model answers HTTP 400 to a request carrying
     * {@code reasoning_effort}, so it is sent to these alone.
     */
    @Override
    public boolean thinks(String name) {
        String model = name.substring(name.lastIndexOf('/') + 1).toLowerCase(java.util.Locale.ROOT);
        return model.matches("o[1-9].*") || model.startsWith("gpt-5") || model.startsWith("gpt-oss")
                || model.startsWith("codex");
    }

    /**
     * {@code reasoning_effort} for the level: off sends none (the model's own default), max asks for
     * {@code high}, the most every reasoning model takes.
     */
    Optional<String> reasoningEffort(ModelSettings settings) {
        if (!thinks(settings.name())) {
            return Optional.empty();
        }
        return switch (settings.thinking()) {
            case OFF -> Optional.empty();
            case LOW -> Optional.of("low");
            case MEDIUM -> Optional.of("medium");
            case HIGH, MAX -> Optional.of("high");
        };
    }

    /**
     * Where to send requests and with what key.
     *
     * @param key the key, or {@code "none"} for servers that need none (the client always sends the
     *     header)
     */
    private record Target(String baseUrl, String key, String service) {
    }

    private Target target(ModelSettings settings) {
        String baseUrl = BaseUrls.chosen(settings, environment, BASE_URL_VARIABLE, DEFAULT_BASE_URL);
        URI uri = BaseUrls.check(baseUrl, false,
                "an http or https URL such as " + DEFAULT_BASE_URL + " or http://127.0.0.1:8000/v1");
        BaseUrls.refuseEndpoint(baseUrl, uri, "/chat/completions", "/completions", "/responses");
        boolean openAi = "api.openai.com".equals(uri.getHost());
        String key = Optional.ofNullable(environment.apply(KEY_VARIABLE)).map(String::trim).orElse("");
        if (key.isEmpty() && openAi) {
            throw new IllegalArgumentException(KEY_VARIABLE + " is not set. Export your OpenAI API key, or pass "
                    + "--base-url for an OpenAI-compatible server that needs none.");
        }
        return new Target(baseUrl, key.isEmpty() ? "none" : key, openAi ? "OpenAI" : "the OpenAI-compatible server");
    }

    private QuiverHttpClientBuilder http(Target target, ModelSettings settings) {
        return new QuiverHttpClientBuilder()
                .retryNotices(settings.retries())
                .service(target.service())
                .model(settings.name())
                .keyVariable(KEY_VARIABLE)
                .timeouts(QuiverHttpClientBuilder.DEFAULT_CONNECT_TIMEOUT, settings.timeout())
                .retryPolicy(retryPolicy)
                .streamEnd(event -> "[DONE]".equals(event.data()))
                .streamError(event -> streamError(target, event));
    }

    /** An error inside a stream: {@code event: error}, or a data line that is {@code {"error": ..}}. */
    private static ModelException streamError(Target target, ServerSentEvent event) {
        String data = event.data() == null ? "" : event.data().trim();
        boolean errorEvent = "error".equals(event.event());
        if (!errorEvent && !(data.startsWith("{\"error\"") || data.startsWith("{ \"error\""))) {
            return null;
        }
        String message = data;
        try {
            JsonNode error = JSON.readTree(data).path("error");
            message = error.isTextual() ? error.asText() : error.path("message").asText(data);
        } catch (IOException e) {
            // not JSON: report the raw line
        }
        String subject = Character.toUpperCase(target.service().charAt(0)) + target.service().substring(1);
        return new ModelException(ModelException.Kind.SERVER, 0, subject + " reported an error in the stream: " + message);
    }
}
