package dev.quiver.api;

import java.util.Objects;

/**
 * What the model is told about a tool on every request.
 *
 * @param name the wire name, {@code snake_case}
 * @param description what the tool does and when to use it, written for a model; every byte is
 *     paid on every request, so keep it short
 * @param parameters the JSON Schema of the arguments, an object schema, as JSON text
 */
public record ToolSpec(String name, String description, String parameters) {

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(parameters, "parameters");
        if (!name.matches("[a-z][a-z0-9_]{0,63}")) {
            throw new IllegalArgumentException("Tool name must be snake_case, at most 64 characters: " + name);
        }
    }
}
