package dev.quiver.bash;

import java.util.Objects;

/**
 * One redirection of a simple command.
 *
 * <p>Operators are spelled as in the source: {@code >}, {@code >>}, {@code <}, {@code &>},
 * {@code &>>}, {@code >|}, {@code >&}, {@code <&}, {@code <<<} (here-string; the target is the
 * string), {@code <<} and {@code <<-} (here-document; the target is the document's body, which is
 * data, literal when the delimiter is quoted or the body holds no expansion). {@code 2>&-} is
 * operator {@code >&} with target {@code -}.
 *
 * @param fd the explicit file descriptor ({@code 2} in {@code 2>err}), or null
 */
public record Redirect(String operator, Word target, Integer fd) {

    public Redirect {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(target, "target");
    }

    /** True for operators that write to or truncate the target. */
    public boolean writes() {
        return switch (operator) {
            case ">", ">>", "&>", "&>>", ">|", "<>" -> true;
            case ">&" -> !target.value().equals("-") && !isNumber(target.value());
            default -> false;
        };
    }

    /** True for here-documents and here-strings, whose target is data fed to standard input. */
    public boolean feedsData() {
        return operator.equals("<<") || operator.equals("<<-") || operator.equals("<<<");
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
