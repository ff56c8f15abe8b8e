package dev.quiver.tools.core;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Text;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code edit_file}: replaces one occurrence of a text, or every exact one. A text not there exactly is
 * sought with the tolerances of {@link Text#replace} and taken only where it matches once.
 */
@Component(property = {Tool.NAME + "=edit_file", Tool.SET + "=core", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class EditFileTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("edit_file",
            "Replace text in a file read earlier. oldString should match exactly, indentation included, and "
                    + "occur once unless replaceAll. A unique near match (whitespace, indentation, Unicode quotes) "
                    + "is taken.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "oldString":{"type":"string","description":"Exact text, whitespace included"},\
            "newString":{"type":"string"},\
            "replaceAll":{"type":"boolean","description":"Replace every occurrence"}},\
            "required":["path","oldString","newString"]}""");

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
        Path file = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(file);
        String oldString = arguments.string("oldString");
        String newString = arguments.string("newString");
        boolean replaceAll = arguments.bool("replaceAll", false);
        if (oldString.isEmpty()) {
            throw new ToolException("oldString is empty. To create or replace a whole file, use write_file.");
        }
        if (oldString.equals(newString)) {
            throw new ToolException("oldString and newString are the same; there is nothing to change.");
        }
        workspace.reads().requireFresh(file);
        Workspace.TextFile current = workspace.readText(file);
        Text.Replacement edit = Text.replace(current.text(), oldString, newString, replaceAll, name);
        byte[] bytes = Text.encode(edit.text(), current.charset(), name);
        try {
            // compared with what the edit was made from right before the rename: another writer's bytes stay
            workspace.change("edit_file").replace(file, Text.encode(current.text(), current.charset(), name), bytes)
                    .commit();
        } catch (IOException e) {
            throw new ToolException(e.getMessage(), e); // the workspace names the file and what went wrong
        }
        workspace.reads().wrote(file);
        return ToolResult.of("Edited " + name + ": replaced " + edit.count()
                + (edit.count() == 1 ? " occurrence" : " occurrences") + " (from line " + edit.firstLine() + ")."
                + (edit.tolerated().isEmpty() ? "" : " Matched with " + edit.tolerated() + "."));
    }
}
