package dev.quiver.tools.core;

import dev.quiver.api.Arguments;
import dev.quiver.api.Shell;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code bash}: one command in the workspace root through the {@link Shell} service, in the
 * foreground (its result) or in the background (a handle for {@code bash_status} and {@code bash_stop}).
 */
@Component(property = {Tool.NAME + "=bash", Tool.SET + "=core", Tool.ACCESS + "=execute"})
public class BashTool implements Tool {

    static final int DEFAULT_TIMEOUT_MS = 120_000;
    static final int MAX_TIMEOUT_MS = 600_000;

    private static final ToolSpec SPEC = new ToolSpec("bash",
            "Run a command with bash -lc in the workspace root. background: true returns a handle at once, "
                    + "for bash_status/bash_stop.",
            """
            {"type":"object","properties":{\
            "command":{"type":"string"},\
            "timeout":{"type":"integer","description":"ms, default 120000, max 600000"},\
            "background":{"type":"boolean"},\
            "name":{"type":"string","description":"for background"}},\
            "required":["command"]}""");

    private final Shell shell;

    @Activate
    public BashTool(@Reference Shell shell) {
        this.shell = shell;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.command(arguments.string("command")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String command = arguments.string("command");
        if (command.isBlank()) {
            throw new ToolException("command is empty. Give the shell command to run.");
        }
        int timeout = arguments.integer("timeout", DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS);
        if (arguments.bool("background", false)) {
            Shell.Job job = shell.start(command, arguments.string("name", null), context);
            return ToolResult.of("Started in the background as " + job.handle()
                    + (job.name().isEmpty() ? "" : " (\"" + job.name() + "\")")
                    + (job.sandboxed() ? ", sandboxed" : ", not sandboxed")
                    + ". It runs until it ends or bash_stop stops it, and is killed when Quiver exits. "
                    + "Read its output with bash_status." + (arguments.has("timeout")
                            ? " The timeout does not apply to background commands." : ""));
        }
        Shell.Result result = shell.run(new Shell.Command(command, Duration.ofMillis(timeout)), context);
        String output = streams(result.stdout(), result.stderr(), " No output.");
        switch (result.end()) {
            case TIMED_OUT -> throw new ToolException("The command timed out after " + timeout + " ms and was killed "
                    + "with every process it started. It did not finish, so its effects are unknown." + output);
            case CANCELLED -> throw new ToolException("The command was interrupted and killed with every process it "
                    + "started. It did not finish, so its effects are unknown." + output);
            default -> {
                return ToolResult.of("Exit code " + exitCode(result.exitCode()) + "." + output);
            }
        }
    }

    /** {@code 0}, or {@code 137 (ended by signal 9, SIGKILL)}. */
    static String exitCode(int code) {
        String note = signalNote(code);
        return code + (note.isEmpty() ? "" : " (" + note + ")");
    }

    /** The {@code stdout:} and {@code stderr:} sections, or {@code none} when both are empty. */
    static String streams(String stdout, String stderr, String none) {
        StringBuilder out = new StringBuilder();
        if (!stdout.isEmpty()) {
            out.append("\nstdout:\n").append(stdout);
        }
        if (!stderr.isEmpty()) {
            if (out.length() == 0 || out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
            out.append("stderr:\n").append(stderr);
        }
        if (out.length() == 0) {
            out.append(none);
        }
        return out.toString();
    }

    /** How long something ran, for people: {@code 0.4 s}, {@code 12.0 s}, {@code 3 min 5 s}. */
    static String duration(Duration elapsed) {
        long millis = elapsed.toMillis();
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        return seconds / 60 + " min " + seconds % 60 + " s";
    }

    /** bash reports a child ended by signal N as exit code 128 + N. */
    static String signalNote(int exitCode) {
        if (exitCode <= 128 || exitCode > 128 + 64) {
            return "";
        }
        int signal = exitCode - 128;
        String name = switch (signal) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 3 -> "SIGQUIT";
            case 6 -> "SIGABRT";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 13 -> "SIGPIPE";
            case 15 -> "SIGTERM";
            default -> "signal " + signal;
        };
        return "ended by signal " + signal + ", " + name;
    }
}
