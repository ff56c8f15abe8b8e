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
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code copy_path}: copies a file, or a directory with everything in it, to a path that does not exist
 * yet. A file is copied through a link to it; inside a copied directory links stay links and are never
 * followed, so a copy cannot pull anything in from outside the workspace. Permissions are kept.
 */
@Component(property = {Tool.NAME + "=copy_path", Tool.SET + "=edit-plus", Tool.ACCESS + "=write"})
public class CopyPathTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("copy_path",
            "Copy a file, or a directory with its contents, to a new path. Refuses an existing target; creates "
                    + "missing parents.",
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
        Path source = workspace.resolve(arguments.string("from"));
        String from = workspace.relativize(source);
        if (!Files.exists(source)) {
            throw new ToolException("No such file or directory: " + from);
        }
        if (source.equals(workspace.root())) {
            throw new ToolException("That is the workspace root; copy a directory inside it.");
        }
        Path target = workspace.resolve(arguments.string("to"));
        String to = workspace.relativize(target);
        if (Entries.exists(target)) {
            throw new ToolException(to + " already exists. Delete it first or choose another target; copy_path "
                    + "never overwrites.");
        }
        if (Files.isDirectory(source) && target.startsWith(source)) {
            throw new ToolException("Cannot copy " + from + " into itself (" + to + ").");
        }
        if (!Files.isDirectory(source) && !Files.isRegularFile(source)) {
            throw new ToolException(from + " is not a regular file or directory (a pipe, socket or device).");
        }
        Entries.refuseExposingSecrets(workspace, source, target, "copying");
        boolean file = Files.isRegularFile(source);
        try {
            // copied whole under a temporary name next to the target, then renamed into place: a failed or
            // killed copy leaves neither half a folder nor the folders it made (the next start sweeps it)
            workspace.change("copy_path").copy(source, target).commit();
        } catch (IOException e) {
            throw new ToolException("Cannot copy " + from + " to " + to + ". " + e.getMessage(), e);
        }
        if (file) {
            return ToolResult.of("Copied " + from + " to " + to + " (" + Entries.count(size(target), "byte", "bytes")
                    + ").");
        }
        int[] counts = new int[2]; // files (links included), folders
        try {
            workspace.walk(target, true, Integer.MAX_VALUE, entry -> {
                counts[entry.kind() == Workspace.Entry.Kind.DIRECTORY ? 1 : 0]++;
                return true;
            });
        } catch (IOException e) {
            // the copy is made; only its tally is missing
        }
        return ToolResult.of("Copied directory " + from + " to " + to + " (" + Entries.count(counts[0], "file", "files")
                + ", " + Entries.count(counts[1], "subdirectory", "subdirectories") + ").");
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }
}
