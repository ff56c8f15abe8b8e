package dev.quiver.cli.terminal;

/**
 * Makes text from the model or a command safe to print: escape sequences and other control
 * characters are dropped (they could move the cursor, retitle the window or hide text), tabs become
 * spaces, and a carriage return keeps only what was written after it, as a terminal would show it.
 */
public final class Printable {

    private Printable() {
    }

    /** One line (no {@code \n}) made safe to print. */
    public static String line(String text) {
        String s = text;
        int cr = s.lastIndexOf('\r');
        if (cr >= 0) {
            String after = s.substring(cr + 1);
            // a CRLF ending or a trailing CR keeps the line; a progress bar keeps its last state
            s = after.isEmpty() ? s.substring(0, cr) : after;
            cr = s.lastIndexOf('\r');
            if (cr >= 0) {
                s = s.substring(cr + 1);
            }
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\t') {
                out.append(" ".repeat(4 - out.length() % 4));
            } else if (c == 0x1b) {
                i = skipEscape(s, i);
            } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                // other control characters are dropped
            } else if (isDirectionControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): a terminal that
     * lays out right-to-left text reorders what follows them, so "rm -rf ~ \u202e..." or a question could show
     * other words than the ones that run or were sent ("Trojan Source"). They are shown as {@code \u202e}.
     */
    private static boolean isDirectionControl(char c) {
        return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    }

    /** The index of the last character of the escape sequence starting at {@code i}. */
    private static int skipEscape(String s, int i) {
        if (i + 1 >= s.length()) {
            return i;
        }
        char next = s.charAt(i + 1);
        if (next == '[') {
            int j = i + 2;
            while (j < s.length() && (s.charAt(j) < 0x40 || s.charAt(j) > 0x7e)) {
                j++;
            }
            return Math.min(j, s.length() - 1);
        }
        if (next == ']' || next == 'P' || next == '_' || next == '^') {
            int j = i + 2;
            while (j < s.length()) {
                char c = s.charAt(j);
                if (c == 0x07) {
                    return j;
                }
                if (c == 0x1b && j + 1 < s.length() && s.charAt(j + 1) == '\\') {
                    return j + 1;
                }
                j++;
            }
            return s.length() - 1;
        }
        return i + 1;
    }

    /**
     * One line with its control characters shown rather than dropped, in caret notation
     * ({@code ^[} for escape), for what a person approves: they see every character that will run.
     */
    public static String visible(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\t') {
                out.append("    ");
            } else if (c < 0x20) {
                out.append('^').append((char) (c + 0x40));
            } else if (c == 0x7f) {
                out.append("^?");
            } else if ((c >= 0x80 && c < 0xa0) || isDirectionControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** A text cut to {@code max} characters with an ellipsis. */
    public static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return max <= 1 ? text.substring(0, Math.max(0, max)) : text.substring(0, max - 1) + "…";
    }

    /** The first line of a text. */
    public static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
