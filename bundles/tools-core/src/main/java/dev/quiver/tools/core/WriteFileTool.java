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
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** {@code write_file}: creates a file or replaces all of it. */
@Component(property = {Tool.NAME + "=write_file", Tool.SET + "=core", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class WriteFileTool implements Tool {

    /** A rewrite of a file of at least this many lines that removes most of its line breaks is flagged. */
    static final int COLLAPSE_MIN_LINES = 3;

    private static final ToolSpec SPEC = new ToolSpec("write_file",
            "Create a file, or replace all of an existing one after reading it. Creates parent directories.",
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
        return List.of(Subject.path(arguments.string("path")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = workspace.resolve(arguments.string("path"));
        String content = arguments.string("content");
        String name = workspace.relativize(file);
        if (Files.isDirectory(file)) {
            throw new ToolException(name + " is a directory; give a file path.");
        }
        boolean existed = Files.exists(file);
        int oldLines = 0;
        int oldBreaks = 0;
        Charset charset = StandardCharsets.UTF_8;
        byte[] before = null;
        boolean compared = true; // a file too large to read whole is replaced without comparing
        if (existed) {
            requireFresh(workspace, file, name);
            try {
                Workspace.TextFile old = workspace.readText(file);
                oldLines = Text.lines(old.text()).size();
                oldBreaks = lineBreaks(old.text());
                charset = old.charset();
                before = Text.encode(old.text(), charset, name);
                // a rewrite keeps the file's line endings, as edits do: \n content into a CRLF file stays CRLF
                if (Text.lineEnding(old.text()).equals("\r\n") && content.indexOf('\n') >= 0
                        && !content.contains("\r\n")) {
                    content = content.replace("\n", "\r\n");
                }
            } catch (ToolException hugeOrUnreadable) {
                // a very large file is simply replaced; there are no lines to compare
                compared = false;
            }
            if (compared) {
                // checked again after the read: what is compared before the rename is then what the model read,
                // so a line another program appended since is never replaced away
                workspace.reads().requireFresh(file);
            }
        }
        byte[] bytes = Text.encode(content, charset, name);
        try {
            Workspace.Change change = workspace.change("write_file");
            // compared right before the rename with what was read (or: still no such file), so that
            // another program's write meanwhile is never dropped; a failed write removes the folders it made
            (compared ? change.replace(file, before, bytes) : change.write(file, bytes)).commit();
        } catch (IOException e) {
            throw new ToolException(e.getMessage(), e); // the workspace names the file and what went wrong
        }
        workspace.reads().wrote(file);
        int newLines = Text.lines(content).size();
        StringBuilder result = new StringBuilder()
                .append(existed ? "Replaced " : "Created ").append(name).append(" (").append(newLines)
                .append(newLines == 1 ? " line, " : " lines, ").append(bytes.length).append(" bytes).");
        // a model whose line breaks got lost (or escaped) writes a few long lines: say so while it can be undone
        if (existed && oldLines >= COLLAPSE_MIN_LINES && lineBreaks(content) * 2 < oldBreaks) {
            result.append(" Note: it had ").append(oldLines).append(" lines and now has ").append(newLines)
                    .append(". If you meant to change only part of it, restore it and use edit_file.");
        }
        return ToolResult.of(result.toString());
    }

    /** How many line breaks a text has: each {@code \n}, {@code \r\n} or lone {@code \r}. */
    private static int lineBreaks(String text) {
        int breaks = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n')) {
                breaks++;
            }
        }
        return breaks;
    }

    /** The read-before-write rule, with advice that works for a file read_file cannot show: a binary one. */
    private static void requireFresh(Workspace workspace, Path file, String name) throws ToolException {
        try {
            workspace.reads().requireFresh(file);
        } catch (ToolException unread) {
            try {
                workspace.readLines(file, 1, 1);
            } catch (ToolException unshowable) {
                // "read it first" would lead nowhere
                throw new ToolException(name + " cannot be read with read_file, so it cannot be overwritten unseen: "
                        + unshowable.getMessage() + " If replacing it is intended, delete it first, then write it.");
            }
            throw unread;
        }
    }
}
