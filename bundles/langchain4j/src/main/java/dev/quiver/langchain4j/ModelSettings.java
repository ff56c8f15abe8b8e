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
 */
public record ModelSettings(String name, Optional<String> baseUrl, Duration timeout) {

    public ModelSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(timeout, "timeout");
    }
}
