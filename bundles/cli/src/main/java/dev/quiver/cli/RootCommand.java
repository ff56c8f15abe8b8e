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
import picocli.CommandLine.Parameters;

/**
 * {@code quiver}: the interactive agent, or one headless task with {@code -p}. Its subcommands are
 * added by {@link Subcommands}, only the one asked for when the command line names one.
 */
@Command(name = "quiver", mixinStandardHelpOptions = true,
        description = "A coding agent whose tools are hot-swappable OSGi bundles, governed by one kernel.")
final class RootCommand implements Callable<Integer> {

    /** Output formats of {@code -p}. */
    enum Format {
        TEXT("text"), JSON("json"), STREAM_JSON("stream-json");

        final String id;

        Format(String id) {
            this.id = id;
        }

        /** picocli's converter: the format's name as the option takes it. */
        static final class Converter implements picocli.CommandLine.ITypeConverter<Format> {
            @Override
            public Format convert(String value) {
                for (Format format : values()) {
                    if (format.id.equals(value)) {
                        return format;
                    }
                }
                throw new picocli.CommandLine.TypeConversionException("expected one of text, json, stream-json but was '"
                        + value + "'");
            }
        }
    }

    final Kernel kernel;
    final String version;
    final Terminal terminal;

    @Mixin
    CommonOptions common = new CommonOptions();

    /** What {@code -p} holds when it is given without a value: the prompt is then the argument, stdin, or both. */
    private static final String PROMPT_FROM_ARGUMENT = "";

    @Option(names = {"-p", "--print"}, paramLabel = "PROMPT", arity = "0..1", fallbackValue = PROMPT_FROM_ARGUMENT,
            description = "Run one task headless and print the answer; the prompt is this value or the argument, "
                    + "and text piped on stdin is added to it")
    String prompt;

    @Option(names = "--output-format", paramLabel = "FORMAT", converter = Format.Converter.class,
            description = "With -p: text (default), json (one object at the end) or stream-json (one object per event)")
    Format format = Format.TEXT;

    @Option(names = "--max-turns", paramLabel = "N", converter = MaxTurns.class,
            description = "Model requests one prompt may make (default: the agent variant's, 50 for default); the turn "
                    + "stops there with exit code 4")
    Integer maxTurns;

    @Option(names = "--append-system-prompt", paramLabel = "TEXT",
            description = "Text added at the end of the system prompt of every step")
    String appendSystemPrompt;

    @Parameters(arity = "0..*", paramLabel = "PROMPT",
            description = "Start the interactive agent with this prompt (with -p: the task, when -p has no value)")
    List<String> words = new java.util.ArrayList<>();

    @Option(names = {"-c", "--continue"}, description = "Continue the workspace's newest session")
    boolean continueLatest;

    @Option(names = {"-r", "--resume"}, paramLabel = "ID", description = "Continue a stored session (see quiver sessions)")
    String resume;

    /** The services the interactive terminal uses; set by {@link QuiverMain}. */
    dev.quiver.cli.terminal.Services services = dev.quiver.cli.terminal.Services.none();

    /** Whether the streams are the process's own, so the interactive terminal may use the TTY. */
    boolean systemTerminal;

    /**
     * Set by {@code tools --json} when what it printed is all a run with the same inputs prints: no
     * warning, no MCP server started, the shell sandboxed. {@link QuiverMain} then offers the output to
     * the launcher's record.
     */
    boolean recordable;

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
        // the tool rules of the options given (a subcommand's merged with the root's), the step cap and prompt text of the root
        return open(options.session(interactive, resume).withRun(options.run(java.util.Optional.ofNullable(maxTurns),
                appended())), headerStream);
    }

    /** The run's settings from the command line: the tool rules, the step cap and the system prompt's addition. */
    dev.quiver.api.host.RunOptions run() {
        return common.run(java.util.Optional.ofNullable(maxTurns), appended());
    }

    private java.util.Optional<String> appended() {
        return java.util.Optional.ofNullable(appendSystemPrompt).filter(text -> !text.isBlank());
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
        if (options.yolo()) {
            headerStream.println("warning: --yolo: calls that would ask run without asking; guards, secrets and deny "
                    + "rules still refuse");
        }
        for (String warning : session.warnings()) {
            headerStream.println("warning: " + warning);
        }
        return session;
    }

    /** picocli's converter for {@code --max-turns}: a whole number of 1 or more, or a usage error (exit 2). */
    static final class MaxTurns implements picocli.CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int turns;
            try {
                turns = Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not a whole number");
            }
            if (turns < 1) {
                throw new picocli.CommandLine.TypeConversionException("it must be 1 or more, not " + turns);
            }
            return turns;
        }
    }

    @Override
    public Integer call() throws IOException {
        String argument = String.join(" ", words);
        if (prompt != null) {
            if (!argument.isEmpty() && !prompt.equals(PROMPT_FROM_ARGUMENT)) {
                terminal.err().println("quiver: the prompt was given twice, as -p '" + prompt + "' and as '" + argument
                        + "'. Give it once: quiver -p 'PROMPT', or quiver -p followed by other options and then the prompt."
                        + " (Several --allowedTools or --disallowedTools rules go in one value, \"A,B\", or in one option each.)");
                return ExitCodes.USAGE;
            }
            return headless(prompt.equals(PROMPT_FROM_ARGUMENT) ? argument : prompt);
        }
        if (words.size() == 1) {
            java.util.Optional<String> typo = Subcommands.typoOf(argument);
            if (typo.isPresent()) {
                terminal.err().println("quiver: '" + argument + "' is no command. Did you mean: quiver " + typo.get()
                        + "? (To start the agent with it as the prompt, quote it with a space: quiver ' " + argument + "')");
                return ExitCodes.USAGE;
            }
        }
        return Interactive.run(this, argument.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(argument));
    }

    /** The session to continue, from --continue or --resume. */
    java.util.Optional<String> resumeChoice() {
        if (resume != null && !resume.isBlank()) {
            return java.util.Optional.of(resume.strip());
        }
        return continueLatest ? java.util.Optional.of(dev.quiver.api.host.SessionOptions.LATEST) : java.util.Optional.empty();
    }

    private int headless(String given) {
        String task;
        try {
            // the process's stdin only when it is a pipe or a file; a test's terminal is always read
            task = PipedInput.prompt(given, !systemTerminal || PipedInput.stdinIsPipeOrFile()
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
            StreamJsonListener stream = format == Format.STREAM_JSON
                    ? new StreamJsonListener(terminal.out(), session, version, common.yolo, common.readOnly) : null;
            HeadlessListener listener = stream != null ? stream : new HeadlessListener(terminal.err());
            long started = System.nanoTime();
            TurnResult result;
            try {
                result = session.send(task, listener);
            } catch (HostException e) {
                if (format == Format.TEXT) {
                    terminal.err().println("quiver: " + e.getMessage());
                } else {
                    ObjectNode error = Output.MAPPER.createObjectNode();
                    error.put("status", "error");
                    error.put("error", e.getMessage());
                    error.put("exit", ExitCodes.ERROR);
                    List<dev.quiver.api.host.Usage> steps = listener.steps();
                    usage(error.putObject("usage"), steps.stream().reduce(dev.quiver.api.host.Usage.NONE,
                            dev.quiver.api.host.Usage::plus));
                    resultFields(error, session.id(), steps.size(), ExitCodes.ERROR, null, started);
                    print(error, stream);
                }
                return ExitCodes.ERROR;
            }
            int exit = exitCode(result);
            if (format == Format.TEXT) {
                terminal.out().println(result.answer());
                if (exit == ExitCodes.STEP_LIMIT) {
                    terminal.err().println("quiver: stopped at the step limit (" + result.steps()
                            + " model requests) before the task was done.");
                } else if (exit == ExitCodes.DENIED) {
                    terminal.err().println("quiver: the task ran into a refusal: a call needed approval or was refused.");
                }
                terminal.err().println(UsageLine.of(result.usage()) + " · session " + session.id());
            } else {
                ObjectNode json = turnJson(result, exit, listener.steps());
                resultFields(json, session.id(), result.steps(), exit, result.answer(), started);
                print(json, stream);
            }
            return exit;
        }
    }

    /** The result object: on its own line for json, as the last event for stream-json. */
    private void print(ObjectNode result, StreamJsonListener stream) {
        if (stream != null) {
            stream.result(result);
        } else {
            Output.line(terminal.out(), result);
        }
    }

    /**
     * The fields added after the original ones, named as Claude Code's result message names them so
     * that its scripts read them: {@code type}, {@code subtype}, {@code is_error}, {@code result} (the
     * answer; absent when the run failed, whose {@code error} says why), {@code session_id} (what
     * {@code --resume} takes), {@code num_turns} (model requests, as {@code steps}),
     * {@code total_cost_usd} (null when the model's price is unknown) and {@code duration_ms}.
     */
    static void resultFields(ObjectNode json, String sessionId, int modelRequests, int exit, String result, long startedNanos) {
        json.put("type", "result");
        json.put("subtype", switch (exit) {
            case ExitCodes.OK -> "success";
            case ExitCodes.STEP_LIMIT -> "error_max_turns";
            case ExitCodes.DENIED -> "error_denied";
            default -> "error_during_execution";
        });
        json.put("is_error", exit != ExitCodes.OK);
        if (result != null) {
            json.put("result", result);
        }
        json.put("session_id", sessionId);
        json.put("num_turns", modelRequests);
        json.set("total_cost_usd", json.path("usage").path("cost_usd").deepCopy());
        json.put("duration_ms", java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
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
