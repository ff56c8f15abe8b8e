package dev.quiver.bash;

/** Quote removal and small text helpers shared by the parser and the guard. */
final class ShellText {

    private ShellText() {
    }

    /** The file name of a literal command word ({@code rm} for {@code /usr/bin/rm}); a computed word's text. */
    static String baseName(Word word) {
        if (!word.literal()) {
            return word.value();
        }
        String v = word.value();
        int slash = v.lastIndexOf('/');
        return slash >= 0 && slash < v.length() - 1 ? v.substring(slash + 1) : v;
    }

    /**
     * Bash's quote removal on a word's source text that holds no expansion: {@code '...'} verbatim,
     * {@code "..."} with {@code \$ \` \" \\} and backslash-newline, {@code $'...'} with its escapes
     * decoded, {@code $"..."} as {@code "..."}, an unquoted backslash quoting the next character and
     * backslash-newline removed.
     */
    static String unquote(String text) {
        if (text.indexOf('\'') < 0 && text.indexOf('"') < 0 && text.indexOf('\\') < 0 && text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\\') {
                if (i + 1 < n) {
                    char d = text.charAt(i + 1);
                    if (d != '\n') {
                        out.append(d);
                    }
                    i += 2;
                } else {
                    out.append(c);
                    i++;
                }
            } else if (c == '\'') {
                int close = text.indexOf('\'', i + 1);
                if (close < 0) {
                    out.append(text, i + 1, n);
                    i = n;
                } else {
                    out.append(text, i + 1, close);
                    i = close + 1;
                }
            } else if (c == '"') {
                i = doubleQuoted(text, i + 1, out);
            } else if (c == '$' && i + 1 < n && text.charAt(i + 1) == '\'') {
                i = ansiC(text, i + 2, out);
            } else if (c == '$' && i + 1 < n && text.charAt(i + 1) == '"') {
                i = doubleQuoted(text, i + 2, out);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** Reads a double-quoted string's content from {@code i} (after the quote); returns the index after the closing quote. */
    private static int doubleQuoted(String text, int i, StringBuilder out) {
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\' && i + 1 < n) {
                char d = text.charAt(i + 1);
                if (d == '$' || d == '`' || d == '"' || d == '\\') {
                    out.append(d);
                    i += 2;
                    continue;
                }
                if (d == '\n') {
                    i += 2;
                    continue;
                }
            }
            out.append(c);
            i++;
        }
        return n;
    }

    /** Decodes a {@code $'...'} string's content from {@code i}; returns the index after the closing quote. */
    private static int ansiC(String text, int i, StringBuilder out) {
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'') {
                return i + 1;
            }
            if (c != '\\' || i + 1 >= n) {
                out.append(c);
                i++;
                continue;
            }
            char d = text.charAt(i + 1);
            i += 2;
            switch (d) {
                case 'a' -> out.append('\u0007');
                case 'b' -> out.append('\b');
                case 'e', 'E' -> out.append('\u001b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'v' -> out.append('\u000b');
                case '\\', '\'', '"', '?' -> out.append(d);
                case 'c' -> {
                    if (i < n) {
                        out.append((char) (text.charAt(i) & 0x1f));
                        i++;
                    }
                }
                case 'x' -> i = codePoint(text, i, 16, 2, out, "\\x");
                case 'u' -> i = codePoint(text, i, 16, 4, out, "\\u");
                case 'U' -> i = codePoint(text, i, 16, 8, out, "\\U");
                default -> {
                    if (d >= '0' && d <= '7') {
                        i = codePoint(text, i - 1, 8, 3, out, "\\");
                    } else {
                        out.append('\\').append(d);
                    }
                }
            }
        }
        return n;
    }

    private static int codePoint(String text, int i, int radix, int maxDigits, StringBuilder out, String prefix) {
        int n = text.length();
        int value = 0;
        int digits = 0;
        while (digits < maxDigits && i < n && Character.digit(text.charAt(i), radix) >= 0) {
            value = value * radix + Character.digit(text.charAt(i), radix);
            i++;
            digits++;
        }
        if (digits == 0) {
            out.append(prefix);
        } else if (radix == 8 || maxDigits == 2) {
            out.append((char) (value & 0xff));
        } else if (Character.isValidCodePoint(value) && (value < 0xD800 || value > 0xDFFF)) {
            out.appendCodePoint(value);
        } else {
            out.append('\uFFFD');
        }
        return i;
    }

    /**
     * Removes the backslashes bash removes before running the text of a backtick substitution:
     * {@code \\}, {@code \`} and {@code \$} lose their backslash.
     */
    static String unescapeBackticks(String inner) {
        if (inner.indexOf('\\') < 0) {
            return inner;
        }
        StringBuilder b = new StringBuilder(inner.length());
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c == '\\' && i + 1 < inner.length()) {
                char d = inner.charAt(i + 1);
                if (d == '\\' || d == '`' || d == '$') {
                    b.append(d);
                    i++;
                    continue;
                }
            }
            b.append(c);
        }
        return b.toString();
    }

    /**
     * Whether a word may become several words or none when it runs: an expansion outside double
     * quotes is split on blanks (and may be empty), and inside them {@code "$@"}, {@code "${@}"},
     * {@code "${@:2}"} or {@code "${a[@]}"} gives one word per element.
     */
    static boolean maySplit(Word word) {
        if (word.literal()) {
            return false;
        }
        String s = word.value();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '\'' && !quoted) {
                int close = s.indexOf('\'', i + 1);
                i = close < 0 ? s.length() : close;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == '`' && !quoted) {
                return true;
            } else if (c == '$' && i + 1 < s.length()) {
                char d = s.charAt(i + 1);
                if (!quoted && d != '\'' && d != '"') {
                    return true;
                }
                if (quoted && (d == '@' || (d == '{' && s.indexOf("[@]", i) > 0) || s.startsWith("${@", i))) {
                    return true;
                }
            }
        }
        return false;
    }

    static String abbreviate(String s, int max) {
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 3) + "...";
    }
}
