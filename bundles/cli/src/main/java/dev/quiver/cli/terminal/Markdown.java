package dev.quiver.cli.terminal;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.ext.gfm.strikethrough.Strikethrough;
import org.commonmark.ext.gfm.strikethrough.StrikethroughExtension;
import org.commonmark.node.Code;
import org.commonmark.node.Emphasis;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * Renders the model's Markdown as it streams, for a terminal. Blocks are told one line at a time, as
 * the answer arrives (headings, lists, block quotes, rules, fenced code), since a streaming answer
 * cannot wait for a whole document; what a line holds (emphasis, code, links, strikethrough,
 * escapes) and GFM tables are read by commonmark-java. The same text comes out with styles
 * ({@code color}) or without; without, no escape code is ever written, and inline code keeps its
 * backticks so the text still says what was code.
 *
 * <p>Stateful across code fences and table rows: {@link #line} moves the state on, {@link #peek}
 * renders an unfinished line (the part of the answer still streaming) without moving it, so an
 * unclosed fence renders as a code block that grows.
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

    private static final Parser INLINES = Parser.builder().extensions(List.of(StrikethroughExtension.create())).build();

    /**
     * Inline Markdown, read by commonmark-java (with GFM strikethrough): emphasis, strong, code, links,
     * escapes, autolinks. Text that commonmark reads as a block other than one paragraph (an indented
     * code block, HTML) is shown as it is.
     */
    AttributedString inline(String text, AttributedStyle base) {
        Node document = INLINES.parse(text);
        Node paragraph = document.getFirstChild();
        AttributedStringBuilder out = new AttributedStringBuilder();
        if (!(paragraph instanceof Paragraph) || paragraph.getNext() != null) {
            return out.style(style(base)).append(text).toAttributedString();
        }
        inlines(paragraph, base, out);
        return out.toAttributedString();
    }

    private void inlines(Node parent, AttributedStyle base, AttributedStringBuilder out) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNext()) {
            if (node instanceof Text text) {
                out.style(style(base)).append(text.getLiteral());
            } else if (node instanceof Code code) {
                if (color) {
                    out.style(base.foreground(AttributedStyle.CYAN)).append(code.getLiteral());
                } else {
                    // without styles, the backticks still say what was code
                    out.style(AttributedStyle.DEFAULT).append("`").append(code.getLiteral()).append("`");
                }
            } else if (node instanceof Emphasis) {
                inlines(node, base.italic(), out);
            } else if (node instanceof StrongEmphasis) {
                inlines(node, base.bold(), out);
            } else if (node instanceof Strikethrough) {
                inlines(node, base.crossedOut(), out);
            } else if (node instanceof Link link) {
                int start = out.length();
                inlines(node, base.underline(), out);
                String label = out.toAttributedString().subSequence(start, out.length()).toString();
                if (!link.getDestination().isEmpty() && !link.getDestination().equals(label)) {
                    out.style(style(FAINT)).append(" (" + link.getDestination() + ")");
                }
            } else if (node instanceof Image image) {
                out.style(style(FAINT)).append("[image: ");
                inlines(node, base, out);
                out.style(style(FAINT)).append("] (" + image.getDestination() + ")");
            } else if (node instanceof SoftLineBreak || node instanceof HardLineBreak) {
                out.style(style(base)).append(" ");
            } else if (node instanceof HtmlInline html) {
                out.style(style(base)).append(html.getLiteral());
            } else {
                inlines(node, base, out);
            }
        }
    }
}
