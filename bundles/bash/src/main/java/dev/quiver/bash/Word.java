package dev.quiver.bash;

import java.util.Objects;

/**
 * One shell word.
 *
 * @param value the word as bash would see it after quote removal when {@code literal}; for a
 *     non-literal word (one containing {@code $VAR}, {@code ${...}}, {@code $(...)}, backticks,
 *     {@code $((...))} or a process substitution) the word's source text, quotes included
 * @param literal true when the word's value is known before running anything. Globs ({@code *},
 *     {@code ?}, {@code [...]}), brace expansions and a leading {@code ~} stay as literal text.
 */
public record Word(String value, boolean literal) {

    public Word {
        Objects.requireNonNull(value, "value");
    }

    static Word literal(String value) {
        return new Word(value, true);
    }

    @Override
    public String toString() {
        return literal ? value : "<" + value + ">";
    }
}
