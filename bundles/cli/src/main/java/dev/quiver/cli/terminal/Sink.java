package dev.quiver.cli.terminal;

import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;

/** Where finished lines go: printed once, above the live part of the screen, and never redrawn. */
public interface Sink {

    /** A finished line. */
    void line(AttributedString line);

    /** The terminal's width in columns, 0 when unknown (a pipe). */
    int width();

    /** Finished lines, in order. */
    default void lines(List<AttributedString> lines) {
        for (AttributedString line : lines) {
            line(line);
        }
    }

    /** A plain finished line. */
    default void line(String text) {
        line(new AttributedString(text));
    }

    /** A remark in a quiet style: {@code · history compacted}. */
    default void notice(String text) {
        line(new AttributedString("· " + text, Markdown.FAINT));
    }

    /** A failure, in red: {@code error: ...}. */
    default void error(String text) {
        line(new AttributedString("error: " + text, AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
    }
}
