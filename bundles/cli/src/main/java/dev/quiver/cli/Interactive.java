package dev.quiver.cli;

import dev.quiver.cli.terminal.Launch;
import dev.quiver.cli.terminal.TerminalFrontEnd;

/** Starts the interactive terminal from the root command's options. */
final class Interactive {

    private Interactive() {
    }

    /** @param firstPrompt sent as soon as the session is open, as if typed ({@code quiver "fix the build"}) */
    static int run(RootCommand root, java.util.Optional<String> firstPrompt) {
        Launch launch = new Launch(root.kernel, root.version, root.common.session(true, root.resumeChoice())
                .withRun(root.run()), root.services, root.terminal.in(), root.terminal.out(), root.terminal.err(),
                System.getenv(), null, root.systemTerminal, firstPrompt);
        return TerminalFrontEnd.run(launch);
    }
}
