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
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code quiver}: the interactive agent, or one headless task with {@code -p}. Its subcommands are
 * added by {@link Subcommands}, only the one asked for when the command line names one.
 */
@Command(name = "quiver", mixinStandardHelpOptions = true,
        description = "A coding agent whose tools are hot-swappable OSGi bundles, governed by one kernel.")
final class RootCommand implements Callable<Integer> {

    /** Output formats of {@code -p}. */
    enum Format { text, json }

    final Kernel kernel;
    final String version;
    final Terminal terminal;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = {"-p", "--print"}, paramLabel = "PROMPT", description = "Run one task headless and print the answer; text piped on stdin is added to the prompt")
    String prompt;

    @Option(names = "--output-format", paramLabel = "FORMAT", description = "With -p: text (default) or json")
    Format format = Format.text;

    @Option(names = {"-c", "--continue"}, description = "Continue the workspace's newest session")
    boolean continueLatest;

    @Option(names = {"-r", "--resume"}, paramLabel = "ID", description = "Continue a stored session (see quiver sessions)")
    String resume;

    /** The services the interactive terminal uses; set by {@link QuiverMain}. */
    dev.quiver.cli.terminal.Services services = dev.quiver.cli.terminal.Services.none();

    /** Whether the streams are the process's own, so the interactive terminal may use the TTY. */
    boolean systemTerminal;

    RootCommand(Kernel kernel, String version, Terminal terminal) {
        this.kernel = kernel;
        this.version = version;
        this.terminal = terminal;
    }

    /** Opens a session and prints the start-up header and warnings to the given stream. */
    Session open(CommonOptions options, boolean interactive, PrintStream headerStream) {
        return open(options, interactive, headerStream, java.util.Optional.empty());
    }

    Session open(CommonOptions options, boolean interactive, PrintStream headerStream, java.util.Optional<String> resume) {
        return open(options.session(interactive, resume), headerStream);
    }

    /**
     * Opens a session that only lists tools or checks calls: it starts nothing (no MCP server, no
     * process) unless {@code withMcp} asks to start the configured MCP servers to see their tools.
     */
    Session inspect(CommonOptions options, PrintStream headerStream, boolean withMcp) {
        return open(options.session(false, java.util.Optional.empty(), !withMcp), headerStream);
    }

    private Session open(dev.quiver.api.host.SessionOptions options, PrintStream headerStream) {
        Session session = kernel.open(options);
        headerStream.println(Header.line(version, session, services.shell()));
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
        return Interactive.run(this);
    }

    /** The session to continue, from --continue or --resume. */
    java.util.Optional<String> resumeChoice() {
        if (resume != null && !resume.isBlank()) {
            return java.util.Optional.of(resume.strip());
        }
        return continueLatest ? java.util.Optional.of(dev.quiver.api.host.SessionOptions.LATEST) : java.util.Optional.empty();
    }

    private int headless() {
        String task;
        try {
            // the process's stdin only when it is a pipe or a file; a test's terminal is always read
            task = PipedInput.prompt(prompt, !systemTerminal || PipedInput.stdinIsPipeOrFile()
                    ? PipedInput.read(terminal.in(), PipedInput.FIRST_WAIT,
                            notice -> terminal.err().println("quiver: " + notice))
                    : java.util.Optional.empty());
        } catch (IOException | IllegalArgumentException e) {
            terminal.err().println("quiver: " + e.getMessage());
            return ExitCodes.ERROR;
        }
        Session opened;
        try {
            opened = open(common, false, terminal.err(), resumeChoice());
        } catch (HostException e) {
            terminal.err().println("quiver: " + e.getMessage());
            return ExitCodes.ERROR;
        }
        try (Session session = opened) {
            TurnResult result;
            HeadlessListener listener = new HeadlessListener(terminal.err());
            try {
                result = session.send(task, listener);
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
            int exit = exitCode(result);
            if (format == Format.json) {
                Output.line(terminal.out(), turnJson(result, exit, listener.steps()));
            } else {
                terminal.out().println(result.answer());
                if (exit == ExitCodes.STEP_LIMIT) {
                    terminal.err().println("quiver: stopped at the step limit before the task was done.");
                } else if (exit == ExitCodes.DENIED) {
                    terminal.err().println("quiver: the task ran into a refusal: a call needed approval or was refused.");
                }
                terminal.err().println(UsageLine.of(result.usage()) + " · session " + session.id());
            }
            return exit;
        }
    }

    /** 0 done, 3 the task ran into a refusal, 4 the step limit; 1 is for errors, before a result exists. */
    static int exitCode(TurnResult result) {
        if (result.status() == TurnResult.Status.STEP_LIMIT) {
            return ExitCodes.STEP_LIMIT;
        }
        // "stopped by a refusal the task needed": the model ended its turn on a refused call; a refusal it
        // then worked around (a later call ran) does not fail the task
        List<CallOutcome> calls = result.calls();
        boolean stoppedByRefusal = !calls.isEmpty()
                && calls.get(calls.size() - 1).status() == CallOutcome.Status.DENIED;
        return stoppedByRefusal ? ExitCodes.DENIED : ExitCodes.OK;
    }

    static ObjectNode turnJson(TurnResult result, int exit, java.util.List<dev.quiver.api.host.Usage> steps) {
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
        usage(json.putObject("usage"), result.usage());
        json.put("exit", exit);
        // added after the fields above, which scripts rely on: one entry per model request, in order
        ArrayNode perStep = json.putArray("step_usage");
        for (dev.quiver.api.host.Usage step : steps) {
            usage(perStep.addObject(), step);
        }
        return json;
    }

    private static void usage(ObjectNode node, dev.quiver.api.host.Usage usage) {
        node.put("input_tokens", usage.inputTokens());
        node.put("output_tokens", usage.outputTokens());
        if (usage.costUsd().isPresent()) {
            node.put("cost_usd", usage.costUsd().get());
        } else {
            node.putNull("cost_usd");
        }
    }
}
