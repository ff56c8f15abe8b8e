package dev.quiver.tools.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.Elements;

/**
 * A parsed HTML page as readable, markdown-like text: headings as {@code #}, paragraphs, lists,
 * quotes, tables, fenced code blocks and links as {@code text (url)}. Scripts, styles, navigation,
 * forms and hidden elements are dropped; a page with one {@code main} (or one {@code article}) is
 * read from there.
 */
final class HtmlText {

    private static final Set<String> DROPPED = Set.of("script", "style", "noscript", "template", "svg", "canvas",
            "iframe", "object", "embed", "head", "nav", "form", "input", "button", "select", "textarea", "option",
            "dialog", "audio", "video", "map", "link", "meta");
    private static final Set<String> BLOCKS = Set.of("address", "article", "aside", "body", "center", "dd", "details",
            "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "html", "li", "main",
            "menu", "p", "section", "summary", "caption", "legend");
    private static final Pattern LANGUAGE = Pattern.compile("(?:^|\\s)(?:language|lang)-([\\w+#.-]+)");
    private static final Pattern HIDDEN_STYLE = Pattern.compile("(?i)display\\s*:\\s*none|visibility\\s*:\\s*hidden");

    private HtmlText() {
    }

    /** The page's title, empty when it has none. */
    static String title(Document document) {
        return document.title().strip();
    }

    /** The page's content as text. */
    static String render(Document document) {
        Element root = document.body();
        Elements main = document.select("main, [role=main]");
        if (main.size() == 1) {
            root = main.first();
        } else {
            Elements articles = document.select("article");
            if (articles.size() == 1) {
                root = articles.first();
            }
        }
        Out out = new Out();
        walk(root, out);
        return out.result("\n\n");
    }

    private static void walk(Node parent, Out out) {
        for (Node child : parent.childNodes()) {
            visit(child, out);
        }
    }

    private static void visit(Node node, Out out) {
        if (node instanceof TextNode text) {
            out.text(text.getWholeText());
            return;
        }
        if (!(node instanceof Element element)) {
            return;
        }
        String tag = element.normalName();
        if (DROPPED.contains(tag) || hidden(element)) {
            return;
        }
        switch (tag) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                String heading = inline(element);
                if (!heading.isEmpty()) {
                    out.block("#".repeat(tag.charAt(1) - '0') + " " + heading);
                }
            }
            case "br" -> out.lineBreak();
            case "hr" -> out.block("---");
            case "pre" -> out.block(fence(element));
            case "ul", "ol" -> out.block(list(element, tag.equals("ol")));
            case "blockquote" -> {
                Out inner = new Out();
                walk(element, inner);
                out.block(prefixLines(inner.result("\n\n"), "> ", "> "));
            }
            case "table" -> out.block(table(element));
            case "a" -> link(element, out);
            case "img" -> {
                String alt = element.attr("alt").strip();
                if (!alt.isEmpty()) {
                    out.inline("[image: " + collapse(alt) + "]");
                }
            }
            case "code", "kbd", "samp", "tt" -> {
                String code = collapse(element.text()).strip();
                if (!code.isEmpty()) {
                    out.inline("`" + code + "`");
                }
            }
            default -> {
                if (BLOCKS.contains(tag)) {
                    out.flush();
                    walk(element, out);
                    out.flush();
                } else {
                    walk(element, out);
                }
            }
        }
    }

    private static boolean hidden(Element element) {
        return element.hasAttr("hidden") || element.attr("aria-hidden").equalsIgnoreCase("true")
                || HIDDEN_STYLE.matcher(element.attr("style")).find();
    }

    /** An element's content on one line. */
    private static String inline(Element element) {
        Out inner = new Out();
        walk(element, inner);
        return collapse(inner.result(" ")).strip();
    }

    private static void link(Element element, Out out) {
        String text = inline(element);
        String raw = element.attr("href").strip();
        String url = element.absUrl("href");
        if (url.isEmpty() || raw.startsWith("#") || !(url.startsWith("http://") || url.startsWith("https://")
                || url.startsWith("mailto:"))) {
            out.inline(text);
            return;
        }
        if (text.isEmpty()) {
            return;
        }
        out.inline(text.equals(url) || text.equals(raw) ? url : text + " (" + url + ")");
    }

    private static String fence(Element pre) {
        String code = pre.wholeText();
        code = code.replaceAll("^\\n+", "").stripTrailing();
        String language = "";
        for (Element candidate : List.of(pre, pre.children().isEmpty() ? pre : pre.child(0))) {
            Matcher m = LANGUAGE.matcher(candidate.className());
            if (m.find()) {
                language = m.group(1);
                break;
            }
        }
        String marks = "```";
        while (code.contains(marks)) {
            marks += "`";
        }
        return marks + language + "\n" + code + "\n" + marks;
    }

    private static String list(Element list, boolean ordered) {
        List<String> items = new ArrayList<>();
        int number = 1;
        try {
            number = Integer.parseInt(list.attr("start").strip());
        } catch (NumberFormatException e) {
            // from 1
        }
        for (Element item : list.children()) {
            if (DROPPED.contains(item.normalName()) || hidden(item)) {
                continue;
            }
            Out inner = new Out();
            if (item.normalName().equals("li")) {
                walk(item, inner);
            } else {
                visit(item, inner);
            }
            String body = inner.result("\n");
            if (body.isBlank()) {
                continue;
            }
            String marker = ordered ? (number++) + ". " : "- ";
            items.add(prefixLines(body, marker, " ".repeat(marker.length())));
        }
        return String.join("\n", items);
    }

    private static String table(Element table) {
        List<String> rows = new ArrayList<>();
        boolean first = true;
        for (Element row : table.select("tr")) {
            if (row.closest("table") != table) {
                continue;
            }
            List<String> cells = new ArrayList<>();
            boolean header = true;
            for (Element cell : row.children()) {
                if (cell.normalName().equals("td") || cell.normalName().equals("th")) {
                    cells.add(inline(cell).replace("|", "\\|"));
                    header &= cell.normalName().equals("th");
                }
            }
            if (cells.isEmpty()) {
                continue;
            }
            rows.add("| " + String.join(" | ", cells) + " |");
            if (first && header) {
                rows.add("|" + "---|".repeat(cells.size()));
            }
            first = false;
        }
        return String.join("\n", rows);
    }

    private static String prefixLines(String text, String first, String rest) {
        StringBuilder result = new StringBuilder();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) {
                result.append('\n');
            }
            String prefix = i == 0 ? first : rest;
            result.append(lines[i].isEmpty() ? prefix.stripTrailing() : prefix + lines[i]);
        }
        return result.toString();
    }

    private static String collapse(String text) {
        return text.replace('\u00a0', ' ').replaceAll("[ \\t\\r\\n\\f\\u000b]+", " ");
    }

    /** Blocks of text being built, and the paragraph now open. */
    private static final class Out {
        private final List<String> blocks = new ArrayList<>();
        private final StringBuilder paragraph = new StringBuilder();

        /** Text as it appears in the page: its whitespace collapses. */
        void text(String text) {
            inline(collapse(text));
        }

        /** Inline text, joined to what comes before by at most one space. */
        void inline(String text) {
            if (text.isEmpty()) {
                return;
            }
            int end = paragraph.length();
            boolean endsOpen = end == 0 || paragraph.charAt(end - 1) == ' ' || paragraph.charAt(end - 1) == '\n';
            if (endsOpen && text.charAt(0) == ' ') {
                text = text.substring(1);
            }
            paragraph.append(text);
        }

        void lineBreak() {
            paragraph.append('\n');
        }

        void flush() {
            List<String> lines = new ArrayList<>();
            for (String line : paragraph.toString().split("\n")) {
                String stripped = line.strip();
                if (!stripped.isEmpty()) {
                    lines.add(stripped);
                }
            }
            paragraph.setLength(0);
            if (!lines.isEmpty()) {
                blocks.add(String.join("\n", lines));
            }
        }

        void block(String text) {
            flush();
            if (!text.isBlank()) {
                blocks.add(text);
            }
        }

        String result(String separator) {
            flush();
            return String.join(separator, blocks);
        }
    }
}
