package dev.quiver.bash;

import java.util.List;
import java.util.Objects;

/**
 * A bash command line split into its simple commands.
 *
 * @param source the command line as given
 * @param commands every simple command found, in source order (a command before the commands of
 *     the substitutions inside its words), then the commands of code fed to shells (a here-document
 *     for {@code bash -s}, what {@code echo} pipes into {@code sh})
 * @param unjudgeable why the line cannot be judged before it runs, one reason per part, each naming
 *     the part ({@code "eval of computed text `$x`"}, {@code "code for bash from a process
 *     substitution: `<(curl -s x)`"}, {@code "nesting deeper than 32 levels ..."}); empty when every part
 *     was read. Besides run-time values (computed strings, code fed to a shell or interpreter, a
 *     wrapper whose words cannot be read) a reason is given when the parse is incomplete: tree-sitter
 *     reports an ERROR or MISSING node, the input is not parseable at all (NUL characters, unpaired
 *     surrogates, more than 1 MiB) or a bound of {@link ShellParser} is passed. The commands that could
 *     be read are still listed; a caller must never allow a line with a reason automatically.
 */
public record ParsedCommand(String source, List<SimpleCommand> commands, List<String> unjudgeable) {

    public ParsedCommand {
        Objects.requireNonNull(source, "source");
        // The parser's own list also carries the structure the guard needs (pipelines, functions).
        commands = commands instanceof Structure.CommandList ? commands : List.copyOf(commands);
        unjudgeable = List.copyOf(unjudgeable);
    }

    /** A parse built by hand: incomplete means one reason, that it could not be parsed completely. */
    public ParsedCommand(String source, List<SimpleCommand> commands, boolean complete) {
        this(source, commands, complete ? List.of() : List.of(INCOMPLETE));
    }

    /** The reason of a hand-built incomplete parse. */
    static final String INCOMPLETE = "the command could not be parsed completely";

    /**
     * True when every part was read and nothing depends on run-time values: exactly when
     * {@link #unjudgeable()} is empty.
     */
    public boolean complete() {
        return unjudgeable.isEmpty();
    }
}
