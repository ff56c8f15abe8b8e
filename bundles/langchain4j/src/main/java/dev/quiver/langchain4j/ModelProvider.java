package dev.quiver.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A source of chat models, registered as a service by each provider bundle with the service property
 * {@value #PROVIDER} naming the provider ({@code openai}, {@code anthropic}, {@code ollama}).
 *
 * <p>API keys are read by the provider from the environment and never passed through here, so they
 * cannot end up in configuration, session files or logs.
 *
 * <p>The models send their requests through {@link RetryingHttpClient}: a request that fails for good
 * surfaces as a {@link ModelException} (thrown by {@code ChatModel.chat}, passed to
 * {@code StreamingChatResponseHandler.onError}) whose message is one line for the user; find it with
 * {@link ModelException#find(Throwable)}.
 */
@ConsumerType
public interface ModelProvider {

    /** Service property: the provider's name, the part before the slash in {@code --model openai/NAME}. */
    String PROVIDER = "quiver.model.provider";

    /**
     * Builds a chat model.
     *
     * @param settings the model name and where to reach it
     * @return a model ready to take requests
     * @throws IllegalArgumentException with a one-line message for the user when the settings cannot
     *     work (a missing API key, a malformed base URL)
     */
    ChatModel chatModel(ModelSettings settings);

    /**
     * Builds a streaming chat model for the same settings; the agent loop prefers it, so text reaches
     * the front end as it is generated.
     *
     * @throws IllegalArgumentException as {@link #chatModel(ModelSettings)}
     */
    StreamingChatModel streamingChatModel(ModelSettings settings);

    /**
     * Whether the models this provider builds for the model {@code name} honour
     * {@link ModelSettings#thinking}. The kernel tells the user once when a chosen level is not sent.
     *
     * @since 1.5
     */
    default boolean thinks(String name) {
        return false;
    }
}
