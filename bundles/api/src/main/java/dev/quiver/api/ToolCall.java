package dev.quiver.api;

import java.util.List;
import java.util.Objects;

/**
 * A call the model asked for, as a {@link Guard} sees it before anything runs.
 *
 * @param tool the tool's wire name
 * @param access the tool's access class
 * @param arguments the arguments the model sent
 * @param subjects what permission rules match the call on
 */
public record ToolCall(String tool, Access access, Arguments arguments, List<Subject> subjects) {

    public ToolCall {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(arguments, "arguments");
        subjects = List.copyOf(subjects);
    }
}
