package dev.quiver.api;

import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.util.ArrayList;
import java.util.List;

/**
 * Text helpers every file tool shares, so that reading, searching and editing agree on what a line
 * is, how it is numbered, how an exact match behaves in a file with CRLF line endings, and how a text
 * is written back in the charset it was read in.
 *
 * <p>A line ends at {@code \n}, {@code \r\n} or a lone {@code \r}; line numbers are 1-based.
 */
public final class Text {

    /** Lines longer than this are cut in numbered output; the rest is not worth the context. */
    public static final int MAX_LINE_CHARS = 2000;
    /** Lines quoted in error messages are cut at this length. */
    private static final int QUOTED_LINE_CHARS = 300;

    private Text() {
    }

    /** The lines of a text without their terminators; a final terminator starts no extra line. */
    public static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                lines.add(text.substring(start, i));
                if (c == '\r' && i + 1 < length && text.charAt(i + 1) == '\n') {
                    i++;
                }
                start = i + 1;
            }
        }
        if (start < length) {
            lines.add(text.substring(start));
        }
        return lines;
    }

    /**
     * A numbered window of lines ({@code N: text}) under a header saying which lines of how many are
     * shown and where to continue, e.g. {@code [src/A.java: lines 1-2000 of 5000; continue with offset 2001]}.
     *
     * @param name the path as shown to the model
     * @param offset the first line, 1-based, at most the number of lines
     * @param limit how many lines at most
     */
    public static String window(String name, List<String> lines, int offset, int limit) {
        int total = lines.size();
        if (total == 0) {
            return "[" + name + " is empty]";
        }
        int first = Math.max(1, offset);
        int last = (int) Math.min((long) first + limit - 1, total);
        StringBuilder out = new StringBuilder();
        out.append('[').append(name).append(": lines ").append(first).append('-').append(last).append(" of ")
                .append(total);
        if (last < total) {
            out.append("; continue with offset ").append(last + 1);
        }
        out.append("]\n");
        for (int n = first; n <= last; n++) {
            String line = lines.get(n - 1);
            out.append(n).append(": ");
            if (line.length() > MAX_LINE_CHARS) {
                out.append(line, 0, MAX_LINE_CHARS).append(" ... [line cut at ").append(MAX_LINE_CHARS)
                        .append(" of ").append(line.length()).append(" chars]");
            } else {
                out.append(line);
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * The outcome of a replacement.
     *
     * @param text the new text
     * @param count how many occurrences were replaced
     * @param firstLine the 1-based line of the first replacement
     */
    public record Replacement(String text, int count, int firstLine) {
    }

    /**
     * Replaces {@code oldString} where it occurs exactly once, or everywhere with {@code replaceAll}.
     * In a text with CRLF line endings a {@code \n} in either string stands for {@code \r\n}, so the
     * text keeps its line endings; text with mixed endings still matches exactly as written.
     *
     * @param name the path as shown to the model, for the error messages
     * @throws ToolException {@code oldString appears 3 times in src/A.java. Add surrounding context or set
     *     replaceAll.}, or {@code oldString not found in src/A.java.} followed by the closest region
     */
    public static Replacement replace(String text, String oldString, String newString, boolean replaceAll, String name)
            throws ToolException {
        if (oldString.isEmpty()) {
            throw new ToolException("oldString is empty. Give the exact text to replace.");
        }
        boolean crlf = text.contains("\r\n");
        String search = oldString;
        String replacement = newString;
        if (crlf && !oldString.contains("\r\n") && oldString.contains("\n")) {
            search = toCrlf(oldString);
            replacement = toCrlf(newString);
        } else if (crlf && !newString.contains("\r\n")) {
            replacement = toCrlf(newString);
        }
        int first = text.indexOf(search);
        if (first < 0 && !search.equals(oldString)) {
            // mixed line endings: the text may be there exactly as the model wrote it
            search = oldString;
            replacement = newString;
            first = text.indexOf(search);
        }
        if (first < 0) {
            throw new ToolException("oldString not found in " + name + ". " + closestRegion(text, oldString));
        }
        int count = 0;
        for (int at = first; at >= 0; at = text.indexOf(search, at + search.length())) {
            count++;
        }
        if (count > 1 && !replaceAll) {
            throw new ToolException("oldString appears " + count + " times in " + name
                    + ". Add surrounding context or set replaceAll.");
        }
        String result = replaceAll ? text.replace(search, replacement)
                : text.substring(0, first) + replacement + text.substring(first + search.length());
        return new Replacement(result, replaceAll ? count : 1, lineOf(text, first));
    }

    /** The line ending new lines of this text should get: {@code \r\n} when its first line ends so, else {@code \n}. */
    public static String lineEnding(String text) {
        int newline = text.indexOf('\n');
        return newline > 0 && text.charAt(newline - 1) == '\r' ? "\r\n" : "\n";
    }

    /** The 1-based line of a character index. */
    public static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index && i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n')) {
                line++;
            }
        }
        return line;
    }

    /**
     * The text in the file's charset. A file read as ISO-8859-1 (it was not valid UTF-8) cannot hold
     * every character; writing one anyway would silently turn it into {@code ?}, so that is refused.
     *
     * @param name the path as shown to the model
     */
    public static byte[] encode(String text, Charset charset, String name) throws ToolException {
        CharsetEncoder encoder = charset.newEncoder();
        if (!encoder.canEncode(text)) {
            String example = text.codePoints()
                    .mapToObj(Character::toString)
                    .filter(c -> !encoder.canEncode(c))
                    .findFirst()
                    .orElse("?");
            throw new ToolException(name + " is not UTF-8, so it is kept in " + charset.name() + ", which cannot hold '"
                    + example + "' (U+" + String.format("%04X", example.codePointAt(0)) + "). Use only characters "
                    + charset.name() + " has, or convert the file to UTF-8 first (for example with iconv in bash).");
        }
        return text.getBytes(charset);
    }

    /**
     * The region of a text most like {@code wanted}, by how many of its lines match when whitespace at
     * their ends is ignored, numbered, so that a model whose edit missed can correct itself rather than
     * guess: {@code The closest text is at lines 3-4:} (or {@code line 3:}) then the lines with one line around them.
     */
    public static String closestRegion(String text, String wanted) {
        List<String> fileLines = lines(text);
        List<String> wantedLines = lines(wanted);
        if (fileLines.isEmpty() || wantedLines.isEmpty()) {
            return "Read the file again and copy the text exactly.";
        }
        int window = wantedLines.size();
        String[] file = fileLines.stream().map(String::strip).toArray(String[]::new);
        String[] want = wantedLines.stream().map(String::strip).toArray(String[]::new);
        int bestStart = -1;
        double bestScore = 0;
        for (int start = 0; start < file.length; start++) {
            double score = 0;
            for (int i = 0; i < window && start + i < file.length; i++) {
                score += similarity(file[start + i], want[i]);
            }
            if (score > bestScore) {
                bestScore = score;
                bestStart = start;
            }
        }
        if (bestStart < 0 || bestScore / window < 0.3) {
            return "Nothing in the file resembles it; read the file again and copy the text exactly.";
        }
        int from = Math.max(0, bestStart - 1);
        int to = Math.min(fileLines.size(), bestStart + window + 1);
        int last = Math.min(fileLines.size(), bestStart + window);
        StringBuilder out = new StringBuilder("The closest text is at ")
                .append(last == bestStart + 1 ? "line " + last : "lines " + (bestStart + 1) + "-" + last).append(":\n");
        out.append(numbered(fileLines, from, to));
        out.append("Copy the text exactly as it is there, whitespace included.");
        return out.toString();
    }

    /** Lines {@code from} (0-based, inclusive) to {@code to} (exclusive) as {@code N: text} lines, each cut at 300 characters. */
    public static String numbered(List<String> lines, int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int i = Math.max(0, from); i < to && i < lines.size(); i++) {
            String line = lines.get(i);
            out.append(i + 1).append(": ")
                    .append(line.length() > QUOTED_LINE_CHARS ? line.substring(0, QUOTED_LINE_CHARS) + "..." : line)
                    .append('\n');
        }
        return out.toString();
    }

    /** For lines already stripped: 1 when equal, the shared share of characters otherwise. */
    private static double similarity(String x, String y) {
        if (x.equals(y)) {
            return x.isEmpty() ? 0.5 : 1;
        }
        if (x.isEmpty() || y.isEmpty()) {
            return 0;
        }
        int prefix = 0;
        int max = Math.min(x.length(), y.length());
        while (prefix < max && x.charAt(prefix) == y.charAt(prefix)) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < max - prefix && x.charAt(x.length() - 1 - suffix) == y.charAt(y.length() - 1 - suffix)) {
            suffix++;
        }
        return (double) (prefix + suffix) / Math.max(x.length(), y.length());
    }

    private static String toCrlf(String s) {
        return s.replace("\r\n", "\n").replace("\n", "\r\n");
    }
}
