package dev.quiver.cli.terminal;

import dev.quiver.api.UserQuestion;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A typed line as the answer to a tool's question: option numbers, or text of its own; nothing dismisses. */
final class LineAnswer {

    private LineAnswer() {
    }

    static Optional<List<String>> read(String line, UserQuestion question) {
        String text = line == null ? "" : line.strip();
        if (text.isEmpty()) {
            return Optional.empty();
        }
        List<UserQuestion.Option> options = question.options();
        if (!options.isEmpty() && text.matches("[0-9]{1,3}([ ,]+[0-9]{1,3})*")) {
            List<String> chosen = new ArrayList<>();
            for (String number : text.split("[ ,]+")) {
                int index = Integer.parseInt(number) - 1;
                if (index < 0 || index >= options.size()) {
                    // not an option's number: the text is the answer, as anything else typed is
                    return Optional.of(List.of(text));
                }
                String label = options.get(index).label();
                if (!chosen.contains(label)) {
                    chosen.add(label);
                }
            }
            if (chosen.size() == 1 || question.multiple()) {
                return Optional.of(chosen);
            }
        }
        return Optional.of(List.of(text));
    }
}
