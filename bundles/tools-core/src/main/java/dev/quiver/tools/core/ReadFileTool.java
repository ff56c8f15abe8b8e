package dev.quiver.tools.core;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** {@code read_file}: a numbered window of a text file. */
@Component(property = {Tool.NAME + "=read_file", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class ReadFileTool implements Tool {

    static final int DEFAULT_LIMIT = 2000;

    private static final ToolSpec SPEC = new ToolSpec("read_file",
            "Read a text file with 1-based line numbers. Refuses binary files.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"Relative to the workspace root"},\
            "offset":{"type":"integer","description":"First line, 1-based"},\
            "limit":{"type":"integer","description":"Max lines, default 2000"}},\
            "required":["path"]}""");

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
        int offset = arguments.integer("offset", 1, 1, Integer.MAX_VALUE);
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, 100_000);
        String name = workspace.relativize(file);
        List<String> lines = TextLines.split(workspace.readText(file).text());
        if (offset > Math.max(lines.size(), 1)) {
            throw new ToolException("offset " + offset + " is past the end of " + name + ", which has "
                    + lines.size() + " lines.");
        }
        return ToolResult.of(TextLines.window(name, lines, offset, limit));
    }
}
