package dev.quiver.tools.edit.plus;

import dev.quiver.api.ToolException;
import java.util.ArrayList;
import java.util.List;

/**
 * A patch in the envelope Codex uses, parsed:
 *
 * <pre>
 * *** Begin Patch
 * *** Add File: path          then lines starting with +
 * *** Delete File: path
 * *** Update File: path
 * *** Move to: new/path       optional, right after Update File
 * &#64;&#64; a line to find first     optional; several in a row narrow the place step by step
 *  context line               a space, then the line
 * -removed line
 * +added line
 * *** End of File             optional: the hunk's lines end the file
 * *** End Patch
 * </pre>
 *
 * <p>The parser is lenient where a model commonly slips: markers may carry surrounding whitespace, lines
 * may end in {@code \r\n}, a blank line inside a hunk is an empty context line, blank lines before a
 * marker are dropped (also after {@code *** End of File}), the first hunk of an update may omit its
 * {@code @@}, and text around the envelope (a shell here-document line, blank lines after the end) is ignored.
 */
final class Patch {

    static final String BEGIN = "*** Begin Patch";
    static final String END = "*** End Patch";
    static final String ADD = "*** Add File:";
    static final String DELETE = "*** Delete File:";
    static final String UPDATE = "*** Update File:";
    static final String MOVE = "*** Move to:";
    static final String END_OF_FILE = "*** End of File";

    /** What one file operation does. */
    enum Kind {
        ADD, DELETE, UPDATE
    }

    /** One change line of a hunk: {@code ' '} context, {@code '-'} removed, {@code '+'} added. */
    record Line(char kind, String text) {
    }

    /**
     * A hunk of an update.
     *
     * @param number 1-based within its file
     * @param headers the {@code @@} context lines to find first, in order
     * @param lines the change lines
     * @param endOfFile whether the hunk must match at the end of the file
     */
    record Hunk(int number, List<String> headers, List<Line> lines, boolean endOfFile) {

        List<String> oldLines() {
            return lines.stream().filter(l -> l.kind() != '+').map(Line::text).toList();
        }

        String describe() {
            return "hunk " + number + (headers.isEmpty() ? "" : " (@@ " + String.join(" / @@ ", headers) + ")");
        }
    }

    /**
     * One file operation.
     *
     * @param path the path as written
     * @param moveTo for an update, the new path, else null
     * @param added for an add, the new file's lines
     * @param hunks for an update, its hunks
     * @param patchLine the 1-based line of the patch the operation starts on
     */
    record Operation(Kind kind, String path, String moveTo, List<String> added, List<Hunk> hunks, int patchLine) {

        String describe() {
            return switch (kind) {
                case ADD -> "Add File " + path;
                case DELETE -> "Delete File " + path;
                case UPDATE -> "Update File " + path + (moveTo == null ? "" : " (Move to " + moveTo + ")");
            };
        }
    }

    private final List<Operation> operations;

    private Patch(List<Operation> operations) {
        this.operations = operations;
    }

    List<Operation> operations() {
        return operations;
    }

    /** Every path the patch names, as written: each operation's path and each move target. */
    List<String> paths() {
        List<String> paths = new ArrayList<>();
        for (Operation operation : operations) {
            paths.add(operation.path());
            if (operation.moveTo() != null) {
                paths.add(operation.moveTo());
            }
        }
        return paths;
    }

    static Patch parse(String text) throws ToolException {
        return new Parser(text).parse();
    }

    /** Reads the envelope line by line. */
    private static final class Parser {

        private final String[] lines;
        private int at; // index of the next line to read

        Parser(String text) {
            String[] split = text.split("\n", -1);
            for (int i = 0; i < split.length; i++) {
                if (split[i].endsWith("\r")) {
                    split[i] = split[i].substring(0, split[i].length() - 1);
                }
            }
            this.lines = split;
        }

        private ToolException error(int line, String message) {
            return new ToolException("The patch is malformed at line " + (line + 1) + ": " + message
                    + " No file was changed.");
        }

        private static boolean isMarker(String line, String marker) {
            return line.strip().startsWith(marker);
        }

        private static boolean isAnyMarker(String line) {
            String s = line.strip();
            return s.startsWith(ADD) || s.startsWith(DELETE) || s.startsWith(UPDATE) || s.equals(END);
        }

        private static String pathAfter(String line, String marker) {
            return line.strip().substring(marker.length()).strip();
        }

        Patch parse() throws ToolException {
            int begin = -1;
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].strip().equals(BEGIN)) {
                    begin = i;
                    break;
                }
                if (isAnyMarker(lines[i])) {
                    break;
                }
            }
            if (begin < 0) {
                throw new ToolException("The patch must start with a line '" + BEGIN + "' and end with '" + END
                        + "'. No file was changed.");
            }
            at = begin + 1;
            List<Operation> operations = new ArrayList<>();
            while (true) {
                skipBlank();
                if (at >= lines.length) {
                    throw error(lines.length - 1, "the patch ends without '" + END + "'.");
                }
                String line = lines[at];
                if (line.strip().equals(END)) {
                    break;
                }
                if (isMarker(line, ADD)) {
                    operations.add(add());
                } else if (isMarker(line, DELETE)) {
                    String path = pathAfter(line, DELETE);
                    requirePath(path, at);
                    operations.add(new Operation(Kind.DELETE, path, null, null, null, at + 1));
                    at++;
                } else if (isMarker(line, UPDATE)) {
                    operations.add(update());
                } else {
                    throw error(at, "expected '" + ADD + "', '" + DELETE + "', '" + UPDATE + "' or '" + END
                            + "', got '" + shorten(line) + "'.");
                }
            }
            if (operations.isEmpty()) {
                throw new ToolException("The patch holds no file operation. No file was changed.");
            }
            return new Patch(List.copyOf(operations));
        }

        private void skipBlank() {
            while (at < lines.length && lines[at].isBlank()) {
                at++;
            }
        }

        private void requirePath(String path, int line) throws ToolException {
            if (path.isEmpty()) {
                throw error(line, "the marker names no path.");
            }
        }

        private Operation add() throws ToolException {
            int start = at;
            String path = pathAfter(lines[at], ADD);
            requirePath(path, at);
            at++;
            List<String> content = new ArrayList<>();
            int blanks = 0; // blank lines seen but not yet known to be content
            while (at < lines.length && !isAnyMarker(lines[at])) {
                String line = lines[at];
                if (line.isEmpty()) {
                    blanks++;
                } else if (line.startsWith("+")) {
                    for (; blanks > 0; blanks--) {
                        content.add("");
                    }
                    content.add(line.substring(1));
                } else {
                    throw error(at, "every line of an added file starts with '+', got '" + shorten(line) + "'.");
                }
                at++;
            }
            return new Operation(Kind.ADD, path, null, List.copyOf(content), null, start + 1);
        }

        private Operation update() throws ToolException {
            int start = at;
            String path = pathAfter(lines[at], UPDATE);
            requirePath(path, at);
            at++;
            String moveTo = null;
            skipBlank();
            if (at < lines.length && isMarker(lines[at], MOVE)) {
                moveTo = pathAfter(lines[at], MOVE);
                requirePath(moveTo, at);
                at++;
            }
            List<Hunk> hunks = new ArrayList<>();
            List<String> headers = new ArrayList<>();
            List<Line> changes = new ArrayList<>();
            int blanks = 0;
            boolean endOfFile = false;
            while (at < lines.length && !isAnyMarker(lines[at])) {
                String line = lines[at];
                String stripped = line.strip();
                if (stripped.equals(END_OF_FILE)) {
                    if (changes.isEmpty()) {
                        throw error(at, "'" + END_OF_FILE + "' follows no change lines.");
                    }
                    endOfFile = true;
                    blanks = 0;
                } else if (stripped.startsWith("@@") && line.startsWith("@@") || stripped.equals("@@")) {
                    if (!changes.isEmpty()) {
                        hunks.add(new Hunk(hunks.size() + 1, List.copyOf(headers), List.copyOf(changes), endOfFile));
                        headers.clear();
                        changes.clear();
                        endOfFile = false;
                    }
                    blanks = 0;
                    String header = stripped.substring(2);
                    if (header.endsWith("@@") && header.length() > 2 && header.strip().startsWith("-")) {
                        // a unified-diff header such as "@@ -1,3 +1,4 @@" locates nothing here
                        header = "";
                    }
                    if (!header.isBlank()) {
                        headers.add(header.startsWith(" ") ? header.substring(1) : header);
                    }
                } else if (endOfFile && line.isBlank()) {
                    // a blank line between End of File and the next marker is no content (as Codex reads it)
                } else if (endOfFile) {
                    throw error(at, "nothing may follow '" + END_OF_FILE + "' within a hunk; start a new one with @@.");
                } else if (line.isEmpty()) {
                    blanks++;
                } else if (line.charAt(0) == ' ' || line.charAt(0) == '-' || line.charAt(0) == '+') {
                    for (; blanks > 0; blanks--) {
                        changes.add(new Line(' ', ""));
                    }
                    changes.add(new Line(line.charAt(0), line.substring(1)));
                } else {
                    throw error(at, "a hunk line starts with ' ' (context), '-' (removed) or '+' (added), got '"
                            + shorten(line) + "'. Prefix unchanged lines with a space.");
                }
                at++;
            }
            if (!changes.isEmpty()) {
                hunks.add(new Hunk(hunks.size() + 1, List.copyOf(headers), List.copyOf(changes), endOfFile));
            } else if (!headers.isEmpty()) {
                throw error(at - 1, "the last @@ of " + path + " is followed by no change lines.");
            }
            if (hunks.isEmpty() && moveTo == null) {
                throw error(start, "'" + UPDATE + " " + path + "' has no hunks. Add @@ hunks, or a '" + MOVE
                        + "' line to only rename it.");
            }
            return new Operation(Kind.UPDATE, path, moveTo, null, List.copyOf(hunks), start + 1);
        }

        private static String shorten(String line) {
            return line.length() > 80 ? line.substring(0, 80) + "..." : line;
        }
    }
}
