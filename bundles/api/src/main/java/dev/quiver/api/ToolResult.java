package dev.quiver.api;

import java.util.Objects;

/**
 * What a successful call returns to the model. The kernel caps it at 30,000 characters.
 *
 * @param text the output the model reads
 */
public record ToolResult(String text) {

    public ToolResult {
        Objects.requireNonNull(text, "text");
    }

    /** A result with this text. */
    public static ToolResult of(String text) {
        return new ToolResult(text);
    }
}
