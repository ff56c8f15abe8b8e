package dev.quiver.kernel.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The common case without tree-sitter: one simple command of plain words ({@code git status},
 * {@code mvn -q test}, {@code rm -rf target}) — only letters, digits, blanks and
 * {@code _ . / : = + , @ % -}, so no quoting, expansion, glob, operator, redirection or comment
 * can be in it and splitting on blanks is exactly what bash does.
 */
final class PlainCommand {

    /** First words that are reserved or that the grammar reads as something else than a command. */
    private static final Set<String> NOT_PLAIN = Set.of(
            "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
            "function", "select", "declare", "export", "local", "readonly", "typeset", "unset");

    private PlainCommand() {
    }

    /** Splits a plain command into the sink; false (nothing added) when the text is not plain. */
    static boolean split(String source, int depth, Sink sink) {
        int n = source.length();
        if (n > 4096) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = source.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == ' ' || c == '\t' || c == '_' || c == '.' || c == '/' || c == ':' || c == '='
                    || c == '+' || c == ',' || c == '@' || c == '%' || c == '-';
            if (!plain) {
                return false;
            }
        }
        List<Word> words = new ArrayList<>();
        int i = 0;
        while (i < n) {
            while (i < n && (source.charAt(i) == ' ' || source.charAt(i) == '\t')) {
                i++;
            }
            int start = i;
            while (i < n && source.charAt(i) != ' ' && source.charAt(i) != '\t') {
                i++;
            }
            if (i > start) {
                String w = source.substring(start, i);
                if (words.isEmpty() && Expander.isAssignment(w)) {
                    continue;
                }
                if (words.isEmpty() && NOT_PLAIN.contains(w)) {
                    return false;
                }
                words.add(Word.literal(w));
            }
        }
        if (!words.isEmpty()) {
            Expander.emit(sink, words, List.of(), List.of(), depth);
        }
        return true;
    }
}
