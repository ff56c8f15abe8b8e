package dev.quiver.cli.terminal;

import dev.quiver.api.Shell;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What {@code /bash} prints, and which background command {@code ctrl-c} stops; plain functions. */
public final class JobsReport {

    private JobsReport() {
    }

    /** One line per background command, oldest first: handle, state, time, the line and its name. */
    public static List<String> lines(List<Shell.Job> jobs) {
        List<String> lines = new ArrayList<>();
        if (jobs.isEmpty()) {
            lines.add("No background commands.");
            return lines;
        }
        for (Shell.Job job : jobs) {
            String state = switch (job.state()) {
                case RUNNING -> "running";
                case EXITED -> "exited " + job.exitCode();
                case STOPPED -> "stopped";
            };
            lines.add(String.format("  %-5s %-10s %8s  %s%s%s", job.handle(), state, CallView.duration(job.elapsed().toMillis()),
                    CallView.oneLine(job.line()), job.name().isEmpty() ? "" : "  (" + job.name() + ")",
                    job.sandboxed() ? "" : "  [not sandboxed]"));
        }
        return lines;
    }

    /** The newest running background command. */
    public static Optional<Shell.Job> newestRunning(List<Shell.Job> jobs) {
        for (int i = jobs.size() - 1; i >= 0; i--) {
            if (jobs.get(i).state() == Shell.Job.State.RUNNING) {
                return Optional.of(jobs.get(i));
            }
        }
        return Optional.empty();
    }

    /** The running commands, for {@code /bash stop all}. */
    public static List<Shell.Job> running(List<Shell.Job> jobs) {
        return jobs.stream().filter(job -> job.state() == Shell.Job.State.RUNNING).toList();
    }
}
