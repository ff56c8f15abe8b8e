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

/** {@code create_directory}: a directory with every missing parent ({@code mkdir -p}). */
@Component(property = {Tool.NAME + "=create_directory", Tool.SET + "=edit-plus", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class CreateDirectoryTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("create_directory",
            "Create a directory and any missing parents. An existing directory is left as it is.",
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
        Path directory = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(directory);
        if (Files.isDirectory(directory)) {
            return ToolResult.of(name + " already exists; nothing to do.");
        }
        if (Files.exists(directory)) {
            throw new ToolException(name + " exists and is a file, not a directory. Choose another name.");
        }
        for (Path parent = directory.getParent(); parent != null && parent.startsWith(workspace.root());
                parent = parent.getParent()) {
            if (Files.exists(parent)) {
                if (!Files.isDirectory(parent)) {
                    throw new ToolException("Cannot create " + name + ": " + workspace.relativize(parent)
                            + " is a file, not a directory.");
                }
                break;
            }
        }
        try {
            workspace.createDirectories(directory);
        } catch (IOException e) {
            throw new ToolException("Cannot create " + name + ": " + Entries.reason(workspace, e), e);
        }
        return ToolResult.of("Created directory " + name + ".");
    }
}
