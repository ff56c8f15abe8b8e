package dev.quiver.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnResult;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quiver}: the interactive agent, or one headless task with {@code -p}. */
@Command(name = "quiver", mixinStandardHelpOptions = true,
        subcommands = {ToolsCommand.class, CallCommand.class, CheckCommand.class},
        description = "A coding agent whose tools are hot-swappable OSGi bundles, governed by one kernel.")
final class RootCommand implements Callable<Integer> {

    /** Output formats of {@code -p}. */
    enum Format { text, json }

    final Kernel kernel;
    final String version;
    final Terminal terminal;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = {"-p", "--print"}, paramLabel = "PROMPT", description = "Run one task headless and print the answer")
    String prompt;

    @Option(names = "--output-format", paramLabel = "FORMAT", description = "With -p: text (default) or json")
    Format format = Format.text;

    RootCommand(Kernel kernel, String version, Terminal terminal) {
        this.kernel = kernel;
        this.version = version;
        this.terminal = terminal;
    }

    /** Opens a session and prints the start-up header and warnings to the given stream. */
    Session open(CommonOptions options, boolean interactive, PrintStream headerStream) {
        Session session = kernel.open(options.session(interactive));
        headerStream.println(Header.line(version, session));
        for (String warning : session.warnings()) {
            headerStream.println("warning: " + warning);
        }
        return session;
    }

    @Override
    public Integer call() throws IOException {
        if (prompt != null) {
            return headless();
        }
        return new InteractiveLoop(this).run();
    }

    private int headless() {
        try (Session session = open(common, false, terminal.err())) {
            TurnResult result;
            try {
                result = session.send(prompt, new HeadlessListener(terminal.err()));
            } catch (HostException e) {
                if (format == Format.json) {
                    ObjectNode error = Output.MAPPER.createObjectNode();
                    error.put("status", "error");
                    error.put("error", e.getMessage());
                    error.put("exit", ExitCodes.ERROR);
                    Output.line(terminal.out(), error);
                } else {
                    terminal.err().println("quiver: " + e.getMessage());
                }
                return ExitCodes.ERROR;
            }
            int exit = result.status() == TurnResult.Status.STEP_LIMIT ? ExitCodes.STEP_LIMIT : ExitCodes.OK;
            if (format == Format.json) {
                Output.line(terminal.out(), turnJson(result, exit));
            } else {
                terminal.out().println(result.answer());
                if (exit == ExitCodes.STEP_LIMIT) {
                    terminal.err().println("quiver: stopped at the step limit before the task was done.");
                }
            }
            return exit;
        }
    }

    private static ObjectNode turnJson(TurnResult result, int exit) {
        ObjectNode json = Output.MAPPER.createObjectNode();
        json.put("status", result.status() == TurnResult.Status.DONE ? "done" : "step_limit");
        json.put("answer", result.answer());
        json.put("steps", result.steps());
        ArrayNode calls = json.putArray("calls");
        for (CallOutcome call : result.calls()) {
            ObjectNode node = calls.addObject();
            node.put("tool", call.tool());
            node.put("status", call.status().id());
            node.put("decision", call.verdict().decision().id());
            node.put("by", call.verdict().by());
            node.put("elapsed_ms", call.elapsedMillis());
        }
        json.put("exit", exit);
        return json;
    }
}
