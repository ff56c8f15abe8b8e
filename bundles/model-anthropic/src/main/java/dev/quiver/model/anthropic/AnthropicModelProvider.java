package dev.quiver.model.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.quiver.langchain4j.ModelException;
import dev.quiver.langchain4j.ModelException.Kind;
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
 * Anthropic's Messages API: the system prompt in the top-level {@code system} field, tools as
 * {@code tool_use} / {@code tool_result} blocks, streaming by server-sent events. The base URL is
 * the server root, as in Anthropic's SDKs ({@code https://api.anthropic.com}); Quiver adds
 * {@code /v1/messages}. A base URL that already ends in {@code /v1} is taken as is.
 *
 * <p>The key comes only from {@code ANTHROPIC_API_KEY} and goes in the {@code x-api-key} header.
 * Requests go through Quiver's {@code RetryingHttpClient}; LangChain4j's own retries are off.
 */
@Component(property = ModelProvider.PROVIDER + "=anthropic")
public class AnthropicModelProvider implements ModelProvider {

    static final String DEFAULT_BASE_URL = "https://api.anthropic.com";
    static final String KEY_VARIABLE = "ANTHROPIC_API_KEY";
    static final String BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL";
    /**
     * The Messages API requires {@code max_tokens}. 8192 is within every current Claude model's
     * output limit and leaves room for whole-file edits.
     */
    static final int MAX_TOKENS = 8192;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Function<String, String> environment;
    private final RetryPolicy retryPolicy;

    @Activate
    public AnthropicModelProvider() {
        this(System::getenv, RetryPolicy.DEFAULT);
    }

    AnthropicModelProvider(Function<String, String> environment, RetryPolicy retryPolicy) {
        this.environment = environment;
        this.retryPolicy = retryPolicy;
    }

    @Override
    public ChatModel chatModel(ModelSettings settings) {
        Target target = target(settings);
        int budget = thinkingBudget(settings);
        AnthropicChatModel.AnthropicChatModelBuilder builder = AnthropicChatModel.builder()
                .httpClientBuilder(http(target, settings))
                .baseUrl(target.apiUrl())
                .apiKey(target.key())
                .modelName(settings.name())
                .maxTokens(MAX_TOKENS + budget)
                .maxRetries(0);
        if (budget > 0) {
            // the thinking blocks (with their signatures) must go back with the tool results that follow them
            builder.thinkingType("enabled").thinkingBudgetTokens(budget).returnThinking(true).sendThinking(true);
        }
        return builder.build();
    }

    @Override
    public StreamingChatModel streamingChatModel(ModelSettings settings) {
        Target target = target(settings);
        int budget = thinkingBudget(settings);
        AnthropicStreamingChatModel.AnthropicStreamingChatModelBuilder builder = AnthropicStreamingChatModel.builder()
                .httpClientBuilder(http(target, settings))
                .baseUrl(target.apiUrl())
                .apiKey(target.key())
                .modelName(settings.name())
                .maxTokens(MAX_TOKENS + budget);
        if (budget > 0) {
            builder.thinkingType("enabled").thinkingBudgetTokens(budget).returnThinking(true).sendThinking(true);
        }
        return builder.build();
    }

    /**
     * Extended thinking came with Claude 3.7; the older models answer HTTP 400 to a request that
     * enables it.
     */
    @Override
    public boolean thinks(String name) {
        return !name.toLowerCase(java.util.Locale.ROOT)
                .matches("claude-(instant|2|3-haiku|3-sonnet|3-opus|3-5-).*");
    }

    /**
     * The {@code budget_tokens} of a level, 0 for none. Anthropic's minimum is 1,024 and
     * {@code max_tokens} must exceed the budget, so the answer's own {@link #MAX_TOKENS} are added on top.
     */
    int thinkingBudget(ModelSettings settings) {
        if (!thinks(settings.name())) {
            return 0;
        }
        return switch (settings.thinking()) {
            case OFF -> 0;
            case LOW -> 2_048;
            case MEDIUM -> 8_192;
            case HIGH -> 16_384;
            case MAX -> 32_768;
        };
    }

    /**
     * @param apiUrl the base URL in LangChain4j's convention, which includes the version path and
     *     ends with a slash ({@code https://api.anthropic.com/v1/}); it appends {@code messages}
     * @param key the key, or {@code "none"} for a proxy that needs none (LangChain4j requires one)
     */
    private record Target(String apiUrl, String key, String service) {
    }

    private Target target(ModelSettings settings) {
        String root = BaseUrls.chosen(settings, environment, BASE_URL_VARIABLE, DEFAULT_BASE_URL);
        URI uri = BaseUrls.check(root, true, "the server's http or https root such as " + DEFAULT_BASE_URL);
        boolean anthropic = "api.anthropic.com".equals(uri.getHost());
        String key = Optional.ofNullable(environment.apply(KEY_VARIABLE)).map(String::trim).orElse("");
        if (key.isEmpty() && anthropic) {
            throw new IllegalArgumentException(KEY_VARIABLE + " is not set. Export your Anthropic API key.");
        }
        return new Target(apiUrl(root), key.isEmpty() ? "none" : key,
                anthropic ? "Anthropic" : "the Anthropic-compatible server");
    }

    /** The server root plus {@code /v1/}, tolerating a root given with {@code /v1} or {@code /v1/messages}. */
    static String apiUrl(String root) {
        String url = root;
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        if (url.endsWith("/v1/messages")) {
            url = url.substring(0, url.length() - "/messages".length());
        }
        if (!url.endsWith("/v1")) {
            url = url + "/v1";
        }
        return url + "/";
    }

    private QuiverHttpClientBuilder http(Target target, ModelSettings settings) {
        return new QuiverHttpClientBuilder()
                .retryNotices(settings.retries())
                .service(target.service())
                .model(settings.name())
                .keyVariable(KEY_VARIABLE)
                .timeouts(QuiverHttpClientBuilder.DEFAULT_CONNECT_TIMEOUT, settings.timeout())
                .retryPolicy(retryPolicy)
                .streamEnd(event -> "message_stop".equals(event.event()))
                .streamError(event -> streamError(target, event));
    }

    /** {@code event: error}, {@code data: {"type":"error","error":{"type":"overloaded_error","message":..}}}. */
    private static ModelException streamError(Target target, ServerSentEvent event) {
        if (!"error".equals(event.event())) {
            return null;
        }
        String type = "error";
        String message = event.data();
        try {
            JsonNode error = JSON.readTree(event.data()).path("error");
            type = error.path("type").asText(type);
            message = error.path("message").asText(message);
        } catch (IOException | RuntimeException e) {
            // not JSON: report the raw data
        }
        Kind kind = switch (type) {
            case "rate_limit_error" -> Kind.RATE_LIMITED;
            case "overloaded_error", "api_error" -> Kind.SERVER;
            case "authentication_error", "permission_error" -> Kind.AUTHENTICATION;
            case "not_found_error" -> Kind.NOT_FOUND;
            case "invalid_request_error", "request_too_large" -> Kind.BAD_REQUEST;
            default -> Kind.SERVER;
        };
        String subject = Character.toUpperCase(target.service().charAt(0)) + target.service().substring(1);
        return new ModelException(kind, 0, subject + " reported " + type + " in the stream: " + message);
    }
}
