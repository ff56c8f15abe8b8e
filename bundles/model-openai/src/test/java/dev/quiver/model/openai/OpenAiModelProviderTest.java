package dev.quiver.model.openai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.model.chat.ChatModel;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.testing.OpenAiStub;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OpenAiModelProviderTest {

    private static ModelSettings settings(Optional<String> baseUrl) {
        return new ModelSettings("test-model", baseUrl, Duration.ofSeconds(10));
    }

    @Test
    void baseUrlIncludesTheVersionPathAndTheKeyGoesAsABearerToken() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("hello"))) {
            OpenAiModelProvider provider = new OpenAiModelProvider(Map.of("OPENAI_API_KEY", "sk-123")::get);
            ChatModel model = provider.chatModel(settings(Optional.of(stub.baseUrl())));
            assertEquals("hello", model.chat("hi"));
            assertEquals("test-model", stub.requests().get(0).get("model").asText());
            assertEquals("Bearer sk-123", stub.authorizations().get(0));
        }
    }

    @Test
    void openAiBaseUrlFromTheEnvironmentIsUsedWhenNoneIsGiven() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("from env"))) {
            OpenAiModelProvider provider = new OpenAiModelProvider(Map.of("OPENAI_BASE_URL", stub.baseUrl())::get);
            assertEquals("from env", provider.chatModel(settings(Optional.empty())).chat("hi"));
        }
    }

    @Test
    void apiOpenAiComWithoutAKeyIsRefusedWithTheVariableToSet() {
        OpenAiModelProvider provider = new OpenAiModelProvider(Map.<String, String>of()::get);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> provider.chatModel(settings(Optional.empty())));
        assertTrue(error.getMessage().startsWith("OPENAI_API_KEY is not set"), error.getMessage());
    }

    @Test
    void aBaseUrlThatIsNotHttpIsRefused() {
        OpenAiModelProvider provider = new OpenAiModelProvider(Map.<String, String>of()::get);
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> provider.chatModel(settings(Optional.of("localhost:8000"))));
        assertTrue(error.getMessage().contains("http or https"), error.getMessage());
    }
}
