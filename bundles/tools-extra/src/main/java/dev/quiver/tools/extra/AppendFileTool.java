package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** {@code append_file}: lines added after the last line of a file read earlier. */
@Component(property = {Tool.NAME + "=append_file", Tool.SET + "=extra", Tool.ACCESS + "=write"})
public class AppendFileTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("append_file",
            "Add lines at the end of an existing file read earlier, in its line endings.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "content":{"type":"string"}},\
            "required":["path","content"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return LineFile.pathSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        List<String> added = LineFile.contentLines(arguments);
        LineFile file = LineFile.forChange(context.workspace(), arguments.string("path"));
        int first = file.count() + 1;
        file.insert(first, added);
        file.write(SPEC.name());
        return ToolResult.of("Appended " + LineFile.lines(added.size()) + " to " + file.name + " (now "
                + LineFile.lines(file.count()) + "):\n" + file.shown(first, file.count()));
    }
}
