package dev.quiver.api;

import java.util.List;
import java.util.Objects;

/**
 * A question a tool puts to the person at the front end ({@link ToolContext#askUser}).
 *
 * @param question what to ask, in one or a few sentences
 * @param options the answers to choose from, the recommended one first; empty for a free-text answer
 * @param multiple whether several options may be chosen
 * @since 1.8
 */
public record UserQuestion(String question, List<Option> options, boolean multiple) {

    /**
     * One answer to choose.
     *
     * @param label what the person chooses, and what the tool gets back
     * @param detail what the choice means or costs; may be empty
     */
    public record Option(String label, String detail) {
        public Option {
            Objects.requireNonNull(label, "label");
            detail = detail == null ? "" : detail;
        }
    }

    public UserQuestion {
        Objects.requireNonNull(question, "question");
        options = List.copyOf(options);
    }
}
