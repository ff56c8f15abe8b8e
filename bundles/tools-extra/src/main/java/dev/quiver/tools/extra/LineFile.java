package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Text;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A text file as lines, each with its own terminator, for the line-editing tools: read under the
 * read-before-write rule as {@code edit_file} reads, changed by 1-based inclusive line numbers, and
 * written back in the charset it was read in. Lines the tools add get the file's line ending, and a
 * file that did not end with a line break still does not.
 */
final class LineFile {

    /** How many lines around a change are shown with it. */
    private static final int CONTEXT = 2;
    /** Changed lines shown at most; the rest is summed up. */
    private static final int SHOWN = 30;

    final String name;
    private final Workspace workspace;
    private final Path file;
    private final Charset charset;
    private final String newline;
    /** The text the change is made from, which the file must still hold when it is replaced. */
    private final String original;
    private final List<String> lines = new ArrayList<>();
    /** Each line's terminator: {@code \n}, {@code \r\n}, {@code \r}, or empty for a last line without one. */
    private final List<String> endings = new ArrayList<>();

    private LineFile(Workspace workspace, Path file, String text, Charset charset) {
        this.workspace = workspace;
        this.file = file;
        this.name = workspace.relativize(file);
        this.charset = charset;
        this.original = text;
        this.newline = Text.lineEnding(text);
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                int end = c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n' ? i + 2 : i + 1;
                lines.add(text.substring(start, i));
                endings.add(text.substring(i, end));
                i = end - 1;
                start = end;
            }
        }
        if (start < text.length()) {
            lines.add(text.substring(start));
            endings.add("");
        }
    }

    /** The subject of a tool whose one path is {@code path}. */
    static List<Subject> pathSubject(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    /**
     * The file at {@code path}, which must exist and have been read in this session, unchanged since.
     *
     * @throws ToolException when it is missing, a folder, binary, too large, or not freshly read
     */
    static LineFile forChange(Workspace workspace, String path) throws ToolException {
        Path file = workspace.resolve(path);
        String name = workspace.relativize(file);
        if (Files.isDirectory(file)) {
            throw new ToolException(name + " is a folder; the line tools change files.");
        }
        if (!Files.exists(file)) {
            throw new ToolException("No such file: " + name + ". Create it with write_file.");
        }
        workspace.reads().requireFresh(file);
        Workspace.TextFile text = workspace.readText(file);
        return new LineFile(workspace, file, text.text(), text.charset());
    }

    /** The lines of new content, whatever line breaks it was written with; a final break starts no extra line. */
    static List<String> contentLines(Arguments arguments) throws ToolException {
        String content = arguments.string("content");
        if (content.isEmpty()) {
            throw new ToolException("content is empty: give at least one line (\"\\n\" is one empty line).");
        }
        return Text.lines(content);
    }

    int count() {
        return lines.size();
    }

    /**
     * A 1-based line argument, checked against the file: at most {@code count() + pastEnd}.
     *
     * @param pastEnd 1 where one past the last line is allowed (to insert at the end), else 0
     */
    int line(Arguments arguments, String argument, int pastEnd) throws ToolException {
        int line = arguments.integer(argument, -1, 1, Integer.MAX_VALUE);
        if (line < 0) {
            throw new ToolException("Missing required argument '" + argument + "' (a 1-based line number).");
        }
        if (line > count() + pastEnd) {
            throw new ToolException(argument + " " + line + " is past the end of " + name + ", which has " + lines(count())
                    + (pastEnd == 1 ? "; " + (count() + 1) + " appends after the last line." : "."));
        }
        return line;
    }

    /** Inserts lines before line {@code before} (1-based); one past the last line appends. */
    void insert(int before, List<String> added) {
        int at = before - 1;
        List<String> addedEndings = new ArrayList<>();
        for (int i = 0; i < added.size(); i++) {
            addedEndings.add(newline);
        }
        if (at == count() && at > 0 && endings.get(at - 1).isEmpty()) {
            // the file did not end with a line break: the old last line gets one, the new last line none
            endings.set(at - 1, newline);
            addedEndings.set(added.size() - 1, "");
        }
        lines.addAll(at, added);
        endings.addAll(at, addedEndings);
    }

    /** Removes lines {@code start} to {@code end}, 1-based and inclusive. */
    void delete(int start, int end) {
        boolean lastHadNoBreak = end == count() && endings.get(end - 1).isEmpty();
        lines.subList(start - 1, end).clear();
        endings.subList(start - 1, end).clear();
        if (lastHadNoBreak && !lines.isEmpty()) {
            endings.set(count() - 1, "");
        }
    }

    /** Replaces lines {@code start} to {@code end} with {@code added}; the last new line keeps the old last one's break. */
    void replace(int start, int end, List<String> added) {
        String lastEnding = endings.get(end - 1);
        lines.subList(start - 1, end).clear();
        endings.subList(start - 1, end).clear();
        List<String> addedEndings = new ArrayList<>();
        for (int i = 0; i < added.size(); i++) {
            addedEndings.add(i == added.size() - 1 ? lastEnding : newline);
        }
        lines.addAll(start - 1, added);
        endings.addAll(start - 1, addedEndings);
    }

    /** Writes the file back as the change of {@code tool} and records it as read by this session. */
    void write(String tool) throws ToolException {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            text.append(lines.get(i)).append(endings.get(i));
        }
        byte[] bytes = Text.encode(text.toString(), charset, name);
        // the one place the line tools write, as edit_file does: compared with what the change was made
        // from right before the rename, so another writer's bytes are never silently replaced
        try {
            workspace.change(tool).replace(file, Text.encode(original, charset, name), bytes).commit();
        } catch (IOException e) {
            throw new ToolException(e.getMessage(), e); // the workspace names the file and what went wrong
        }
        workspace.reads().wrote(file);
    }

    /**
     * Lines {@code from} to {@code to} (1-based, inclusive) as they now are, numbered, with a little
     * context around them; a long run is cut in the middle.
     */
    String shown(int from, int to) {
        int first = Math.max(1, from - CONTEXT);
        int last = Math.min(count(), to + CONTEXT);
        if (last < first) {
            return "";
        }
        if (last - first + 1 <= SHOWN) {
            return Text.numbered(lines, first - 1, last);
        }
        int half = SHOWN / 2;
        return Text.numbered(lines, first - 1, first - 1 + half) + "... (" + (last - first + 1 - 2 * half)
                + " lines not shown)\n" + Text.numbered(lines, last - half, last);
    }

    static String lines(int count) {
        return count + (count == 1 ? " line" : " lines");
    }
}
