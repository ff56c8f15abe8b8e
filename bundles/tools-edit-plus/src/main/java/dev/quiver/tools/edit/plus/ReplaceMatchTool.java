package dev.quiver.tools.edit.plus;

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
 * {@code replace_match}: replaces the text at one line and column, after checking that the expected old
 * text is exactly there. For the occurrence grep pointed at, when the same text occurs elsewhere too.
 */
@Component(property = {Tool.NAME + "=replace_match", Tool.SET + "=edit-plus", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class ReplaceMatchTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("replace_match",
            "Replace oldString where it starts at a 1-based line and column (in characters) of a file read earlier, "
                    + "such as a grep hit; nothing changes unless oldString is exactly there. In a CRLF file \\n "
                    + "stands for \\r\\n.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "line":{"type":"integer"},\
            "column":{"type":"integer"},\
            "oldString":{"type":"string"},\
            "newString":{"type":"string"}},\
            "required":["path","line","column","oldString","newString"]}""");

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
        int line = required(arguments, "line");
        int column = required(arguments, "column");
        String oldString = arguments.string("oldString");
        String newString = arguments.string("newString");
        if (oldString.isEmpty()) {
            throw new ToolException("oldString is empty. Give the text that starts at line " + line + ", column "
                    + column + "; to insert, include a character next to the insertion point in both strings.");
        }
        workspace.reads().requireFresh(file);
        Workspace.TextFile current = workspace.readText(file);
        String text = current.text();
        int lineStart = lineStart(text, line);
        if (lineStart < 0) {
            throw new ToolException("line " + line + " is past the end of " + name + ", which has "
                    + Entries.count(Text.lines(text).size(), "line", "lines") + ". Nothing was changed.");
        }
        int lineEnd = lineEnd(text, lineStart);
        String lineText = text.substring(lineStart, lineEnd);
        int lineLength = lineText.codePointCount(0, lineText.length());
        if (column > lineLength + 1) {
            throw new ToolException("column " + column + " is past the end of line " + line + " of " + name
                    + ", which has " + Entries.count(lineLength, "character", "characters") + ". Nothing was changed.");
        }
        int at = lineText.offsetByCodePoints(0, column - 1) + lineStart;
        boolean crlf = text.contains("\r\n");
        String search = oldString;
        String replacement = newString;
        if (crlf && oldString.contains("\n") && !oldString.contains("\r\n") && !text.startsWith(oldString, at)) {
            search = oldString.replace("\n", "\r\n");
        }
        if (crlf && !newString.contains("\r\n")) {
            replacement = newString.replace("\n", "\r\n");
        }
        if (!text.startsWith(search, at)) {
            throw new ToolException(mismatch(text, lineText, line, column, search, name));
        }
        String result = text.substring(0, at) + replacement + text.substring(at + search.length());
        byte[] bytes = Text.encode(result, current.charset(), name);
        try {
            workspace.change("replace_match").replace(file, Text.encode(text, current.charset(), name), bytes)
                    .commit();
        } catch (IOException e) {
            throw new ToolException(e.getMessage(), e); // the workspace names the file and what went wrong
        }
        workspace.reads().wrote(file);
        return ToolResult.of("Replaced " + Entries.count(search.codePointCount(0, search.length()), "character",
                "characters") + " at " + name + ":" + line + ":" + column + ".");
    }

    private static int required(Arguments arguments, String name) throws ToolException {
        if (!arguments.has(name)) {
            throw new ToolException("Missing required argument '" + name + "' (a whole number, 1-based).");
        }
        return arguments.integer(name, 1, 1, Integer.MAX_VALUE);
    }

    /** The index where a 1-based line starts, or -1 past the end. */
    private static int lineStart(String text, int line) {
        int index = 0;
        for (int current = 1; current < line; current++) {
            int end = lineEnd(text, index);
            if (end >= text.length()) {
                return -1;
            }
            index = end + (text.charAt(end) == '\r' && end + 1 < text.length() && text.charAt(end + 1) == '\n' ? 2 : 1);
            if (index >= text.length()) {
                return -1;
            }
        }
        return text.isEmpty() ? (line == 1 ? 0 : -1) : index;
    }

    private static int lineEnd(String text, int start) {
        int end = start;
        while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
            end++;
        }
        return end;
    }

    /** What is there instead, and where oldString is if it is somewhere else. */
    private static String mismatch(String text, String lineText, int line, int column, String search, String name) {
        int at = lineText.offsetByCodePoints(0, column - 1);
        String there = lineText.substring(at);
        String shown = there.length() > 60 ? there.substring(0, 60) + "..." : there;
        StringBuilder message = new StringBuilder("Line ").append(line).append(", column ").append(column).append(" of ")
                .append(name).append(" holds \"").append(shown).append("\", not oldString. ");
        String firstLine = search.lines().findFirst().orElse(search);
        int onLine = lineText.indexOf(firstLine);
        if (onLine >= 0 && search.indexOf('\n') < 0) {
            message.append("It starts at column ").append(lineText.codePointCount(0, onLine) + 1)
                    .append(" of that line. ");
        } else {
            int elsewhere = text.indexOf(search);
            if (elsewhere >= 0) {
                int lineOf = Text.lineOf(text, elsewhere);
                int start = elsewhere;
                while (start > 0 && text.charAt(start - 1) != '\n' && text.charAt(start - 1) != '\r') {
                    start--;
                }
                message.append("It first occurs at line ").append(lineOf).append(", column ")
                        .append(text.codePointCount(start, elsewhere) + 1).append(". ");
            } else {
                message.append("oldString is not in the file. ").append(Text.closestRegion(text, search)).append(' ');
            }
        }
        return message.append("Nothing was changed.").toString();
    }
}
