package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The common case without tree-sitter: a command line of plain simple commands joined by
 * {@code &&}, {@code ||}, {@code |}, {@code ;}, {@code &} and newlines ({@code git status && mvn -q
 * test | tail -5}). Words are made of letters, digits and {@code _ . / : = + , @ % - * ?}, and of
 * quoted strings without expansions ({@code 'a b'}, {@code "x y"}: no {@code $}, backtick or
 * backslash inside); a simple command may end in redirections to such words ({@code > out.txt},
 * {@code 2>&1}, {@code >> log}, {@code < in}). Nothing else: no expansion, substitution, brace,
 * bracket, tilde, comment, escape, reserved word or compound command can be in such a line, so
 * splitting it here gives what the grammar gives (checked against tree-sitter by the tests, line by
 * line). Anything else goes to tree-sitter.
 */
final class PlainCommand {

    /** First words that are reserved or that the grammar reads as something else than a command. */
    private static final Set<String> NOT_PLAIN = Set.of(
            "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
            "function", "select", "declare", "export", "local", "readonly", "typeset", "unset", "time", "coproc");

    private static final int MAX_LENGTH = 4096;

    private final String source;
    private final int depth;
    private final Sink sink;
    private int pos;

    private PlainCommand(String source, int depth, Sink sink) {
        this.source = source;
        this.depth = depth;
        this.sink = sink;
    }

    /** Splits a plain line into the sink; false (nothing added) when the line is not plain. */
    static boolean split(String source, int depth, Sink sink) {
        if (source.length() > MAX_LENGTH || !plainCharacters(source)) {
            return false;
        }
        // straight into the sink, taken back when the line turns out not to be plain: most lines are
        Sink.Mark mark = sink.mark();
        if (!new PlainCommand(source, depth, sink).statements()) {
            sink.rollBack(mark);
            return false;
        }
        return true;
    }

    /** Only characters a plain line can hold, quotes balanced and free of expansions. */
    private static boolean plainCharacters(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '\'') {
                int close = s.indexOf('\'', i + 1);
                if (close < 0) {
                    return false;
                }
                i = close;
            } else if (c == '"') {
                int k = i + 1;
                while (k < n && s.charAt(k) != '"') {
                    char q = s.charAt(k);
                    if (q == '$' || q == '`' || q == '\\') {
                        return false;
                    }
                    k++;
                }
                if (k >= n) {
                    return false;
                }
                i = k;
            } else if (!wordChar(c) && !blank(c) && c != '\n' && c != '&' && c != '|' && c != ';' && c != '>'
                    && c != '<') {
                return false;
            }
        }
        return true;
    }

    private static boolean wordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
                || c == '/' || c == ':' || c == '=' || c == '+' || c == ',' || c == '@' || c == '%' || c == '-'
                || c == '*' || c == '?';
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * Statements separated by {@code ;}, {@code &} or newlines; each is an and-or list of pipelines,
     * and one followed by {@code &} runs in the background as a whole.
     */
    private boolean statements() {
        skipBlanks();
        while (pos < source.length()) {
            if (peek() == '\n') {
                pos++;
                skipBlanks();
                continue;
            }
            int start = sink.size();
            int stages = andOr();
            if (stages < 0) {
                return false;
            }
            skipBlanks();
            if (pos >= source.length()) {
                break;
            }
            char c = peek();
            if (c == '\n' && stages >= 3 && !source.substring(pos).isBlank()) {
                return false; // the grammar may run the pipeline's last command on into the next line
            }
            if (c == ';' || c == '&') {
                pos++;
                if (c == '&') {
                    sink.backgrounds.add(new Structure.Stage(start, sink.size()));
                }
                skipBlanks();
                if (pos < source.length() && (peek() == ';' || peek() == '&' || peek() == '|')) {
                    return false; // ;; &; and the like: not a plain line
                }
            } else if (c != '\n') {
                return false;
            }
        }
        return true;
    }

    /**
     * One statement: pipelines joined by {@code &&} and {@code ||}; the most stages of its pipelines,
     * or -1 when it is not plain. A statement with both is left to
     * the grammar, which groups some of them otherwise than bash does ({@code a | b | c && d} as
     * {@code a | (b | c && d)}; {@code a && b 2>&1 | c} with both commands in the first stage), and
     * the guard reads its pipelines as the grammar groups them.
     */
    private int andOr() {
        int most = 0;
        boolean joined = false;
        while (true) {
            int stages = pipeline();
            if (stages < 0) {
                return -1;
            }
            most = Math.max(most, stages);
            skipBlanks();
            if (source.startsWith("&&", pos) || source.startsWith("||", pos)) {
                joined = true;
                pos += 2;
                skipBlanksAndNewlines();
            } else {
                return most > 1 && joined ? -1 : most;
            }
        }
    }

    /** A pipeline's stage count, or -1 when it is not plain. */
    private int pipeline() {
        List<Structure.Stage> stages = new ArrayList<>();
        while (true) {
            int start = sink.size();
            int command = simpleCommand();
            if (command < 0) {
                return -1;
            }
            stages.add(new Structure.Stage(start, sink.size()));
            skipBlanks();
            if (pos < source.length() && peek() == '|' && !source.startsWith("||", pos)) {
                if (command == REDIRECTED && stages.size() > 1) {
                    return -1; // a | b <in | c: the grammar nests the pipelines around the redirected b
                }
                pos++;
                if (pos < source.length() && peek() == '&') {
                    return -1; // |& is not in the plain subset
                }
                skipBlanksAndNewlines();
            } else {
                sink.addPipeline(stages);
                return stages.size();
            }
        }
    }

    /** What {@link #simpleCommand} read: words only, or words and redirections. */
    private static final int WORDS = 0;
    private static final int REDIRECTED = 1;

    /** Words, then redirections: {@link #WORDS}, {@link #REDIRECTED}, or -1 when anything else comes (or nothing). */
    private int simpleCommand() {
        skipBlanks();
        List<Word> words = new ArrayList<>();
        List<Redirect> redirects = new ArrayList<>();
        List<Word> assignments = new ArrayList<>();
        while (pos < source.length()) {
            char c = peek();
            if (blank(c)) {
                skipBlanks();
                continue;
            }
            if (c == '\n' || c == ';' || c == '&' && !source.startsWith("&>", pos) || c == '|') {
                break;
            }
            int fdEnd = pos;
            while (fdEnd < source.length() && Character.isDigit(source.charAt(fdEnd))) {
                fdEnd++;
            }
            if (fdEnd < source.length() && (source.charAt(fdEnd) == '>' || source.charAt(fdEnd) == '<')
                    || c == '&') {
                Redirect redirect = redirect(fdEnd);
                if (redirect == null) {
                    return -1;
                }
                redirects.add(redirect);
                continue;
            }
            if (!redirects.isEmpty()) {
                return -1; // a word after a redirection: the grammar hands it to the redirection
            }
            String word = word();
            if (word == null || pos < source.length() && (peek() == '>' || peek() == '<')) {
                return -1; // a redirection touching a word: the grammar reads -2>x as descriptor -2
            }
            if (words.isEmpty() && Expander.isAssignment(word)) {
                assignments.add(Word.literal(ShellText.unquote(word)));
                continue;
            }
            if (words.isEmpty() && (NOT_PLAIN.contains(word) || word.startsWith("-"))) {
                return -1; // the grammar loses some commands whose name starts with - ("- x", "--a=b >&2 && c")
            }
            words.add(Word.literal(ShellText.unquote(word)));
        }
        if (words.isEmpty()) {
            return -1;
        }
        int before = sink.size();
        Expander.emit(sink, words, redirects, List.of(), depth, assignments);
        if (!redirects.isEmpty() && sink.size() - before > 1) {
            // find -exec, bash -c: which of the commands run get the redirections depends on how
            // the grammar nests the statement; left to it
            return -1;
        }
        return redirects.isEmpty() ? WORDS : REDIRECTED;
    }

    /** A redirection starting at {@code pos} whose operator starts at {@code opStart}; null when not plain. */
    private Redirect redirect(int opStart) {
        if (opStart - pos > 9) {
            return null; // a descriptor number no int holds: left to the grammar, as FallbackLexer does
        }
        Integer fd = opStart > pos ? Integer.valueOf(source.substring(pos, opStart)) : null;
        String op;
        if (source.startsWith("&>>", opStart)) {
            op = "&>>";
        } else if (source.startsWith("&>", opStart)) {
            op = "&>";
        } else if (source.startsWith(">>", opStart)) {
            op = ">>";
        } else if (source.startsWith(">&", opStart)) {
            op = ">&";
        } else if (source.startsWith(">", opStart) && !source.startsWith(">|", opStart)) {
            op = ">";
        } else if (source.startsWith("<", opStart) && !source.startsWith("<<", opStart) && !source.startsWith("<&", opStart)
                && !source.startsWith("<>", opStart)) {
            op = "<";
        } else {
            return null;
        }
        if (fd != null && op.startsWith("&")) {
            return null;
        }
        pos = opStart + op.length();
        if (op.equals(">&")) {
            // only a descriptor: 2>&1, >&2
            int end = pos;
            while (end < source.length() && Character.isDigit(source.charAt(end))) {
                end++;
            }
            if (end == pos || end < source.length() && !blank(source.charAt(end)) && "\n;&|".indexOf(source.charAt(end)) < 0) {
                return null;
            }
            String target = source.substring(pos, end);
            pos = end;
            return new Redirect(op, Word.literal(target), fd);
        }
        skipBlanks();
        String target = word();
        if (target == null) {
            return null;
        }
        return new Redirect(op, Word.literal(ShellText.unquote(target)), fd);
    }

    /** The source text of the word at {@code pos}: plain characters and quoted strings, touching. */
    private String word() {
        int start = pos;
        int n = source.length();
        while (pos < n) {
            char c = source.charAt(pos);
            if (c == '\'' || c == '"') {
                pos = source.indexOf(c, pos + 1) + 1; // balanced: checked by plainCharacters
            } else if (wordChar(c)) {
                pos++;
            } else {
                break;
            }
        }
        return pos > start ? source.substring(start, pos) : null;
    }

    private char peek() {
        return source.charAt(pos);
    }

    private void skipBlanks() {
        while (pos < source.length() && blank(source.charAt(pos))) {
            pos++;
        }
    }

    private void skipBlanksAndNewlines() {
        while (pos < source.length() && (blank(source.charAt(pos)) || source.charAt(pos) == '\n')) {
            pos++;
        }
    }
}
