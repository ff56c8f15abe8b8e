package dev.quiver.cli.terminal;

import java.util.List;
import org.jline.utils.AttributedString;

/** The part of the screen that is redrawn while a turn runs: the unfinished line, the running call and its output. */
public interface Live {

    /** Nothing is drawn live (line mode). */
    Live NONE = new Live() {
    };

    /** The answer's unfinished line, rendered; empty when there is none. */
    default void tail(List<AttributedString> lines) {
    }

    /** A call began. */
    default void callStarted(String tool, String summary) {
    }

    /** Output of the running call. */
    default void callOutput(String text) {
    }

    /** The running call ended. */
    default void callEnded() {
    }

    /** Whether this shows call output live (otherwise the turn prints it as finished lines). */
    default boolean showsOutput() {
        return false;
    }
}
