package dev.quiver.cli.terminal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableHead;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.Node;
import org.commonmark.node.SourceSpan;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * A GFM table as the terminal shows it: parsed by commonmark-java's tables extension (so what is a
 * table, its columns and their alignment are GFM's), each cell's Markdown rendered as the rest of the
 * answer is, and the columns padded to line up, shrunk to the terminal's width when they do not fit.
 */
final class MarkdownTable {

    private static final Parser PARSER = Parser.builder().extensions(List.of(TablesExtension.create()))
            .includeSourceSpans(IncludeSourceSpans.BLOCKS_AND_INLINES).build();
    private static final String SEPARATOR = " │ ";
    /** The narrowest a shrunk column gets. */
    private static final int MIN_COLUMN = 3;

    private MarkdownTable() {
    }

    /**
     * The lines as a table, or empty when GFM does not read them as exactly one table.
     *
     * @param inline renders one cell's Markdown, as the answer's other text is
     * @param width the terminal's columns; 0 when unknown
     */
    static Optional<List<AttributedString>> render(List<String> lines, Function<String, AttributedString> inline,
            int width, AttributedStyle faint, AttributedStyle bold) {
        Node document = PARSER.parse(String.join("\n", lines));
        if (!(document.getFirstChild() instanceof TableBlock table) || table.getNext() != null) {
            return Optional.empty();
        }
        List<List<AttributedString>> rows = new ArrayList<>();
        List<TableCell.Alignment> alignments = new ArrayList<>();
        int[] headerRows = {0};
        for (Node section = table.getFirstChild(); section != null; section = section.getNext()) {
            boolean head = section instanceof TableHead;
            for (Node row = section.getFirstChild(); row != null; row = row.getNext()) {
                List<AttributedString> cells = new ArrayList<>();
                for (Node cell = row.getFirstChild(); cell != null; cell = cell.getNext()) {
                    if (head) {
                        alignments.add(((TableCell) cell).getAlignment());
                    }
                    cells.add(inline.apply(source(lines, cell)));
                }
                rows.add(cells);
                if (head) {
                    headerRows[0]++;
                }
            }
        }
        int columns = alignments.size();
        int[] widths = new int[columns];
        for (List<AttributedString> row : rows) {
            for (int c = 0; c < Math.min(columns, row.size()); c++) {
                widths[c] = Math.max(widths[c], row.get(c).columnLength());
            }
        }
        shrink(widths, width);
        List<AttributedString> out = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            AttributedStringBuilder line = new AttributedStringBuilder();
            for (int c = 0; c < columns; c++) {
                if (c > 0) {
                    line.style(faint).append(SEPARATOR);
                }
                AttributedString cell = c < rows.get(r).size() ? rows.get(r).get(c) : AttributedString.EMPTY;
                if (r < headerRows[0]) {
                    cell = new AttributedString(cell.toString(), bold);
                }
                line.append(pad(cell, widths[c], alignments.get(c)));
            }
            out.add(trimEnd(line.toAttributedString()));
            if (r == headerRows[0] - 1) {
                AttributedStringBuilder rule = new AttributedStringBuilder().style(faint);
                for (int c = 0; c < columns; c++) {
                    rule.append(c > 0 ? "─┼─" : "").append("─".repeat(widths[c]));
                }
                out.add(rule.toAttributedString());
            }
        }
        return Optional.of(out);
    }

    /** A cell's Markdown as it was written: the text its source spans cover. */
    private static String source(List<String> lines, Node cell) {
        List<SourceSpan> spans = cell.getSourceSpans();
        if (spans.isEmpty()) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (SourceSpan span : spans) {
            String line = lines.get(span.getLineIndex());
            int end = Math.min(line.length(), span.getColumnIndex() + span.getLength());
            text.append(line, Math.min(span.getColumnIndex(), end), end);
        }
        String cellText = text.toString().strip();
        // the cell's span may include its closing pipe
        if (cellText.endsWith("|") && !cellText.endsWith("\\|")) {
            cellText = cellText.substring(0, cellText.length() - 1).strip();
        }
        if (cellText.startsWith("|")) {
            cellText = cellText.substring(1).strip();
        }
        return cellText.replace("\\|", "|");
    }

    /** Narrows the widest columns, one column at a time, until the row fits {@code width}. */
    private static void shrink(int[] widths, int width) {
        if (width <= 0) {
            return;
        }
        int total = SEPARATOR.length() * Math.max(0, widths.length - 1);
        for (int w : widths) {
            total += w;
        }
        while (total > width - 1) {
            int widest = 0;
            for (int c = 1; c < widths.length; c++) {
                if (widths[c] > widths[widest]) {
                    widest = c;
                }
            }
            if (widths[widest] <= MIN_COLUMN) {
                return;
            }
            widths[widest]--;
            total--;
        }
    }

    private static AttributedString pad(AttributedString cell, int width, TableCell.Alignment alignment) {
        AttributedString fitted = cell;
        if (cell.columnLength() > width) {
            fitted = new AttributedStringBuilder().append(cell.columnSubSequence(0, Math.max(0, width - 1))).append("…")
                    .toAttributedString();
        }
        int room = width - fitted.columnLength();
        int left = alignment == TableCell.Alignment.RIGHT ? room : alignment == TableCell.Alignment.CENTER ? room / 2 : 0;
        return new AttributedStringBuilder().append(" ".repeat(left)).append(fitted).append(" ".repeat(room - left))
                .toAttributedString();
    }

    private static AttributedString trimEnd(AttributedString line) {
        String text = line.toString();
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == ' ') {
            end--;
        }
        return line.subSequence(0, end);
    }
}
