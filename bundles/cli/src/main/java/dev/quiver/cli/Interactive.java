package dev.quiver.cli;

import dev.quiver.cli.terminal.Launch;
import dev.quiver.cli.terminal.TerminalFrontEnd;

/** Starts the interactive terminal from the root command's options. */
final class Interactive {

    private Interactive() {
    }

    static int run(RootCommand root) {
        Launch launch = new Launch(root.kernel, root.version, root.common.session(true, root.resumeChoice()),
                root.services, root.terminal.in(), root.terminal.out(), root.terminal.err(), System.getenv(), null,
                root.systemTerminal);
        return TerminalFrontEnd.run(launch);
    }
}
