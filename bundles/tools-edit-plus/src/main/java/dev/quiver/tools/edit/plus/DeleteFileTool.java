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

/** {@code delete_file}: deletes one file (or one symbolic link, never what it points to), never a directory. */
@Component(property = {Tool.NAME + "=delete_file", Tool.SET + "=edit-plus", Tool.ACCESS + "=write"})
public class DeleteFileTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("delete_file",
            "Delete one file and report its size. Refuses directories; a link is removed, not its target.",
            """
            {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = Entries.entry(workspace, arguments.string("path"));
        String name = workspace.relativize(file);
        if (!Entries.exists(file)) {
            throw new ToolException("No such file: " + name);
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException(name + " is a directory; delete_file removes one file at a time. Delete the files "
                    + "in it, or the directory with bash (rm -r), if that is really intended.");
        }
        try {
            if (Files.isSymbolicLink(file)) {
                Path target = Files.readSymbolicLink(file);
                workspace.delete(file);
                return ToolResult.of("Deleted the link " + name + " (it pointed to " + target + "; that is untouched).");
            }
            long size = Files.size(file);
            workspace.delete(file);
            return ToolResult.of("Deleted " + name + " (" + Entries.count(size, "byte", "bytes") + ").");
        } catch (IOException e) {
            throw new ToolException("Cannot delete " + name + ": " + Entries.reason(workspace, e), e);
        }
    }
}
