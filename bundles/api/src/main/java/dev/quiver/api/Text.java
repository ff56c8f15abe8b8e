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
        return window(name, lines, offset, limit, Integer.MAX_VALUE);
    }

    /**
     * As {@link #window(String, List, int, int)}, but stopping before the window would pass
     * {@code maxChars} characters (at least one line is shown), so that an output cap never cuts it
     * unannounced: the header then names the last line shown and continues from the one after it.
     */
    public static String window(String name, List<String> lines, int offset, int limit, int maxChars) {
        int total = lines.size();
        if (total == 0) {
            return "[" + name + " is empty]";
        }
        int first = Math.max(1, offset);
        int last = (int) Math.min((long) first + limit - 1, total);
        // the longest header this window can get, so that the body's budget holds whatever line it stops at
        int budget = maxChars - header(name, first, total, total - 1).length();
        StringBuilder body = new StringBuilder();
        int shown = first - 1;
        for (int n = first; n <= last; n++) {
            int before = body.length();
            String line = lines.get(n - 1);
            body.append(n).append(": ");
            if (line.length() > MAX_LINE_CHARS) {
                body.append(line, 0, MAX_LINE_CHARS).append(" ... [line cut at ").append(MAX_LINE_CHARS)
                        .append(" of ").append(line.length()).append(" chars]");
            } else {
                body.append(line);
            }
            body.append('\n');
            if (body.length() > budget && n > first) {
                body.setLength(before);
                break;
            }
            shown = n;
        }
        return header(name, first, shown, total) + body;
    }

    private static String header(String name, int first, int last, int total) {
        return "[" + name + ": lines " + first + "-" + last + " of " + total
                + (last < total ? "; continue with offset " + (last + 1) : "") + "]\n";
    }

    /**
     * The outcome of a replacement.
     *
     * @param text the new text
     * @param count how many occurrences were replaced
     * @param firstLine the 1-based line of the first replacement
     * @param tolerated what the match tolerated, for the result ({@code trailing whitespace ignored}); empty
     *     when it was exact
     */
    public record Replacement(String text, int count, int firstLine, String tolerated) {

        /** An exact replacement. */
        public Replacement(String text, int count, int firstLine) {
            this(text, count, firstLine, "");
        }
    }

    /**
     * Replaces {@code oldString} where it occurs once, or everywhere with {@code replaceAll}, keeping the
     * text's own line endings: both strings are matched and written with line endings normalised, and
     * every line break written is the text's (see {@link #lineEnding}).
     *
     * <p>Without {@code replaceAll}, when the text is not there exactly it is sought with the tolerances
     * of {@link FuzzyMatch}, one at a time from the strictest; one is taken only when it finds exactly
     * one place, and a shifted block's replacement is re-indented by the same shift. Lines that
     * {@code oldString} and {@code newString} share at their start and end keep the file's own text, so
     * a tolerated difference there (trailing whitespace, a typographic quote) stays as the file has it.
     * {@code replaceAll} replaces exact text only.
     *
     * @param name the path as shown to the model, for the error messages
     * @throws ToolException {@code oldString appears 3 times in src/A.java. Add surrounding context or set
     *     replaceAll.}, a tolerated match in several places (listed), a replacement that cannot be
     *     re-indented, or {@code oldString not found in src/A.java.} followed by the closest region
     */
    public static Replacement replace(String text, String oldString, String newString, boolean replaceAll, String name)
            throws ToolException {
        if (oldString.isEmpty()) {
            throw new ToolException("oldString is empty. Give the exact text to replace.");
        }
        Layout file = Layout.of(text);
        List<String> wanted = Layout.of(oldString).lines();
        FuzzyMatch.Found found = FuzzyMatch.find(file.lines(), wanted, false, 0, Integer.MAX_VALUE,
                replaceAll ? FuzzyMatch.Tolerance.EXACT : FuzzyMatch.Tolerance.WHITESPACE);
        List<FuzzyMatch.Place> places = found.places();
        if (places.isEmpty()) {
            throw new ToolException(notFound(text, file, wanted, oldString, replaceAll, name));
        }
        boolean exact = found.tolerance() == FuzzyMatch.Tolerance.EXACT;
        if (exact && places.size() > 1 && !replaceAll) {
            throw new ToolException("oldString appears " + places.size() + " times in " + name
                    + ". Add surrounding context or set replaceAll.");
        }
        if (!exact && places.size() > 1) {
            throw new ToolException("oldString is not in " + name + " as written; with " + found.tolerance().note()
                    + " it matches " + places.size() + " places (lines " + found.lines() + "), so which one is "
                    + "meant is unclear. Copy the text exactly, with enough surrounding lines to be unique.");
        }
        List<String> replacement = Layout.of(newString).lines();
        StringBuilder out = new StringBuilder(text.length() + newString.length());
        int copied = 0;
        int count = 0;
        for (FuzzyMatch.Place place : places) {
            int start = file.offset(place.line(), place.startColumn());
            if (start < copied) {
                continue; // overlaps the occurrence before it
            }
            out.append(text, copied, start);
            out.append(replaced(file, place, wanted, replacement, file.endingWithin(place, text)));
            copied = file.offset(place.lastLine(), place.endColumn());
            count++;
            if (!replaceAll) {
                break;
            }
        }
        out.append(text, copied, text.length());
        String result = out.toString();
        if (result.equals(text)) {
            throw new ToolException("oldString and newString differ only in what " + name + " keeps as it is (line "
                    + "endings" + (exact ? "" : ", or what the match tolerated: " + found.tolerance().note())
                    + "), so there is nothing to change.");
        }
        return new Replacement(result, count, places.get(0).line() + 1, exact ? "" : tolerated(found));
    }

    /** The result's note on a tolerated match, saying how a shifted block's replacement was placed. */
    private static String tolerated(FuzzyMatch.Found found) {
        FuzzyMatch.Place place = found.places().get(0);
        if (place.uneven()) {
            return found.tolerance().note() + "; the indentation differed line by line (tabs for spaces), and "
                    + "newString's was mapped to the file's the same way";
        }
        if (place.shift().isEmpty()) {
            return found.tolerance().note();
        }
        return found.tolerance().note() + "; the file's block is " + describeIndent(place.shift())
                + (place.deeper() ? " deeper" : " shallower") + ", and newString was re-indented the same";
    }

    /** {@code 4 spaces}, {@code 1 tab}, {@code 2 tabs and 1 space}: what an indentation is made of. */
    static String describeIndent(String indent) {
        long tabs = indent.chars().filter(c -> c == '\t').count();
        long spaces = indent.length() - tabs;
        String t = tabs == 1 ? "1 tab" : tabs + " tabs";
        String s = spaces == 1 ? "1 space" : spaces + " spaces";
        return tabs == 0 ? s : spaces == 0 ? t : t + " and " + s;
    }

    /**
     * The text that replaces one place: the replacement lines joined with the text's line ending, except
     * that lines equal in {@code wanted} and {@code replacement} at the start and the end are the file's
     * own, with their own line breaks.
     */
    private static String replaced(Layout file, FuzzyMatch.Place place, List<String> wanted, List<String> replacement,
            String ending) throws ToolException {
        int n = wanted.size();
        int m = replacement.size();
        int same = 0;
        while (same < Math.min(n, m) && wanted.get(same).equals(replacement.get(same))) {
            same++;
        }
        int sameEnd = 0;
        while (sameEnd < Math.min(n, m) - same
                && wanted.get(n - 1 - sameEnd).equals(replacement.get(m - 1 - sameEnd))) {
            sameEnd++;
        }
        StringBuilder out = new StringBuilder();
        for (int j = 0; j < m; j++) {
            if (j > 0) {
                // a kept line keeps the break after it, and the one before it when it ends the place
                if (j - 1 < same) {
                    out.append(file.ending(place.line() + j - 1));
                } else if (j >= m - sameEnd) {
                    out.append(file.ending(place.line() + n - m + j - 1));
                } else {
                    out.append(ending);
                }
            }
            if (j < same || j >= m - sameEnd) {
                int i = j < same ? j : n - m + j;
                String line = file.lines().get(place.line() + i);
                int from = i == 0 ? place.startColumn() : 0;
                int to = i == n - 1 ? place.endColumn() : line.length();
                out.append(line, from, to);
            } else {
                boolean atLineStart = j > 0 || place.startColumn() == 0;
                out.append(atLineStart ? place.reindent(replacement.get(j)) : replacement.get(j));
            }
        }
        return out.toString();
    }

    /** Why oldString was not replaced, with what to do: the tolerated places replaceAll would not take, or the closest region. */
    private static String notFound(String text, Layout file, List<String> wanted, String oldString, boolean replaceAll,
            String name) {
        if (replaceAll) {
            FuzzyMatch.Found loose = FuzzyMatch.find(file.lines(), wanted, false, 0, Integer.MAX_VALUE,
                    FuzzyMatch.Tolerance.WHITESPACE);
            String message = "oldString not found exactly in " + name + ", and replaceAll replaces exact text only.";
            if (!loose.places().isEmpty()) {
                return message + " With " + loose.tolerance().note() + " it matches at line"
                        + (loose.places().size() == 1 ? " " : "s ") + loose.lines() + ": copy the text exactly as it "
                        + "is there, or leave out replaceAll to change one place.";
            }
            return message + " " + closestRegion(text, oldString);
        }
        return "oldString not found in " + name + ". " + closestRegion(text, oldString);
    }

    /**
     * A text's lines for matching: split at {@code \r\n}, {@code \n} or a lone {@code \r}, a last line
     * (empty when the text ends with a line break) always present, with where each starts and how it ends.
     */
    private record Layout(List<String> lines, int[] starts, List<String> endings) {

        static Layout of(String text) {
            List<String> lines = new ArrayList<>();
            List<String> endings = new ArrayList<>();
            List<Integer> starts = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\n' || c == '\r') {
                    boolean crlf = c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n';
                    lines.add(text.substring(start, i));
                    endings.add(crlf ? "\r\n" : String.valueOf(c));
                    starts.add(start);
                    i += crlf ? 1 : 0;
                    start = i + 1;
                }
            }
            lines.add(text.substring(start));
            endings.add("");
            starts.add(start);
            return new Layout(lines, starts.stream().mapToInt(Integer::intValue).toArray(), endings);
        }

        int offset(int line, int column) {
            return starts[line] + column;
        }

        String ending(int line) {
            return endings.get(line);
        }

        /**
         * The line break new lines at a place get: the first one inside it, so that a region of a file with
         * mixed endings keeps its own, else the text's (see {@link Text#lineEnding}).
         */
        String endingWithin(FuzzyMatch.Place place, String text) {
            return place.lastLine() > place.line() ? endings.get(place.line()) : lineEnding(text);
        }
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
     * their ends (or all whitespace) is ignored, numbered, so that a model whose edit missed can correct
     * itself rather than guess: {@code The closest text is at lines 3-4:} (or {@code line 3:}) then the
     * lines with one line around them. A text of blank lines is compared as it is. Characters that pass
     * for others (a no-break space, a typographic dash) are shown as {@code \}{@code uXXXX}, since quoted
     * as they are they would look like what the model sent.
     */
    public static String closestRegion(String text, String wanted) {
        List<String> fileLines = lines(text);
        List<String> wantedLines = lines(wanted);
        if (fileLines.isEmpty() || wantedLines.isEmpty()) {
            return "Read the file again and copy the text exactly.";
        }
        int window = wantedLines.size();
        boolean blank = wantedLines.stream().allMatch(String::isBlank);
        String[] file = fileLines.stream().map(l -> blank ? l : l.strip()).toArray(String[]::new);
        String[] want = wantedLines.stream().map(l -> blank ? l : l.strip()).toArray(String[]::new);
        String[] fileBare = fileLines.stream().map(Text::withoutWhitespace).toArray(String[]::new);
        String[] wantBare = wantedLines.stream().map(Text::withoutWhitespace).toArray(String[]::new);
        int bestStart = -1;
        double bestScore = 0;
        for (int start = 0; start < file.length; start++) {
            double score = 0;
            for (int i = 0; i < window && start + i < file.length; i++) {
                score += Math.max(similarity(file[start + i], want[i]), similarity(fileBare[start + i], wantBare[i]));
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
        String region = numbered(fileLines, from, to);
        StringBuilder out = new StringBuilder("The closest text is at ")
                .append(last == bestStart + 1 ? "line " + last : "lines " + (bestStart + 1) + "-" + last).append(":\n");
        if (FuzzyMatch.hasLookAlikes(region)) {
            out.append(FuzzyMatch.visible(region));
            out.append("Copy the text exactly as it is there, whitespace included; each \\uXXXX there is one "
                    + "character that looks like another (such as \\u00A0, a no-break space), to be written as "
                    + "that character.");
        } else {
            out.append(region);
            out.append("Copy the text exactly as it is there, whitespace included.");
        }
        return out.toString();
    }

    private static String withoutWhitespace(String line) {
        return line.replaceAll("\\s+", "");
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

    /** 1 when equal, the shared share of characters otherwise; blank lines count half, as they are common. */
    private static double similarity(String x, String y) {
        if (x.isBlank() && y.isBlank()) {
            return x.equals(y) ? 0.5 : 0.4;
        }
        if (x.equals(y)) {
            return 1;
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
}
