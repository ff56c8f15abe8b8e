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

/** {@code delete_lines}: removes an inclusive 1-based range of lines from a file read earlier. */
@Component(property = {Tool.NAME + "=delete_lines", Tool.SET + "=extra", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class DeleteLinesTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("delete_lines",
            "Delete lines start to end (1-based, inclusive) of a file read earlier. Not the whole file: "
                    + "use delete_file for that.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "start":{"type":"integer"},\
            "end":{"type":"integer","description":"Default: start"}},\
            "required":["path","start"]}""");

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
        LineFile file = LineFile.forChange(context.workspace(), arguments.string("path"));
        int[] range = range(file, arguments);
        int start = range[0];
        int end = range[1];
        if (start == 1 && end == file.count()) {
            throw new ToolException("That is every line of " + file.name + " (" + LineFile.lines(file.count())
                    + "). To remove the file use delete_file; to empty it, write_file with empty content.");
        }
        file.delete(start, end);
        file.write(SPEC.name());
        int removed = end - start + 1;
        return ToolResult.of("Deleted " + (removed == 1 ? "line " + start : "lines " + start + "-" + end) + " of "
                + file.name + " (now " + LineFile.lines(file.count()) + "):\n" + file.shown(start, start - 1));
    }

    /** An inclusive range of existing lines: {@code start}, and {@code end} (default {@code start}). */
    static int[] range(LineFile file, Arguments arguments) throws ToolException {
        if (file.count() == 0) {
            throw new ToolException(file.name + " is empty: it has no lines. Add some with append_file.");
        }
        int start = file.line(arguments, "start", 0);
        int end = arguments.has("end") ? file.line(arguments, "end", 0) : start;
        if (end < start) {
            throw new ToolException("end " + end + " is before start " + start + "; the range is inclusive, so "
                    + "end = start covers one line.");
        }
        return new int[] {start, end};
    }
}
