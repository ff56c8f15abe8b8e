package dev.quiver.cli.terminal;

import dev.quiver.api.UserQuestion;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * A tool's question as the terminal shows it: the options under a cursor (arrow keys or their number
 * move it, space ticks one when several may be chosen, enter chooses), or an input line for a free
 * answer. Text typed instead of choosing is an answer of its own. Plain state, so it is tested without
 * a terminal; the front end draws {@link #lines} and calls the moves from its key bindings.
 */
public final class QuestionPicker {

    private final UserQuestion question;
    private final boolean[] ticked;
    private int cursor;

    public QuestionPicker(UserQuestion question) {
        this.question = question;
        this.ticked = new boolean[question.options().size()];
    }

    /** Whether there are options to choose from (otherwise the answer is typed). */
    public synchronized boolean hasOptions() {
        return ticked.length > 0;
    }

    public synchronized void up() {
        if (ticked.length > 0) {
            cursor = (cursor + ticked.length - 1) % ticked.length;
        }
    }

    public synchronized void down() {
        if (ticked.length > 0) {
            cursor = (cursor + 1) % ticked.length;
        }
    }

    /** A number key: the cursor goes to that option (counted from 0), and ticks it when several may be chosen. */
    public synchronized void select(int index) {
        if (index >= 0 && index < ticked.length) {
            cursor = index;
            if (question.multiple()) {
                ticked[index] = !ticked[index];
            }
        }
    }

    /** Space: ticks or unticks the option under the cursor when several may be chosen. */
    public synchronized void toggle() {
        if (question.multiple() && ticked.length > 0) {
            ticked[cursor] = !ticked[cursor];
        }
    }

    /**
     * The answer enter gives with {@code typed} on the input line: the text when something was typed, else
     * the option under the cursor, or with several allowed the ticked ones (the one under the cursor when
     * none is). Empty when there is nothing to answer yet (a free question with nothing typed).
     */
    public synchronized Optional<List<String>> answer(String typed) {
        String text = typed == null ? "" : typed.strip();
        if (!text.isEmpty()) {
            return Optional.of(List.of(text));
        }
        if (ticked.length == 0) {
            return Optional.empty();
        }
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < ticked.length; i++) {
            if (ticked[i]) {
                chosen.add(question.options().get(i).label());
            }
        }
        return Optional.of(chosen.isEmpty() ? List.of(question.options().get(cursor).label()) : chosen);
    }

    /** The options, one line each, the cursor's marked: {@code › 1. [x] label  detail}. */
    public synchronized List<AttributedString> lines(int width) {
        List<AttributedString> lines = new ArrayList<>();
        List<UserQuestion.Option> options = question.options();
        for (int i = 0; i < options.size(); i++) {
            UserQuestion.Option option = options.get(i);
            boolean here = i == cursor;
            AttributedStringBuilder line = new AttributedStringBuilder();
            line.style(here ? LiveArea.QUESTION : AttributedStyle.DEFAULT).append(here ? "› " : "  ")
                    .append(String.valueOf(i + 1)).append(". ");
            if (question.multiple()) {
                line.append(ticked[i] ? "[x] " : "[ ] ");
            }
            String label = Printable.line(option.label()) + (i == 0 ? " (recommended)" : "");
            line.style(here ? AttributedStyle.BOLD : AttributedStyle.DEFAULT).append(label);
            if (!option.detail().isEmpty()) {
                int room = Math.max(0, width - 1 - line.columnLength() - 2);
                line.style(Markdown.FAINT).append("  ").append(Printable.cut(Printable.line(option.detail()), room));
            }
            lines.add(line.toAttributedString());
        }
        return lines;
    }

    /** What the keys do, for the line under the options. */
    public synchronized String keys() {
        if (ticked.length == 0) {
            return "type your answer · enter sends · esc dismisses";
        }
        return "↑↓ or 1-" + ticked.length + " move" + (question.multiple() ? " · space ticks" : "")
                + " · enter chooses · or type an answer · esc dismisses";
    }
}
