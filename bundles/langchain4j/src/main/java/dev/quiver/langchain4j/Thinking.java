package dev.quiver.langchain4j;

import java.util.Locale;
import java.util.Optional;

/**
 * How much the model deliberates before it answers, in Quiver's own words: each provider maps a level
 * onto what its wire format has (OpenAI's {@code reasoning_effort}, Anthropic's {@code thinking} budget),
 * so {@code high} asks for the same thing whichever provider is configured.
 *
 * @since 1.5
 */
public enum Thinking {
    OFF, LOW, MEDIUM, HIGH, MAX;

    /** The name as the command line and the config write it: {@code off}, {@code low} ... {@code max}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The level a name stands for; empty when it names none. */
    public static Optional<Thinking> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        for (Thinking level : values()) {
            if (level.id().equals(name.strip().toLowerCase(Locale.ROOT))) {
                return Optional.of(level);
            }
        }
        return Optional.empty();
    }
}
