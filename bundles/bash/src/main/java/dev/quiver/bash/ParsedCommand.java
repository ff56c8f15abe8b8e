package dev.quiver.bash;

import java.util.List;
import java.util.Objects;

/**
 * A bash command line split into its simple commands.
 *
 * @param source the command line as given
 * @param commands every simple command found, in source order (a command before the commands of
 *     the substitutions inside its words)
 * @param complete false when tree-sitter reports an ERROR or MISSING node, when a nested
 *     {@code bash -c}/{@code eval} string is incomplete or nested too deep, or when the input is not
 *     parseable at all (NUL characters, unpaired surrogates, more than 1 MiB, parser time budget
 *     exceeded). The commands that could be read are still listed; a caller must never treat an
 *     incomplete parse as safe.
 */
public record ParsedCommand(String source, List<SimpleCommand> commands, boolean complete) {

    public ParsedCommand {
        Objects.requireNonNull(source, "source");
        // The parser's own list also carries the structure the guard needs (pipelines, functions).
        commands = commands instanceof Structure.CommandList ? commands : List.copyOf(commands);
    }
}
