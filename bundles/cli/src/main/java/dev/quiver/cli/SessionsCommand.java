package dev.quiver.cli;

import dev.quiver.api.host.SessionSummary;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** {@code quiver sessions}: the stored sessions of the workspace, newest first. */
@Command(name = "sessions", mixinStandardHelpOptions = true,
        description = "List the workspace's stored sessions (continue one with --resume ID or --continue)")
final class SessionsCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Override
    public Integer call() {
        Path workspace = common.over(root.common).root();
        List<SessionSummary> sessions = root.kernel.sessions(workspace);
        if (sessions.isEmpty()) {
            root.terminal.out().println("No sessions yet in " + workspace + ".");
            return ExitCodes.OK;
        }
        for (SessionSummary session : sessions) {
            root.terminal.out().printf("%-22s %s  %3d prompts  %s%n", session.id(), Output.TIME.format(session.updated()),
                    session.prompts(), session.title());
        }
        return ExitCodes.OK;
    }
}
