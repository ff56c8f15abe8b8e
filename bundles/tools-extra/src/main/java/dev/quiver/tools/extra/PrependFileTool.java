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

/** {@code prepend_file}: lines added before the first line of a file read earlier. */
@Component(property = {Tool.NAME + "=prepend_file", Tool.SET + "=extra", Tool.ACCESS + "=write"})
public class PrependFileTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("prepend_file",
            "Add lines at the start of an existing file read earlier (a license header, say), in its line endings.",
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
        file.insert(1, added);
        file.write(SPEC.name());
        return ToolResult.of("Prepended " + LineFile.lines(added.size()) + " to " + file.name + " (now "
                + LineFile.lines(file.count()) + "):\n" + file.shown(1, added.size()));
    }
}
