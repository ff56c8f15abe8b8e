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
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** {@code read_file}: a numbered window of a text file. */
@Component(property = {Tool.NAME + "=read_file", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class ReadFileTool implements Tool {

    static final int DEFAULT_LIMIT = 2000;
    static final int MAX_LIMIT = 100_000;
    /**
     * The characters a window may take, under the kernel's 30,000-character cap on a result, so that the
     * cap never cuts a window unannounced: the header's continuation offset is always the first line not shown.
     */
    static final int OUTPUT_BUDGET = 28_000;

    private static final ToolSpec SPEC = new ToolSpec("read_file",
            "Read a text file as 1-based numbered lines, under a header giving the window and the line count. "
                    + "Refuses binary files. Read a file before changing it.",
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
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        return ToolResult.of(Text.window(workspace.relativize(file), lines(workspace, file, offset, limit), offset,
                limit, OUTPUT_BUDGET));
    }

    /**
     * A file's lines for a window of {@code limit} lines from {@code offset}, recorded as read for the
     * read-before-write rule. read_file and read_many_files both read files through here. The list has
     * as many elements as the file has lines, but only the window's can be taken from it: a file too
     * large to hold whole is read as a stream that keeps only those.
     *
     * @throws ToolException when the file cannot be read as text, or the offset is past its end
     */
    static List<String> lines(Workspace workspace, Path file, int offset, int limit) throws ToolException {
        Workspace.TextWindow window = workspace.readLines(file, offset, limit);
        if (offset > Math.max(window.total(), 1)) {
            throw new ToolException("offset " + offset + " is past the end of " + workspace.relativize(file)
                    + ", which has " + window.total() + (window.total() == 1 ? " line." : " lines."));
        }
        workspace.reads().read(file);
        return new AbstractList<>() {
            @Override
            public String get(int index) {
                int inWindow = index - (offset - 1);
                if (inWindow < 0 || inWindow >= window.lines().size()) {
                    throw new IndexOutOfBoundsException("line " + (index + 1) + " is outside the window read");
                }
                return window.lines().get(inWindow);
            }

            @Override
            public int size() {
                return window.total();
            }
        };
    }
}
