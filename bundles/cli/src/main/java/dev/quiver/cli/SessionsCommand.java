package dev.quiver.cli;

import dev.quiver.api.host.SessionSummary;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** {@code quiver sessions}: the stored sessions of the workspace, newest first. */
@Command(name = "sessions", mixinStandardHelpOptions = true,
        description = "List the workspace's stored sessions (continue one with --resume ID or --continue)")
final class SessionsCommand implements Callable<Integer> {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Override
    public Integer call() {
        CommonOptions options = common.over(root.common);
        Path workspace = options.workspace != null ? options.workspace : Path.of("").toAbsolutePath();
        List<SessionSummary> sessions = root.kernel.sessions(workspace);
        if (sessions.isEmpty()) {
            root.terminal.out().println("No sessions yet in " + workspace + ".");
            return ExitCodes.OK;
        }
        for (SessionSummary session : sessions) {
            root.terminal.out().printf("%-22s %s  %3d prompts  %s%n", session.id(), TIME.format(session.updated()),
                    session.prompts(), session.title());
        }
        return ExitCodes.OK;
    }
}
