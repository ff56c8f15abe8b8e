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

/** {@code replace_lines}: puts new lines in place of an inclusive 1-based range, in one write. */
@Component(property = {Tool.NAME + "=replace_lines", Tool.SET + "=extra", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class ReplaceLinesTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("replace_lines",
            "Replace lines start to end (1-based, inclusive) of a file read earlier with content, in one write. "
                    + "Use when line numbers are known; edit_file when the text is.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "start":{"type":"integer"},\
            "end":{"type":"integer","description":"Default: start"},\
            "content":{"type":"string","description":"The new lines"}},\
            "required":["path","start","content"]}""");

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
        int[] range = DeleteLinesTool.range(file, arguments);
        file.replace(range[0], range[1], added);
        file.write(SPEC.name());
        return ToolResult.of("Replaced " + (range[0] == range[1] ? "line " + range[0] : "lines " + range[0] + "-"
                + range[1]) + " of " + file.name + " with " + LineFile.lines(added.size()) + " (now "
                + LineFile.lines(file.count()) + "):\n" + file.shown(range[0], range[0] + added.size() - 1));
    }
}
