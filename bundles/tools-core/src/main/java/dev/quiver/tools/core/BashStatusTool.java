package dev.quiver.tools.core;

import dev.quiver.api.Arguments;
import dev.quiver.api.Shell;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.List;
import java.util.Optional;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code bash_status}: whether a background command runs or how it ended, and the output it printed
 * since the previous look; without a handle, the list of background commands.
 *
 * <p>Access {@code state}: it runs nothing and reads no file; it reads and advances the agent's own
 * cursor into the output of a command that was already approved when {@code bash} started it.
 * {@code read} is for tools that read the workspace.
 */
@Component(property = {Tool.NAME + "=bash_status", Tool.SET + "=core", Tool.ACCESS + "=state"})
public class BashStatusTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("bash_status",
            "A background command's state and its output since the last bash_status. No handle: list them.",
            """
            {"type":"object","properties":{\
            "handle":{"type":"string","description":"bg1, or the name given to bash"}}}""");

    private final Shell shell;

    @Activate
    public BashStatusTool(@Reference Shell shell) {
        this.shell = shell;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        Optional<String> handle = arguments.optionalString("handle");
        return handle.isPresent() ? List.of(Subject.name(handle.get())) : List.of();
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Optional<String> handle = arguments.optionalString("handle").filter(h -> !h.isBlank());
        if (handle.isEmpty()) {
            return ToolResult.of(list(shell.jobs()));
        }
        Shell.Poll poll = shell.poll(handle.get());
        return ToolResult.of(describe(poll.job()) + BashTool.streams(poll.stdout(), poll.stderr(), " No new output."));
    }

    /** One sentence: {@code bg1 ("web") is running (12.0 s so far).} */
    static String describe(Shell.Job job) {
        String who = job.handle() + (job.name().isEmpty() ? "" : " (\"" + job.name() + "\")");
        return switch (job.state()) {
            case RUNNING -> who + " is running (" + BashTool.duration(job.elapsed()) + " so far).";
            case EXITED -> who + " exited with code " + BashTool.exitCode(job.exitCode()) + " after "
                    + BashTool.duration(job.elapsed()) + ".";
            case STOPPED -> who + " was stopped after " + BashTool.duration(job.elapsed())
                    + ", killed with every process it started.";
        };
    }

    private static String list(List<Shell.Job> jobs) {
        if (jobs.isEmpty()) {
            return "No background commands. Start one with bash and background: true.";
        }
        StringBuilder out = new StringBuilder();
        for (Shell.Job job : jobs) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append(describe(job)).append(" $ ").append(job.line().strip().replace('\n', ' '));
        }
        return out.toString();
    }
}
