package dev.quiver.kernel;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.quiver.langchain4j.ModelProvider;
import dev.quiver.langchain4j.ModelSettings;
import dev.quiver.testing.OpenAiStub;

/** The loopback OpenAI server as a session's model provider: LangChain4j's real client, without streaming. */
final class StubModels {

    private StubModels() {
    }

    static ModelProvider openAi(OpenAiStub stub) {
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
}
