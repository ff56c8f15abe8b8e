package dev.quiver.model.openai;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import java.net.URI;
import java.util.Optional;
import java.util.function.Function;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * Chat completions for api.openai.com and OpenAI-compatible servers (vLLM, llama.cpp, LM Studio,
 * OpenRouter). The base URL includes the version path, as in OpenAI's own SDKs:
 * {@code https://api.openai.com/v1}, {@code http://127.0.0.1:8000/v1}.
 */
@Component(property = ModelProvider.PROVIDER + "=openai")
public class OpenAiModelProvider implements ModelProvider {

    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    static final String KEY_VARIABLE = "OPENAI_API_KEY";
    static final String BASE_URL_VARIABLE = "OPENAI_BASE_URL";

    private final Function<String, String> environment;

    @Activate
    public OpenAiModelProvider() {
        this(System::getenv);
    }

    OpenAiModelProvider(Function<String, String> environment) {
        this.environment = environment;
    }

    @Override
    public ChatModel chatModel(ModelSettings settings) {
        String baseUrl = settings.baseUrl()
                .or(() -> Optional.ofNullable(environment.apply(BASE_URL_VARIABLE)).filter(s -> !s.isBlank()))
                .orElse(DEFAULT_BASE_URL)
                .trim();
        URI uri;
        try {
            uri = URI.create(baseUrl);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Base URL is not a URL: " + baseUrl);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("Base URL must be an http or https URL such as "
                    + DEFAULT_BASE_URL + " or http://127.0.0.1:8000/v1; got " + baseUrl);
        }
        String key = Optional.ofNullable(environment.apply(KEY_VARIABLE)).map(String::trim).orElse("");
        if (key.isEmpty() && "api.openai.com".equals(uri.getHost())) {
            throw new IllegalArgumentException(KEY_VARIABLE + " is not set. Export your OpenAI API key, or pass "
                    + "--base-url for an OpenAI-compatible server that needs none.");
        }
        OpenAiChatModel.OpenAiChatModelBuilder builder = OpenAiChatModel.builder()
                .httpClientBuilder(JdkHttpClient.builder())
                .baseUrl(baseUrl)
                .modelName(settings.name())
                .timeout(settings.timeout())
                .maxRetries(2)
                // local servers need no key, but the client always sends the header
                .apiKey(key.isEmpty() ? "none" : key);
        return builder.build();
    }
}
