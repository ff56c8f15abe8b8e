package dev.quiver.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds where a text a model quoted from a file is in that file, tolerating the differences models
 * commonly make, one {@link Tolerance} at a time from the strictest; edit_file, multi_edit and
 * apply_patch all locate text through here, so they agree on what matches.
 *
 * <p>The text sought is given as lines ({@code wanted}); the file as its lines without terminators. In
 * whole-line mode (apply_patch) every wanted line is a whole file line. Otherwise (edit_file) the
 * wanted text may start inside its first line and end inside its last, like a substring: a single
 * wanted line may be found anywhere in a line, the first of several must end its file line and the last
 * must start its file line. The two shifted tolerances always match whole lines, except that an empty
 * first or last wanted line (the text began or ended with a line break) stands for the break itself.
 */
public final class FuzzyMatch {

    private FuzzyMatch() {
    }

    /** How far a match may differ from what was sought, strictest first. */
    public enum Tolerance {
        /** Character for character (line endings aside). */
        EXACT(""),
        /** Whitespace at the ends of lines does not count. */
        TRAILING_WHITESPACE("trailing whitespace ignored"),
        /** Also, Unicode dashes, quotes and spaces count as their ASCII look-alikes (see {@link #fold}). */
        UNICODE_PUNCTUATION("Unicode dashes, quotes and spaces read as their ASCII look-alikes"),
        /** Also, the whole block may sit deeper or shallower by one common indentation. */
        INDENTATION("indentation shifted"),
        /** Also, runs of whitespace inside a line count as one space, and indentation as nothing. */
        WHITESPACE("whitespace runs collapsed");

        private final String note;

        Tolerance(String note) {
            this.note = note;
        }

        /** What was tolerated, for the result message ({@code trailing whitespace ignored}); empty for {@link #EXACT}. */
        public String note() {
            return note;
        }
    }

    /**
     * One place where the wanted lines match.
     *
     * @param line the 0-based file line where the match starts
     * @param startColumn where it starts in that line
     * @param lastLine the 0-based file line where it ends
     * @param endColumn where it ends in that line (exclusive)
     * @param shift for {@link Tolerance#INDENTATION} and {@link Tolerance#WHITESPACE}, the indentation the
     *     file has in addition to what was sought (when {@code deeper}), or lacks; empty otherwise
     * @param deeper whether the file's block is indented deeper than the one sought
     * @param indentations only for {@link Tolerance#WHITESPACE} when the indentation did not differ by one
     *     shift (tabs sent for spaces): each indentation sought, mapped to the file's on the same line;
     *     empty otherwise
     */
    public record Place(int line, int startColumn, int lastLine, int endColumn, String shift, boolean deeper,
            Map<String, String> indentations) {

        /** Whether the indentation differed line by line rather than by one shift. */
        public boolean uneven() {
            return !indentations.isEmpty();
        }

        /**
         * A replacement line re-indented as the matched block was: the file's extra indentation put in
         * front, or the model's extra indentation taken away, or, for an uneven match, its indentation
         * mapped as the matched lines' were (an indentation the file itself uses is kept). A blank line is
         * left as it is.
         *
         * @throws ToolException when the line cannot be placed that way: it is indented less than the
         *     indentation to take away, or with an indentation the matched lines do not map
         */
        public String reindent(String replacementLine) throws ToolException {
            if (replacementLine.isBlank()) {
                return replacementLine;
            }
            if (uneven()) {
                String indent = indentation(replacementLine);
                String mapped = indentations.get(indent);
                if (mapped != null) {
                    return mapped + replacementLine.substring(indent.length());
                }
                if (indentations.containsValue(indent)) {
                    return replacementLine; // already written as the file indents
                }
                throw new ToolException("the text was found with its indentation differing line by line, and the "
                        + "replacement line '" + replacementLine.strip() + "' has an indentation none of the matched "
                        + "lines had, so it cannot be placed safely. Copy oldString with the file's own indentation.");
            }
            if (shift.isEmpty()) {
                return replacementLine;
            }
            if (deeper) {
                return shift + replacementLine;
            }
            if (!replacementLine.startsWith(shift)) {
                throw new ToolException("the text was found with its indentation shifted by "
                        + Text.describeIndent(shift) + ", but the replacement line '" + replacementLine.strip() + "' is not indented that far, "
                        + "so it cannot be shifted back. Copy oldString with the file's own indentation.");
            }
            return replacementLine.substring(shift.length());
        }
    }

    /**
     * The places found at the strictest tolerance that found any.
     *
     * @param tolerance the tolerance that found them, meaningless when there are none
     * @param places in file order; empty when no tolerance found the text
     */
    public record Found(Tolerance tolerance, List<Place> places) {

        /** The 1-based first lines of the places, for messages: {@code 3, 8 and 12}. */
        public String lines() {
            List<String> numbers = places.stream().map(p -> String.valueOf(p.line() + 1)).distinct().toList();
            if (numbers.size() == 1) {
                return numbers.get(0);
            }
            return String.join(", ", numbers.subList(0, numbers.size() - 1)) + " and " + numbers.get(numbers.size() - 1);
        }
    }

    /**
     * Every place where {@code wanted} matches with a start line in {@code from..to} (0-based, inclusive),
     * at the strictest tolerance that finds any, up to {@code maxTolerance}. A tolerance under which every
     * wanted line is blank is skipped: it would match any blank run.
     *
     * @param wholeLines whether each wanted line must be a whole file line
     */
    public static Found find(List<String> lines, List<String> wanted, boolean wholeLines, int from, int to,
            Tolerance maxTolerance) {
        if (wanted.isEmpty()) {
            return new Found(Tolerance.EXACT, List.of());
        }
        int last = Math.min(to, lines.size() - wanted.size());
        for (Tolerance tolerance : Tolerance.values()) {
            if (tolerance.compareTo(maxTolerance) > 0) {
                break;
            }
            if (tolerance != Tolerance.EXACT && wanted.stream().allMatch(String::isBlank)) {
                break;
            }
            List<Place> places = new ArrayList<>();
            for (int k = Math.max(0, from); k <= last; k++) {
                if (tolerance.compareTo(Tolerance.INDENTATION) >= 0) {
                    Place place = shifted(lines, wanted, wholeLines, k, tolerance == Tolerance.WHITESPACE);
                    if (place != null) {
                        places.add(place);
                    }
                } else {
                    aligned(lines, wanted, wholeLines, k, tolerance, places);
                }
            }
            if (!places.isEmpty()) {
                return new Found(tolerance, List.copyOf(places));
            }
        }
        return new Found(Tolerance.EXACT, List.of());
    }

    // ------------------------------------------------------------------ exact, trailing, Unicode

    /** The places starting on line {@code k} under a tolerance up to {@link Tolerance#UNICODE_PUNCTUATION}. */
    private static void aligned(List<String> lines, List<String> wanted, boolean wholeLines, int k, Tolerance tolerance,
            List<Place> places) {
        boolean trim = tolerance != Tolerance.EXACT;
        boolean fold = tolerance == Tolerance.UNICODE_PUNCTUATION;
        int n = wanted.size();
        String first = mapped(lines.get(k), fold);
        String want = mapped(wanted.get(0), fold);
        if (wholeLines) {
            for (int i = 0; i < n; i++) {
                if (!key(lines.get(k + i), trim, fold).equals(key(wanted.get(i), trim, fold))) {
                    return;
                }
            }
            places.add(new Place(k, 0, k + n - 1, lines.get(k + n - 1).length(), "", false, Map.of()));
            return;
        }
        if (n == 1) {
            List<Integer> starts = new ArrayList<>();
            for (int at = first.indexOf(want); at >= 0; at = first.indexOf(want, at + 1)) {
                starts.add(at);
                places.add(new Place(k, at, k, at + want.length(), "", false, Map.of()));
            }
            String trimmedWant = want.stripTrailing();
            // sought text ending in whitespace: that whitespace stands for the end of the line
            if (trim && !trimmedWant.equals(want) && !trimmedWant.isEmpty()) {
                String trimmedLine = first.stripTrailing();
                int at = trimmedLine.length() - trimmedWant.length();
                if (trimmedLine.endsWith(trimmedWant) && !starts.contains(at)) {
                    places.add(new Place(k, at, k, first.length(), "", false, Map.of()));
                }
            }
            return;
        }
        int start;
        if (!trim) {
            if (!first.endsWith(want)) {
                return;
            }
            start = first.length() - want.length();
        } else {
            String trimmedLine = first.stripTrailing();
            String trimmedWant = want.stripTrailing();
            if (!trimmedLine.endsWith(trimmedWant)) {
                return;
            }
            start = trimmedLine.length() - trimmedWant.length();
        }
        for (int i = 1; i < n - 1; i++) {
            if (!key(lines.get(k + i), trim, fold).equals(key(wanted.get(i), trim, fold))) {
                return;
            }
        }
        String lastLine = mapped(lines.get(k + n - 1), fold);
        String lastWant = mapped(wanted.get(n - 1), fold);
        int end;
        if (lastLine.startsWith(lastWant)) {
            end = lastWant.length();
        } else if (trim && lastLine.stripTrailing().equals(lastWant.stripTrailing())) {
            end = lastLine.length();
        } else {
            return;
        }
        places.add(new Place(k, start, k + n - 1, end, "", false, Map.of()));
    }

    private static String key(String line, boolean trim, boolean fold) {
        String mapped = mapped(line, fold);
        return trim ? mapped.stripTrailing() : mapped;
    }

    private static String mapped(String line, boolean fold) {
        return fold ? fold(line) : line;
    }

    // ------------------------------------------------------------------------- indentation shifts

    /** The place starting on line {@code k} with a whole-block indentation shift, or null. */
    private static Place shifted(List<String> lines, List<String> wanted, boolean wholeLines, int k, boolean collapse) {
        int n = wanted.size();
        // an empty first or last wanted line of a multi-line text is the line break itself
        boolean openStart = !wholeLines && n > 1 && wanted.get(0).isEmpty();
        boolean openEnd = !wholeLines && n > 1 && wanted.get(n - 1).isEmpty();
        String shift = null;
        boolean deeper = false;
        boolean uneven = false;
        Map<String, String> indentations = new HashMap<>();
        for (int i = openStart ? 1 : 0; i < (openEnd ? n - 1 : n); i++) {
            String line = lines.get(k + i);
            String want = wanted.get(i);
            if (line.isBlank() || want.isBlank()) {
                if (line.isBlank() != want.isBlank()) {
                    return null;
                }
                continue;
            }
            String lineIndent = indentation(line);
            String wantIndent = indentation(want);
            if (!content(line.substring(lineIndent.length()), collapse)
                    .equals(content(want.substring(wantIndent.length()), collapse))) {
                return null;
            }
            String known = indentations.putIfAbsent(wantIndent, lineIndent);
            if (known != null && !known.equals(lineIndent)) {
                return null; // one indentation sent for two of the file's: no way to place a replacement line
            }
            String foldedLineIndent = fold(lineIndent);
            String foldedWantIndent = fold(wantIndent);
            String lineShift;
            boolean lineDeeper;
            if (foldedLineIndent.endsWith(foldedWantIndent)) {
                lineShift = lineIndent.substring(0, lineIndent.length() - wantIndent.length());
                lineDeeper = true;
            } else if (foldedWantIndent.endsWith(foldedLineIndent)) {
                lineShift = wantIndent.substring(0, wantIndent.length() - lineIndent.length());
                lineDeeper = false;
            } else {
                uneven = true;
                continue;
            }
            if (shift == null) {
                shift = lineShift;
                deeper = lineDeeper;
            } else if (!fold(shift).equals(fold(lineShift)) || !lineShift.isEmpty() && deeper != lineDeeper) {
                uneven = true;
            }
        }
        if (uneven && !collapse) {
            return null;
        }
        if (indentations.isEmpty()) {
            return null; // only blank lines
        }
        int first = openStart ? lines.get(k).length() : 0;
        int end = openEnd ? 0 : lines.get(k + n - 1).length();
        if (uneven) {
            return new Place(k, first, k + n - 1, end, "", false, Map.copyOf(indentations));
        }
        return new Place(k, first, k + n - 1, end, shift, deeper, Map.of());
    }

    private static String indentation(String line) {
        int i = 0;
        while (i < line.length() && isBlank(line.charAt(i))) {
            i++;
        }
        return line.substring(0, i);
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || fold(c) == ' ';
    }

    /** A line's text after its indentation, compared folded, without trailing whitespace, runs collapsed if asked. */
    private static String content(String text, boolean collapse) {
        String folded = fold(text).stripTrailing();
        if (!collapse) {
            return folded;
        }
        StringBuilder out = new StringBuilder(folded.length());
        boolean inRun = false;
        for (int i = 0; i < folded.length(); i++) {
            char c = folded.charAt(i);
            if (c == ' ' || c == '\t') {
                if (!inRun) {
                    out.append(' ');
                }
                inRun = true;
            } else {
                out.append(c);
                inRun = false;
            }
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------ Unicode folding

    /**
     * The character a Unicode dash, quote or space is commonly typed as: the dashes U+2010 to U+2015 and
     * the minus sign U+2212 as {@code -}; the single quotes U+2018 to U+201B as {@code '}; the double
     * quotes U+201C to U+201F as {@code "}; the no-break, en to hair, narrow no-break, medium
     * mathematical and ideographic spaces (U+00A0, U+2002 to U+200A, U+202F, U+205F, U+3000) as a space.
     * Any other character is itself.
     */
    public static char fold(char c) {
        if (c < 0x00A0) {
            return c;
        }
        if (c >= '\u2010' && c <= '\u2015' || c == '\u2212') {
            return '-';
        }
        if (c >= '\u2018' && c <= '\u201B') {
            return '\'';
        }
        if (c >= '\u201C' && c <= '\u201F') {
            return '"';
        }
        if (c == '\u00A0' || c >= '\u2002' && c <= '\u200A' || c == '\u202F' || c == '\u205F' || c == '\u3000') {
            return ' ';
        }
        return c;
    }

    /** {@link #fold(char)} applied to every character; the result has the same length. */
    public static String fold(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = fold(chars[i]);
        }
        return new String(chars);
    }

    /**
     * The text with every character that can pass for another written as {@code \}{@code uXXXX}: those
     * {@link #fold(char)} changes, other non-ASCII spaces, and invisible ones (zero-width spaces and
     * joiners, the byte-order mark, other format characters). Quoting a line this way lets a model see
     * the difference a plain quote would hide.
     */
    public static String visible(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isLookAlike(c)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Whether {@link #visible(String)} escapes something in the text. */
    public static boolean hasLookAlikes(String text) {
        return text.chars().anyMatch(c -> isLookAlike((char) c));
    }

    private static boolean isLookAlike(char c) {
        return c >= 0x80 && (fold(c) != c || Character.isSpaceChar(c) || Character.getType(c) == Character.FORMAT);
    }
}
