package dev.quiver.tools.edit.plus;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** {@code move_file}: renames or moves a file or directory; both ends are permission subjects. */
@Component(property = {Tool.NAME + "=move_file", Tool.SET + "=edit-plus", Tool.ACCESS + "=write"})
public class MoveFileTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("move_file",
            "Move or rename a file or directory; creates missing parents. Refuses a missing source or an "
                    + "existing target.",
            Entries.FROM_TO_SCHEMA);

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return Entries.fromTo(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path source = Entries.entry(workspace, arguments.string("from"));
        String from = workspace.relativize(source);
        if (!Entries.exists(source)) {
            throw new ToolException("No such file or directory: " + from);
        }
        Path target = workspace.resolve(arguments.string("to"));
        String to = workspace.relativize(target);
        if (target.equals(source)) {
            throw new ToolException(from + " is already there; give another target.");
        }
        if (Entries.exists(target)) {
            throw new ToolException(to + " already exists. Delete it first or choose another target; move_file "
                    + "never overwrites.");
        }
        boolean directory = Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS);
        if (directory && target.startsWith(source)) {
            throw new ToolException("Cannot move " + from + " into itself (" + to + ").");
        }
        Entries.refuseExposingSecrets(workspace, source, target, "moving");
        boolean fresh = !directory && isFresh(workspace, source);
        try {
            // one rename, through the workspace's change: a failure removes the folders it made
            workspace.change("move_file").move(source, target).commit();
        } catch (IOException e) {
            throw new ToolException("Cannot move " + from + " to " + to + ". " + e.getMessage(), e);
        }
        if (fresh) {
            // the content the model read is the content now at the new path
            workspace.reads().wrote(target);
        }
        return ToolResult.of("Moved " + (directory ? "directory " : "") + from + " to " + to + ".");
    }

    private static boolean isFresh(Workspace workspace, Path file) {
        try {
            workspace.reads().requireFresh(file);
            return true;
        } catch (ToolException unread) {
            return false;
        }
    }
}
