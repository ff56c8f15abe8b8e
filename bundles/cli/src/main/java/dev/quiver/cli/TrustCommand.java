package dev.quiver.cli;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TrustedWorkspace;
import dev.quiver.api.host.WorkspaceTrust;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code quiver trust [DIR]}, {@code --list}, {@code --revoke [DIR]}: the workspaces whose configuration
 * counts in full. Reads and writes the user's trust record only; starts nothing.
 */
@Command(name = "trust", mixinStandardHelpOptions = true,
        description = "Trust a workspace's configuration as it is now (default: the workspace), list or revoke trust")
final class TrustCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--list", description = "List the trusted workspaces")
    boolean list;

    @Option(names = "--revoke", description = "Forget the workspace's trust")
    boolean revoke;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "The workspace (default: --workspace or the current directory)")
    Path folder;

    @Override
    public Integer call() {
        PrintStream out = root.terminal.out();
        PrintStream err = root.terminal.err();
        if (list && (revoke || folder != null)) {
            err.println("quiver trust: --list takes no folder and no --revoke.");
            return ExitCodes.USAGE;
        }
        Path workspace = folder != null ? folder.toAbsolutePath() : common.over(root.common).root();
        try {
            if (list) {
                List<TrustedWorkspace> trusted = root.kernel.trustedWorkspaces();
                if (trusted.isEmpty()) {
                    out.println("No workspace is trusted.");
                }
                for (TrustedWorkspace entry : trusted) {
                    out.printf("%s  %s%s%n", Output.TIME.format(entry.since()), entry.root(),
                            entry.current() ? "" : "  (config changed since: untrusted until trusted again)");
                }
                return ExitCodes.OK;
            }
            if (revoke) {
                boolean had = root.kernel.revokeTrust(workspace);
                out.println(had ? "No longer trusted: " + workspace + "." : workspace + " was not trusted.");
                return ExitCodes.OK;
            }
            WorkspaceTrust before = root.kernel.workspaceTrust(workspace);
            Path trusted = root.kernel.trust(workspace);
            out.println("Trusted " + trusted + " as its configuration is now"
                    + (before.held().isEmpty() ? "." : "; it now counts in full: " + String.join(", ", before.held()) + ".")
                    + " A change to .quiver/config.json or .quiver/notes.md makes it untrusted again.");
            return ExitCodes.OK;
        } catch (HostException e) {
            err.println("quiver trust: " + e.getMessage());
            return ExitCodes.ERROR;
        }
    }
}
