package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;

/**
 * How deep a line nests, found in one pass over its text before tree-sitter sees it, so that a line
 * nested past the bound is turned away at once: the grammar's error recovery takes seconds on a few
 * tens of thousands of unclosed {@code $(}, and a tree that deep cannot be walked anyway. Each of these
 * opens a level until it closes: a subshell or any other parenthesis ({@code (}, {@code $(},
 * {@code <(}, {@code $((}, an extglob), a brace ({@code {}, {@code ${}), a backtick substitution, a
 * double-quoted string, an unquoted here-document's body, and {@code if}, {@code case}, {@code while},
 * {@code until}, {@code for} and {@code select} where a command starts. Single-quoted text, comments and
 * quoted here-document bodies open nothing.
 *
 * <p>It is a count, not a parse: a stray closer is ignored and an opener never closed keeps its level,
 * so the count errs towards deeper. Linear in the text and stops as soon as the bound is passed.
 */
final class Nesting {

    private static final byte PAREN = 1;
    private static final byte ARITH = 2;
    private static final byte BRACE = 3;
    private static final byte BACKTICK = 4;
    private static final byte KEYWORD = 5;
    private static final byte QUOTE = 6;
    private static final byte HEREDOC = 7;

    private final String s;
    private final int limit;
    private final byte[] stack;
    private int top;
    /** The delimiters of the here-documents met so far; pending documents refer to them by index. */
    private final List<String> delimiters = new ArrayList<>();

    private Nesting(String s, int limit) {
        this.s = s;
        this.limit = limit;
        this.stack = new byte[limit + 1];
    }

    /** True when {@code text} nests deeper than {@code limit} levels. */
    static boolean deeperThan(String text, int limit) {
        Nesting n = new Nesting(text, limit);
        try {
            n.scan(0, text.length());
            return false;
        } catch (TooDeep e) {
            return true;
        }
    }

    /** Thrown, without a stack trace, when the bound is passed: the scan ends there. */
    private static final class TooDeep extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooDeep() {
            super(null, null, false, false);
        }
    }

    private void push(byte context) {
        if (top == limit) {
            throw new TooDeep();
        }
        stack[top++] = context;
    }

    private byte context() {
        return top == 0 ? 0 : stack[top - 1];
    }

    private void pop(byte context) {
        if (top > 0 && stack[top - 1] == context) {
            top--;
        }
    }

    private char at(int i) {
        return i < s.length() ? s.charAt(i) : 0;
    }

    /** Scans {@code [from, to)}; here-document bodies are scanned when their line ends. */
    private void scan(int from, int to) {
        List<int[]> pendingHeredocs = new ArrayList<>();
        boolean commandStart = true;
        int i = from;
        while (i < to) {
            char c = s.charAt(i);
            char d = i + 1 < to ? s.charAt(i + 1) : 0;
            byte ctx = context();
            if (ctx == QUOTE || ctx == HEREDOC) {
                // inside double quotes or an unquoted here-document only substitutions open levels
                if (c == '\\') {
                    i += 2;
                } else if (c == '"' && ctx == QUOTE) {
                    pop(QUOTE);
                    i++;
                } else {
                    i = substitution(i, c, d);
                }
                continue;
            }
            switch (c) {
                case '\\' -> i += 2;
                case '\'' -> i = closing(i + 1, to, '\'');
                case '"' -> {
                    push(QUOTE);
                    i++;
                }
                case '$' -> i = d == '\'' ? ansiC(i + 2, to) : d == '"' ? push(QUOTE, i + 2) : substitution(i, c, d);
                case '`' -> i = substitution(i, c, d);
                case '(' -> {
                    if (d == '(' && commandStart) {
                        push(ARITH);
                        i += 2;
                    } else {
                        push(PAREN);
                        i++;
                    }
                    commandStart = true;
                }
                case ')' -> {
                    if (ctx == ARITH && d == ')') {
                        pop(ARITH);
                        i += 2;
                    } else {
                        pop(PAREN);
                        i++;
                    }
                    // after a case pattern a command starts
                    commandStart = ctx == KEYWORD;
                }
                case '{' -> {
                    push(BRACE);
                    i++;
                    commandStart = true;
                }
                case '}' -> {
                    pop(BRACE);
                    i++;
                }
                case '\n' -> {
                    i++;
                    for (int[] h : pendingHeredocs) {
                        i = heredoc(i, to, h);
                    }
                    pendingHeredocs.clear();
                    commandStart = true;
                }
                case ';', '&', '|' -> {
                    i++;
                    commandStart = true;
                }
                case '<' -> {
                    if (d == '<' && at(i + 2) != '<' && ctx != ARITH) {
                        i = heredocStart(i + 2, to, pendingHeredocs);
                    } else {
                        i += d == '<' ? 3 : 1;
                    }
                }
                case ' ', '\t', '\r', '>' -> i++;
                default -> {
                    int end = wordEnd(i, to);
                    if (c == '#' && (i == from || " \t\n;&|()".indexOf(s.charAt(i - 1)) >= 0)) {
                        // a comment, up to the line break
                        int nl = s.indexOf('\n', i);
                        i = nl < 0 || nl >= to ? to : nl;
                        continue;
                    }
                    if (commandStart) {
                        String word = s.substring(i, end);
                        switch (word) {
                            case "if", "case", "while", "until", "for", "select" -> push(KEYWORD);
                            case "fi", "esac", "done" -> pop(KEYWORD);
                            default -> {
                            }
                        }
                        commandStart = switch (word) {
                            case "if", "then", "else", "elif", "do", "while", "until", "!", "time" -> true;
                            default -> false;
                        };
                    }
                    i = end;
                }
            }
        }
    }

    private int push(byte context, int next) {
        push(context);
        return next;
    }

    /** At {@code $} or a backtick: opens {@code $(}, {@code $((}, {@code ${} or a backtick, else steps over. */
    private int substitution(int i, char c, char d) {
        if (c == '`') {
            if (context() == BACKTICK) {
                pop(BACKTICK);
            } else {
                push(BACKTICK);
            }
            return i + 1;
        }
        if (c == '$' && d == '(') {
            if (at(i + 2) == '(') {
                push(ARITH);
                return i + 3;
            }
            push(PAREN);
            return i + 2;
        }
        if (c == '$' && d == '{') {
            push(BRACE);
            return i + 2;
        }
        return i + 1;
    }

    private int wordEnd(int i, int to) {
        int k = i;
        while (k < to && " \t\r\n;&|()<>{}'\"`$\\".indexOf(s.charAt(k)) < 0) {
            k++;
        }
        return Math.max(k, i + 1);
    }

    /** The index after the next {@code close} at or after {@code from} (the end when there is none). */
    private int closing(int from, int to, char close) {
        int k = s.indexOf(close, from);
        return k < 0 || k >= to ? to : k + 1;
    }

    private int ansiC(int i, int to) {
        while (i < to && s.charAt(i) != '\'') {
            i += s.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    /** Reads the delimiter after {@code <<} (or {@code <<-}) and remembers the document for the end of the line. */
    private int heredocStart(int i, int to, List<int[]> pending) {
        boolean stripTabs = at(i) == '-';
        i += stripTabs ? 1 : 0;
        while (i < to && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        int start = i;
        boolean quoted = false;
        StringBuilder delimiter = new StringBuilder();
        while (i < to && " \t\r\n;&|()<>".indexOf(s.charAt(i)) < 0) {
            char c = s.charAt(i);
            if (c == '\'' || c == '"') {
                quoted = true;
                int close = closing(i + 1, to, c);
                delimiter.append(s, i + 1, Math.max(i + 1, close - 1));
                i = close;
            } else if (c == '\\') {
                quoted = true;
                delimiter.append(at(i + 1));
                i += 2;
            } else {
                delimiter.append(c);
                i++;
            }
        }
        if (i > start) {
            delimiters.add(delimiter.toString());
            pending.add(new int[] {delimiters.size() - 1, quoted ? 1 : 0, stripTabs ? 1 : 0});
        }
        return i;
    }

    /** Steps over a here-document's body from {@code i}, scanning it first when it is unquoted. */
    private int heredoc(int i, int to, int[] h) {
        String delimiter = delimiters.get(h[0]);
        int line = i;
        while (line < to) {
            int eol = s.indexOf('\n', line);
            int end = eol < 0 || eol > to ? to : eol;
            int text = line;
            while (h[2] == 1 && text < end && s.charAt(text) == '\t') {
                text++;
            }
            if (end - text == delimiter.length() && s.startsWith(delimiter, text)) {
                body(i, line, h[1] == 1);
                return Math.min(to, end + 1);
            }
            line = end + 1;
        }
        body(i, to, h[1] == 1);
        return to;
    }

    /** An unquoted body is one level deeper and may hold substitutions; what it leaves open does not leak out. */
    private void body(int from, int to, boolean quoted) {
        if (!quoted) {
            int level = top;
            push(HEREDOC);
            scan(from, to);
            top = level;
        }
    }
}
