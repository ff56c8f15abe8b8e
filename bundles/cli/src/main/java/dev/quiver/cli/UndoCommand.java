package dev.quiver.cli;

import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.HostException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code quiver undo [--list] [--to N] [--force]}: restores the files the workspace's last turns
 * changed, created or deleted, from the checkpoints Quiver records before every call that can change
 * files. Needs no model and reads no configuration.
 */
@Command(name = "undo", mixinStandardHelpOptions = true,
        description = "Restore the files the last turns changed, created or deleted (--list shows the turns)")
final class UndoCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--list", description = "List the turns that can be undone, newest first, numbered")
    boolean list;

    @Option(names = "--to", paramLabel = "N", description = "Undo the turns numbered 1 to N by --list, the last N (default 1)")
    Integer to;

    @Option(names = "--force", description = "Also restore files changed since by someone else (they are skipped otherwise)")
    boolean force;

    @Override
    public Integer call() {
        PrintStream out = root.terminal.out();
        PrintStream err = root.terminal.err();
        if (list && (to != null || force)) {
            err.println("quiver undo: --list takes no --to and no --force.");
            return ExitCodes.USAGE;
        }
        Path workspace = common.over(root.common).root();
        try {
            if (list) {
                List<Checkpoint> checkpoints = root.kernel.checkpoints(workspace);
                if (checkpoints.isEmpty()) {
                    out.println("No turn to undo in " + workspace + ".");
                    return ExitCodes.OK;
                }
                UndoText.list(checkpoints).forEach(out::println);
                return ExitCodes.OK;
            }
            UndoText.lines(root.kernel.undo(workspace, to == null ? 1 : to, force)).forEach(out::println);
            return ExitCodes.OK;
        } catch (HostException e) {
            err.println("quiver undo: " + e.getMessage());
            return ExitCodes.ERROR;
        }
    }
}
