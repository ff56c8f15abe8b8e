package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.List;

/**
 * {@code append_file} and {@code prepend_file}: lines added at one end of a file read earlier. A component
 * extending it names {@code service = Tool.class}: DS offers only the interfaces a class implements itself.
 */
abstract class EndLinesTool implements Tool {

    private final ToolSpec spec;
    private final boolean atEnd;

    EndLinesTool(String name, String description, boolean atEnd) {
        this.spec = new ToolSpec(name, description, """
                {"type":"object","properties":{\
                "path":{"type":"string"},\
                "content":{"type":"string"}},\
                "required":["path","content"]}""");
        this.atEnd = atEnd;
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return LineFile.pathSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        List<String> added = LineFile.contentLines(arguments);
        LineFile file = LineFile.forChange(context.workspace(), arguments.string("path"));
        int first = atEnd ? file.count() + 1 : 1;
        file.insert(first, added);
        file.write(spec.name());
        return ToolResult.of((atEnd ? "Appended " : "Prepended ") + LineFile.lines(added.size()) + " to " + file.name
                + " (now " + LineFile.lines(file.count()) + "):\n" + file.shown(first, first + added.size() - 1));
    }
}
