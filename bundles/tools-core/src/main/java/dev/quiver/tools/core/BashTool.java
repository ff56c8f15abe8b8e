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
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** {@code bash}: one command in the workspace root, through the {@link Shell} service. */
@Component(property = {Tool.NAME + "=bash", Tool.SET + "=core", Tool.ACCESS + "=execute"})
public class BashTool implements Tool {

    static final int DEFAULT_TIMEOUT_MS = 120_000;
    static final int MAX_TIMEOUT_MS = 600_000;

    private static final ToolSpec SPEC = new ToolSpec("bash",
            "Run a command with bash -lc in the workspace root. Returns exit code, stdout and stderr.",
            """
            {"type":"object","properties":{\
            "command":{"type":"string"},\
            "timeout":{"type":"integer","description":"ms, default 120000, max 600000"}},\
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
        Shell.Result result = shell.run(new Shell.Command(command, Duration.ofMillis(timeout)), context);
        String output = streams(result);
        switch (result.end()) {
            case TIMED_OUT -> throw new ToolException("The command timed out after " + timeout + " ms and was killed "
                    + "with every process it started. It did not finish, so its effects are unknown." + output);
            case CANCELLED -> throw new ToolException("The command was interrupted and killed with every process it "
                    + "started. It did not finish, so its effects are unknown." + output);
            default -> {
                String note = signalNote(result.exitCode());
                return ToolResult.of("Exit code " + result.exitCode() + (note.isEmpty() ? "" : " (" + note + ")") + "."
                        + output);
            }
        }
    }

    private static String streams(Shell.Result result) {
        StringBuilder out = new StringBuilder();
        if (!result.stdout().isEmpty()) {
            out.append("\nstdout:\n").append(result.stdout());
        }
        if (!result.stderr().isEmpty()) {
            if (out.length() == 0 || out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
            out.append("stderr:\n").append(result.stderr());
        }
        if (out.length() == 0) {
            out.append(" No output.");
        }
        return out.toString();
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
