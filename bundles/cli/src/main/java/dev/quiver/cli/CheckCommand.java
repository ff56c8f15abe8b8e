package dev.quiver.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.Session;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code quiver check TOOL 'JSON'} and {@code check --batch}: the decision only; nothing runs. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Print the decision for a call: {\"tool\",\"decision\",\"by\",\"reason\"}; nothing runs")
final class CheckCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--batch", paramLabel = "FILE|-", description = "JSON Lines of {\"tool\":..,\"args\":{..}}; - for stdin")
    String batch;

    @Option(names = "--with-mcp", description = "Start the configured MCP servers to check calls of their tools (check alone starts nothing)")
    boolean withMcp;

    @Parameters(index = "0", arity = "0..1", paramLabel = "TOOL")
    String tool;

    @Parameters(index = "1", arity = "0..1", paramLabel = "JSON", description = "The arguments, default {}")
    String arguments;

    @Override
    public Integer call() throws IOException {
        Terminal terminal = root.terminal;
        if ((batch == null) == (tool == null)) {
            terminal.err().println("quiver check: give TOOL 'JSON', or --batch FILE|- (not both).");
            return ExitCodes.USAGE;
        }
        try (Session session = root.inspect(common.over(root.common), terminal.err(), withMcp)) {
            if (batch != null) {
                BatchLine.each(batch, terminal.in(), line -> {
                    if (line.error() != null) {
                        ObjectNode node = Output.MAPPER.createObjectNode();
                        node.putNull("tool");
                        node.put("decision", "deny");
                        node.put("by", "default");
                        node.put("reason", line.error());
                        Output.line(terminal.out(), node);
                    } else {
                        Output.line(terminal.out(), Output.verdict(line.tool(), session.check(line.tool(), line.arguments())));
                    }
                });
                return ExitCodes.OK;
            }
            Output.line(terminal.out(), Output.verdict(tool, session.check(tool, arguments == null ? "{}" : arguments)));
            return ExitCodes.OK;
        }
    }
}
