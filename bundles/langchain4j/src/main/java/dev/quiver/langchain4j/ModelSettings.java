package dev.quiver.langchain4j;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a user chose for a model.
 *
 * @param name the provider's model name
 * @param baseUrl the server, in the provider's SDK convention; empty for the provider's default
 *     (or its environment variable, such as {@code OPENAI_BASE_URL})
 * @param timeout how long one request may take
 * @param allowedBaseUrls the servers the managed policy allows, as patterns in which {@code *} spans any
 *     characters; empty for any. {@link BaseUrls#chosen} refuses a server none of them matches, whichever
 *     way it was chosen (the command line, the config, the environment, the provider's default).
 * @param retries told, in one line, each time a failed request is about to be tried again, so the user
 *     sees why the answer is late ({@code OpenAI answered HTTP 429; retrying in 4 s (attempt 2 of 5)})
 * @param thinking how much the model should deliberate; a provider whose model takes no such setting
 *     ignores it ({@link ModelProvider#thinks}). Since 1.5.
 */
public record ModelSettings(String name, Optional<String> baseUrl, Duration timeout, java.util.List<String> allowedBaseUrls,
        java.util.function.Consumer<String> retries, Thinking thinking) {

    public ModelSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(timeout, "timeout");
        allowedBaseUrls = java.util.List.copyOf(allowedBaseUrls);
        Objects.requireNonNull(retries, "retries");
        Objects.requireNonNull(thinking, "thinking");
    }

    /** Settings that ask for no thinking (the canonical constructor of 1.4). */
    public ModelSettings(String name, Optional<String> baseUrl, Duration timeout, java.util.List<String> allowedBaseUrls,
            java.util.function.Consumer<String> retries) {
        this(name, baseUrl, timeout, allowedBaseUrls, retries, Thinking.OFF);
    }

    /** Settings whose retries are told to no one. */
    public ModelSettings(String name, Optional<String> baseUrl, Duration timeout, java.util.List<String> allowedBaseUrls) {
        this(name, baseUrl, timeout, allowedBaseUrls, retry -> { });
    }

    /** Settings with no managed restriction on the server. */
    public ModelSettings(String name, Optional<String> baseUrl, Duration timeout) {
        this(name, baseUrl, timeout, java.util.List.of());
    }
}
