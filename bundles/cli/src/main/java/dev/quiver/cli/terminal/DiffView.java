package dev.quiver.cli.terminal;

import java.util.ArrayList;
import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;

/**
 * A change's unified diff as the approval question shows it: coloured by line kind, and folded past
 * {@value #FOLDED} lines, with the key that shows the rest ({@code d}).
 */
final class DiffView {

    /** Lines shown before the question; the rest on {@code d}. */
    static final int FOLDED = 40;
    static final String KEY = "d";

    private static final AttributedStyle ADDED = AttributedStyle.DEFAULT.foreground(AttributedStyle.GREEN);
    private static final AttributedStyle REMOVED = AttributedStyle.DEFAULT.foreground(AttributedStyle.RED);
    private static final AttributedStyle HUNK = AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN);

    private final List<String> lines;

    DiffView(String diff) {
        String text = diff.endsWith("\n") ? diff.substring(0, diff.length() - 1) : diff;
        this.lines = List.of(text.split("\n", -1));
    }

    /** Whether lines are left out of {@link #head}. */
    boolean folded() {
        return lines.size() > FOLDED;
    }

    /** The first lines, and when more follow, a line saying how many and how to see them. */
    List<AttributedString> head() {
        List<AttributedString> shown = styled(0, Math.min(FOLDED, lines.size()));
        if (folded()) {
            shown.add(new AttributedString("    ... " + (lines.size() - FOLDED) + " more lines of the diff: answer "
                    + KEY + " to show them", Markdown.FAINT));
        }
        return shown;
    }

    /** Every line, unfolded. */
    List<AttributedString> all() {
        return styled(0, lines.size());
    }

    /** The lines {@link #head} left out. */
    List<AttributedString> rest() {
        return styled(Math.min(FOLDED, lines.size()), lines.size());
    }

    private List<AttributedString> styled(int from, int to) {
        List<AttributedString> out = new ArrayList<>();
        for (String line : lines.subList(from, to)) {
            out.add(new AttributedString("    " + Printable.visible(line), style(line)));
        }
        return out;
    }

    private static AttributedStyle style(String line) {
        if (line.startsWith("+++") || line.startsWith("---")) {
            return AttributedStyle.BOLD;
        }
        if (line.startsWith("+")) {
            return ADDED;
        }
        if (line.startsWith("-")) {
            return REMOVED;
        }
        if (line.startsWith("@@")) {
            return HUNK;
        }
        return AttributedStyle.DEFAULT;
    }
}
