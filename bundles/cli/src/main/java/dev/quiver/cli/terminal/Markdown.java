package dev.quiver.cli.terminal;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * Renders the model's Markdown one line at a time, for a terminal: headings, lists, block quotes,
 * rules, fenced code blocks and inline emphasis, code and links. The same text comes out with
 * styles ({@code color}) or without; without, no escape code is ever written, and inline code
 * keeps its backticks so the text still says what was code.
 *
 * <p>Stateful only across code fences: {@link #line} moves the state on, {@link #peek} renders an
 * unfinished line (the part of the answer still streaming) without moving it, so an unclosed fence
 * renders as a code block that grows.
 */
public final class Markdown {

    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(`{3,}|~{3,})\\s*([^`\\s]*).*$");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern RULE = Pattern.compile("^\\s{0,3}([-*_])(\\s*\\1){2,}\\s*$");
    private static final Pattern BULLET = Pattern.compile("^(\\s*)([-*+])\\s+(.*)$");
    private static final Pattern ORDERED = Pattern.compile("^(\\s*)(\\d{1,9})([.)])\\s+(.*)$");
    private static final Pattern QUOTE = Pattern.compile("^\\s{0,3}>\\s?(.*)$");

    static final AttributedStyle FAINT = AttributedStyle.DEFAULT.faint();
    static final AttributedStyle CODE = AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN);
    static final AttributedStyle BOLD = AttributedStyle.BOLD;
    static final AttributedStyle ITALIC = AttributedStyle.DEFAULT.italic();
    static final AttributedStyle MARKER = AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);

    private final boolean color;
    private String fence;
    /** Lines that may be a table's rows: held until a line that is not one says whether they are. */
    private final List<String> rows = new ArrayList<>();
    private int width;

    /** A renderer; {@code color} chooses styles, otherwise the lines carry none. */
    public Markdown(boolean color) {
        this.color = color;
    }

    /** Renders a whole text, for tests and for answers that arrive at once. */
    public static List<AttributedString> render(String text, boolean color) {
        Markdown markdown = new Markdown(color);
        List<AttributedString> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            lines.addAll(markdown.line(line));
        }
        lines.addAll(markdown.finish());
        return lines;
    }

    /** The terminal's width in columns, which a table is fitted to; 0 when unknown. */
    public void width(int columns) {
        this.width = columns;
    }

    /** Renders what is held back (a table's rows): the answer has ended, or something else is printed. */
    public List<AttributedString> finish() {
        List<AttributedString> out = held();
        rows.clear();
        return out;
    }

    /** What is held back, as it would show if the table ended now, without moving on. */
    public List<AttributedString> peekHeld() {
        return held();
    }

    /** The held rows as a table when GFM reads them as one, else as the lines they are. */
    private List<AttributedString> held() {
        if (rows.isEmpty()) {
            return List.of();
        }
        return MarkdownTable.render(rows, text -> inline(text, AttributedStyle.DEFAULT), width, style(FAINT), style(BOLD))
                .orElseGet(() -> {
                    List<AttributedString> lines = new ArrayList<>();
                    rows.forEach(row -> lines.add(inline(row, AttributedStyle.DEFAULT)));
                    return lines;
                });
    }

    /** Whether the last line left a code block open. */
    public boolean inCode() {
        return fence != null;
    }

    /** Renders one complete line and moves on. */
    public List<AttributedString> line(String raw) {
        return renderLine(raw, true);
    }

    /** Renders an unfinished line as it would look now, without moving on. */
    public List<AttributedString> peek(String raw) {
        return renderLine(raw, false);
    }

    private List<AttributedString> renderLine(String raw, boolean advance) {
        String line = Printable.line(raw);
        if (fence == null && line.indexOf('|') >= 0 && !line.isBlank()) {
            // a table's row, maybe: its columns are known only when the table has ended
            if (advance) {
                rows.add(line);
                return List.of();
            }
            List<AttributedString> shown = new ArrayList<>(held());
            shown.add(new AttributedString(line));
            return shown;
        }
        List<AttributedString> before = advance ? finish() : held();
        if (before.isEmpty()) {
            return renderBlock(line, advance);
        }
        List<AttributedString> out = new ArrayList<>(before);
        out.addAll(renderBlock(line, advance));
        return out;
    }

    private List<AttributedString> renderBlock(String line, boolean advance) {
        if (fence != null) {
            String trimmed = line.strip();
            if (trimmed.length() >= fence.length() && trimmed.chars().allMatch(c -> c == fence.charAt(0))
                    && line.indexOf(fence.charAt(0)) <= 3) {
                if (advance) {
                    fence = null;
                }
                return List.of(styled(FAINT, "╰╴"));
            }
            return List.of(new AttributedStringBuilder().style(style(FAINT)).append("▏ ").style(style(CODE)).append(line)
                    .toAttributedString());
        }
        Matcher m = FENCE.matcher(line);
        if (m.matches() && !(m.group(1).charAt(0) == '`' && line.indexOf('`', line.indexOf(m.group(1)) + m.group(1).length()) >= 0)) {
            if (advance) {
                fence = m.group(1);
            }
            String language = m.group(2);
            return List.of(styled(FAINT, language.isEmpty() ? "╭╴" : "╭╴" + language));
        }
        if ((m = HEADING.matcher(line)).matches()) {
            int level = m.group(1).length();
            AttributedStyle heading = level == 1 ? BOLD.underline() : level == 2 ? BOLD : BOLD.italic();
            return List.of(inline(m.group(2), heading));
        }
        if (RULE.matcher(line).matches()) {
            return List.of(styled(FAINT, "╌".repeat(40)));
        }
        if ((m = BULLET.matcher(line)).matches()) {
            String indent = "  ".repeat(level(m.group(1)));
            String rest = m.group(3);
            String marker = "• ";
            if (rest.startsWith("[ ] ")) {
                marker = "☐ ";
                rest = rest.substring(4);
            } else if (rest.startsWith("[x] ") || rest.startsWith("[X] ")) {
                marker = "☑ ";
                rest = rest.substring(4);
            }
            return List.of(prefixed(indent + marker, rest, AttributedStyle.DEFAULT));
        }
        if ((m = ORDERED.matcher(line)).matches()) {
            String indent = "  ".repeat(level(m.group(1)));
            return List.of(prefixed(indent + m.group(2) + ". ", m.group(4), AttributedStyle.DEFAULT));
        }
        if ((m = QUOTE.matcher(line)).matches()) {
            AttributedStringBuilder out = new AttributedStringBuilder();
            out.style(style(FAINT)).append("▏ ");
            out.append(inline(m.group(1), ITALIC));
            return List.of(out.toAttributedString());
        }
        return List.of(inline(line, AttributedStyle.DEFAULT));
    }

    /** Nesting level of a list item from its indentation: two spaces (or a tab) per level. */
    private static int level(String indent) {
        int columns = 0;
        for (char c : indent.toCharArray()) {
            columns += c == '\t' ? 4 : 1;
        }
        return Math.min(columns / 2, 8);
    }

    private AttributedString prefixed(String prefix, String rest, AttributedStyle base) {
        AttributedStringBuilder out = new AttributedStringBuilder();
        out.style(style(MARKER)).append(prefix);
        out.append(inline(rest, base));
        return out.toAttributedString();
    }

    private AttributedString styled(AttributedStyle s, String text) {
        return new AttributedString(text, style(s));
    }

    private AttributedStyle style(AttributedStyle s) {
        return color ? s : AttributedStyle.DEFAULT;
    }

    /** Inline Markdown: {@code **bold**}, {@code *em*}, {@code `code`}, {@code ~~struck~~}, links, escapes. */
    AttributedString inline(String text, AttributedStyle base) {
        AttributedStringBuilder out = new AttributedStringBuilder();
        inline(text, base, out);
        return out.toAttributedString();
    }

    private void inline(String text, AttributedStyle base, AttributedStringBuilder out) {
        int i = 0;
        int n = text.length();
        StringBuilder plain = new StringBuilder();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < n && isPunctuation(text.charAt(i + 1))) {
                plain.append(text.charAt(i + 1));
                i += 2;
                continue;
            }
            if (c == '`') {
                int run = run(text, i, '`');
                int close = text.indexOf("`".repeat(run), i + run);
                while (close >= 0 && run(text, close, '`') != run) {
                    close = text.indexOf("`".repeat(run), close + run(text, close, '`'));
                }
                if (close >= 0) {
                    flush(plain, base, out);
                    String code = text.substring(i + run, close);
                    if (code.length() >= 2 && code.startsWith(" ") && code.endsWith(" ") && !code.isBlank()) {
                        code = code.substring(1, code.length() - 1);
                    }
                    if (color) {
                        out.style(base.foreground(AttributedStyle.CYAN)).append(code);
                    } else {
                        out.style(AttributedStyle.DEFAULT).append("`").append(code).append("`");
                    }
                    i = close + run;
                    continue;
                }
                plain.append("`".repeat(run));
                i += run;
                continue;
            }
            if ((c == '*' || c == '_' || c == '~') && i + 1 < n && text.charAt(i + 1) == c) {
                String marker = "" + c + c;
                int close = closing(text, i + 2, marker, c);
                if (close > i + 2 && opens(text, i, 2, c)) {
                    flush(plain, base, out);
                    AttributedStyle inner = c == '~' ? base.crossedOut() : base.bold();
                    inline(text.substring(i + 2, close), color ? inner : AttributedStyle.DEFAULT, out);
                    i = close + 2;
                    continue;
                }
            } else if ((c == '*' || c == '_') && opens(text, i, 1, c)) {
                int close = closing(text, i + 1, "" + c, c);
                if (close > i + 1) {
                    flush(plain, base, out);
                    inline(text.substring(i + 1, close), color ? base.italic() : AttributedStyle.DEFAULT, out);
                    i = close + 1;
                    continue;
                }
            } else if (c == '[') {
                int endText = text.indexOf("](", i + 1);
                int endUrl = endText < 0 ? -1 : text.indexOf(')', endText + 2);
                if (endText > i && endUrl > endText && text.indexOf('\n', i) < 0
                        && !text.substring(endText + 2, endUrl).contains(" ")) {
                    flush(plain, base, out);
                    String label = text.substring(i + 1, endText);
                    String url = text.substring(endText + 2, endUrl);
                    inline(label, color ? base.underline() : AttributedStyle.DEFAULT, out);
                    if (!url.equals(label) && !url.isEmpty()) {
                        out.style(style(FAINT)).append(" (" + url + ")");
                    }
                    i = endUrl + 1;
                    continue;
                }
            }
            plain.append(c);
            i++;
        }
        flush(plain, base, out);
    }

    /** Whether a delimiter run at {@code i} can open emphasis: followed by a non-space, and {@code _} not inside a word. */
    private static boolean opens(String text, int i, int length, char c) {
        int after = i + length;
        if (after >= text.length() || Character.isWhitespace(text.charAt(after))) {
            return false;
        }
        return c != '_' || i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1));
    }

    /** The start of the closing delimiter, preceded by a non-space, and {@code _} not followed by a letter; -1 if none. */
    private static int closing(String text, int from, String marker, char c) {
        int at = text.indexOf(marker, from);
        while (at >= 0) {
            boolean afterSpace = Character.isWhitespace(text.charAt(at - 1));
            boolean doubled = marker.length() == 1 && at + 1 < text.length() && text.charAt(at + 1) == c;
            boolean wordFollows = c == '_' && at + marker.length() < text.length()
                    && Character.isLetterOrDigit(text.charAt(at + marker.length()));
            if (!afterSpace && !doubled && !wordFollows) {
                return at;
            }
            at = text.indexOf(marker, at + (doubled ? 2 : 1));
        }
        return -1;
    }

    private static int run(String text, int i, char c) {
        int j = i;
        while (j < text.length() && text.charAt(j) == c) {
            j++;
        }
        return j - i;
    }

    private static boolean isPunctuation(char c) {
        return "\\`*_{}[]()#+-.!~|<>".indexOf(c) >= 0;
    }

    private void flush(StringBuilder plain, AttributedStyle base, AttributedStringBuilder out) {
        if (plain.length() > 0) {
            out.style(color ? base : AttributedStyle.DEFAULT).append(plain);
            plain.setLength(0);
        }
    }
}
