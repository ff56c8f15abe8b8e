package dev.quiver.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnListener;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code quiver call TOOL 'JSON'} and {@code quiver call --batch FILE|-}: run calls through the
 * whole permission chain. No one is asked: ask means deny unless {@code --yolo}.
 */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = "Run one tool call through the permission chain (exit 0 ok, 1 tool error, 3 denied)")
final class CallCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--batch", paramLabel = "FILE|-", description = "JSON Lines of {\"tool\":..,\"args\":{..}}; - for stdin")
    String batch;

    @Parameters(index = "0", arity = "0..1", paramLabel = "TOOL")
    String tool;

    @Parameters(index = "1", arity = "0..1", paramLabel = "JSON", description = "The arguments, default {}")
    String arguments;

    @Override
    public Integer call() throws IOException {
        Terminal terminal = root.terminal;
        if ((batch == null) == (tool == null)) {
            terminal.err().println("quiver call: give TOOL 'JSON', or --batch FILE|- (not both).");
            return ExitCodes.USAGE;
        }
        try (Session session = root.open(common.over(root.common), false, terminal.err())) {
            // notices (a checkpoint that failed) go to standard error; standard output is the result's
            TurnListener notices = new HeadlessListener(terminal.err());
            if (batch != null) {
                // a batch waits for its lines: the time to walk the workspace and compile the search
                session.warmUp();
                BatchLine.each(batch, terminal.in(), line -> {
                    if (line.error() != null) {
                        ObjectNode node = Output.MAPPER.createObjectNode();
                        node.putNull("tool");
                        node.put("status", "error");
                        node.put("output", line.error());
                        node.put("elapsed_ms", 0);
                        Output.line(terminal.out(), node);
                    } else {
                        Output.line(terminal.out(), Output.outcome(line.tool(),
                                session.call(line.tool(), line.arguments(), notices)));
                    }
                });
                return ExitCodes.OK;
            }
            CallOutcome outcome = session.call(tool, arguments == null ? "{}" : arguments, notices);
            switch (outcome.status()) {
                case OK -> {
                    terminal.out().print(outcome.output());
                    if (!outcome.output().endsWith("\n")) {
                        terminal.out().println();
                    }
                    return ExitCodes.OK;
                }
                case DENIED -> {
                    terminal.err().println(outcome.output());
                    return ExitCodes.DENIED;
                }
                default -> {
                    terminal.err().println(outcome.output());
                    return ExitCodes.ERROR;
                }
            }
        }
    }
}
