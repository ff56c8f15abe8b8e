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
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** {@code bash_stop}: kills a background command with every process it started, and waits until they are gone. */
@Component(property = {Tool.NAME + "=bash_stop", Tool.SET + "=core", Tool.ACCESS + "=execute"})
public class BashStopTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("bash_stop",
            "Stop a background command and everything it started.",
            """
            {"type":"object","properties":{\
            "handle":{"type":"string","description":"bg1, or the name given to bash"}},\
            "required":["handle"]}""");

    private final Shell shell;

    @Activate
    public BashStopTool(@Reference Shell shell) {
        this.shell = shell;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.name(arguments.string("handle")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String handle = arguments.string("handle");
        boolean wasRunning = shell.jobs().stream()
                .anyMatch(job -> job.state() == Shell.Job.State.RUNNING
                        && (job.handle().equals(handle.strip()) || job.name().equals(handle.strip())));
        Shell.Poll poll = shell.stop(handle);
        Shell.Job job = poll.job();
        String who = job.handle() + (job.name().isEmpty() ? "" : " (\"" + job.name() + "\")");
        String head = job.state() == Shell.Job.State.STOPPED && wasRunning
                ? "Stopped " + who + " after " + BashTool.duration(job.elapsed())
                        + ": killed with every process it started."
                : "It had already ended: " + BashStatusTool.describe(job);
        return ToolResult.of(head + BashTool.streams(poll.stdout(), poll.stderr(), ""));
    }
}
