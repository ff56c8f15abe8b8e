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

/** {@code insert_lines}: new lines before a 1-based line of a file read earlier. */
@Component(property = {Tool.NAME + "=insert_lines", Tool.SET + "=extra", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class InsertLinesTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("insert_lines",
            "Insert lines before a 1-based line of a file read earlier; line = last line + 1 appends. "
                    + "Keeps the file's line endings. For changes by content, use edit_file.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "line":{"type":"integer","description":"Insert before this line"},\
            "content":{"type":"string"}},\
            "required":["path","line","content"]}""");

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
        int line = file.line(arguments, "line", 1);
        file.insert(line, added);
        file.write(SPEC.name());
        return ToolResult.of("Inserted " + LineFile.lines(added.size()) + " at line " + line + " of " + file.name
                + " (now " + LineFile.lines(file.count()) + "):\n" + file.shown(line, line + added.size() - 1));
    }
}
