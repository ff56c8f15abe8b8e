package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A grammar-free reading of a command line, used only when tree-sitter cannot be used (its time
 * budget ran out, or its native library did not load). It knows quotes, backslashes, operators,
 * redirections, here-documents and {@code $(...)}/backtick/{@code <(...)} nesting, and is linear
 * in the input. It over-approximates (a {@code case} pattern may show up as a command); its
 * result is always reported incomplete, so nothing is allowed on its word alone — it exists so
 * the guard still sees the commands.
 */
final class FallbackLexer {

    private static final int MAX_NESTING = ShellParser.MAX_NESTING;

    private static final Set<String> RESERVED = Set.of(
            "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac", "in",
            "function", "[[", "]]");
    private static final Set<String> HEADERS = Set.of("for", "case", "select");

    private static final String[] OPERATORS = {
        "<<<", "<<-", "&>>", ">&-", "<&-", "<<", ">>", ">|", ">&", "<&", "&>", "<>", "<", ">"};

    private final String s;
    private final int n;
    private final int depth;
    private final int nesting;
    private final Sink sink;
    private int i;

    private List<Word> words = new ArrayList<>();
    private List<Redirect> redirects = new ArrayList<>();
    private boolean skipping;
    private final List<Structure.Stage> stages = new ArrayList<>();
    private int stageStart;
    private final List<String[]> heredocs = new ArrayList<>();
    /** A function defined here, with the first pipeline and background recorded after its definition. */
    private record Definition(String name, int pipelines, int backgrounds) {
    }

    private final List<Definition> functions = new ArrayList<>();

    private FallbackLexer(String s, int depth, int nesting, Sink sink) {
        this.s = s;
        this.n = s.length();
        this.depth = depth;
        this.nesting = nesting;
        this.sink = sink;
        this.stageStart = sink.size();
    }

    static void split(String source, int depth, Sink sink) {
        // the same bound as the grammar's: past it nothing is read, whichever reads the line
        if (Nesting.deeperThan(source, ShellParser.MAX_NESTING)) {
            sink.unjudgeable(ShellParser.TOO_NESTED);
            return;
        }
        new FallbackLexer(source, depth, 0, sink).run();
    }

    private void run() {
        while (i < n) {
            char c = s.charAt(i);
            char d = i + 1 < n ? s.charAt(i + 1) : 0;
            if (c == ' ' || c == '\t' || c == '\r') {
                i++;
            } else if (c == '\\' && d == '\n') {
                i += 2;
            } else if (c == '#') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '\n') {
                i++;
                readHeredocs();
                endCommand();
                endPipeline();
            } else if (c == '(' && d == ')' && words.size() == 1 && words.get(0).literal() && redirects.isEmpty()) {
                // NAME() starts a function definition
                functions.add(new Definition(words.get(0).value(), sink.pipelines.size(), sink.backgrounds.size()));
                words = new ArrayList<>();
                i += 2;
            } else if (c == '&' && d != '&' && d != '>') {
                endCommand();
                int start = stages.isEmpty() ? stageStart : stages.get(0).start();
                if (sink.size() > start) {
                    sink.backgrounds.add(new Structure.Stage(start, sink.size()));
                }
                endPipeline();
                i++;
            } else if (c == ';' || (c == '&' && d != '>') || (c == '|' && d == '|') || c == '(' || c == ')') {
                endCommand();
                endPipeline();
                i += (c == ';' && d == ';') || (c == '&' && d == '&') || (c == '|' && d == '|') ? 2 : 1;
            } else if (c == '|') {
                endCommand();
                stages.add(new Structure.Stage(stageStart, sink.size()));
                stageStart = sink.size();
                i += d == '&' ? 2 : 1;
            } else if ((c == '<' || c == '>') && d == '(') {
                word();
            } else if (c == '<' || c == '>' || c == '&') {
                redirect(null);
            } else {
                word();
            }
        }
        readHeredocs();
        endCommand();
        endPipeline();
        for (Definition f : functions) {
            sink.function(f.name(), f.pipelines(), f.backgrounds());
        }
    }

    private void word() {
        int start = i;
        boolean expansion = false;
        while (i < n) {
            char c = s.charAt(i);
            char d = i + 1 < n ? s.charAt(i + 1) : 0;
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
                break;
            }
            if (c == '<' || c == '>') {
                if (d != '(') {
                    break;
                }
                i = balanced(i + 1) + 1;
                expansion = true;
            } else if (c == '\\') {
                i += 2;
            } else if (c == '\'') {
                int close = s.indexOf('\'', i + 1);
                i = close < 0 ? n : close + 1;
            } else if (c == '"') {
                int[] end = doubleQuoted(i + 1);
                i = end[0];
                expansion |= end[1] != 0;
            } else if (c == '`') {
                i = backtickEnd(i + 1) + 1;
                expansion = true;
            } else if (c == '$' && d == '(') {
                i = balanced(i + 1) + 1;
                expansion = true;
            } else if (c == '$' && d == '{') {
                i = braceEnd(i + 2) + 1;
                expansion = true;
            } else if (c == '$' && (Character.isLetterOrDigit(d) || "_@*#?$!-".indexOf(d) >= 0) && d != 0) {
                i++;
                expansion = true;
            } else {
                i++;
            }
        }
        i = Math.min(i, n);
        String text = s.substring(start, i);
        if (i < n && (s.charAt(i) == '<' || s.charAt(i) == '>') && !text.isEmpty() && allDigits(text)) {
            redirect(Integer.valueOf(text.length() > 9 ? "0" : text));
            return;
        }
        if (expansion) {
            substitutions(text);
        }
        add(expansion ? new Word(text, false) : new Word(ShellText.unquote(text), true));
    }

    private void add(Word w) {
        if (skipping) {
            return;
        }
        if (words.isEmpty() && w.literal() && RESERVED.contains(w.value())) {
            return;
        }
        if (words.isEmpty() && w.literal() && HEADERS.contains(w.value())) {
            skipping = true;
            return;
        }
        if (words.isEmpty() && Expander.isAssignment(w.value())) {
            return;
        }
        words.add(w);
    }

    private void redirect(Integer fd) {
        String op = ">";
        for (String candidate : OPERATORS) {
            if (s.startsWith(candidate, i)) {
                op = candidate;
                break;
            }
        }
        i += op.length();
        if (op.endsWith("-") && op.length() == 3 && op.charAt(1) == '&') {
            redirects.add(new Redirect(op.substring(0, 2), Word.literal("-"), fd));
            return;
        }
        while (i < n && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        List<Word> saved = words;
        boolean savedSkipping = skipping;
        words = new ArrayList<>();
        skipping = false;
        int start = i;
        word();
        String raw = s.substring(start, i);
        Word target = words.isEmpty() ? Word.literal("") : words.get(0);
        words = saved;
        skipping = savedSkipping;
        if (op.equals("<<") || op.equals("<<-")) {
            boolean quoted = raw.indexOf('\'') >= 0 || raw.indexOf('"') >= 0 || raw.indexOf('\\') >= 0;
            heredocs.add(new String[] {op, ShellText.unquote(raw), quoted ? "q" : ""});
            return;
        }
        redirects.add(new Redirect(op, target, fd));
    }

    /** Reads the bodies of the here-documents opened on the line that just ended ({@link #i} is at the next line). */
    private void readHeredocs() {
        for (String[] h : heredocs) {
            boolean stripTabs = h[0].equals("<<-");
            StringBuilder body = new StringBuilder();
            while (i < n) {
                int eol = s.indexOf('\n', i);
                int end = eol < 0 ? n : eol;
                String line = s.substring(i, end);
                i = eol < 0 ? n : eol + 1;
                String compared = stripTabs ? line.replaceFirst("^\t+", "") : line;
                if (compared.equals(h[1])) {
                    break;
                }
                body.append(line).append('\n');
            }
            boolean quoted = !h[2].isEmpty();
            String text = body.toString();
            boolean expansion = !quoted && (text.contains("$") || text.contains("`"));
            if (expansion) {
                substitutions(text);
            }
            redirects.add(new Redirect(h[0], new Word(text, !expansion), null));
        }
        heredocs.clear();
    }

    private void endCommand() {
        if (!words.isEmpty() || !redirects.isEmpty()) {
            Expander.emit(sink, words, redirects, List.of(), depth);
        }
        words = new ArrayList<>();
        redirects = new ArrayList<>();
        skipping = false;
    }

    private void endPipeline() {
        if (!stages.isEmpty()) {
            stages.add(new Structure.Stage(stageStart, sink.size()));
            sink.addPipeline(stages);
            stages.clear();
        }
        stageStart = sink.size();
    }

    /** Lexes the bodies of the substitutions in a word's text: {@code $(...)}, backticks, {@code <(...)}, {@code >(...)}. */
    private void substitutions(String text) {
        substitutions(text, nesting);
    }

    private void substitutions(String text, int level) {
        int k = 0;
        int len = text.length();
        boolean inDouble = false;
        while (k < len) {
            char c = text.charAt(k);
            char d = k + 1 < len ? text.charAt(k + 1) : 0;
            if (c == '\\') {
                k += 2;
            } else if (c == '\'' && !inDouble) {
                int close = text.indexOf('\'', k + 1);
                k = close < 0 ? len : close + 1;
            } else if (c == '"') {
                inDouble = !inDouble;
                k++;
            } else if ((c == '$' || c == '<' || c == '>') && d == '(') {
                int close = balanced(text, k + 1);
                String inner = text.substring(k + 2, Math.min(close, len));
                if (c == '$' && inner.startsWith("(") && level < MAX_NESTING) {
                    substitutions(inner, level + 1);
                } else {
                    nested(inner);
                }
                k = close + 1;
            } else if (c == '`') {
                int close = backtickEnd(text, k + 1);
                nested(ShellText.unescapeBackticks(text.substring(k + 1, Math.min(close, len))));
                k = close + 1;
            } else {
                k++;
            }
        }
    }

    private void nested(String inner) {
        if (nesting + 1 > MAX_NESTING) {
            sink.unjudgeable(ShellParser.TOO_NESTED);
            return;
        }
        new FallbackLexer(inner, depth, nesting + 1, sink).run();
    }

    /** Index of the parenthesis closing the one at {@code open}, skipping quotes; {@code n} when unclosed. */
    private int balanced(int open) {
        return balanced(s, open);
    }

    private static int balanced(String s, int open) {
        int n = s.length();
        int level = 0;
        int k = open;
        while (k < n) {
            char c = s.charAt(k);
            if (c == '\\') {
                k += 2;
                continue;
            }
            if (c == '\'') {
                int close = s.indexOf('\'', k + 1);
                k = close < 0 ? n : close + 1;
                continue;
            }
            if (c == '"') {
                k = doubleQuoted(s, k + 1)[0];
                continue;
            }
            if (c == '(') {
                level++;
            } else if (c == ')') {
                level--;
                if (level == 0) {
                    return k;
                }
            }
            k++;
        }
        return n;
    }

    private int braceEnd(int from) {
        int level = 1;
        int n = s.length();
        int k = from;
        while (k < n) {
            char c = s.charAt(k);
            if (c == '\\') {
                k += 2;
                continue;
            }
            if (c == '{') {
                level++;
            } else if (c == '}' && --level == 0) {
                return k;
            }
            k++;
        }
        return n;
    }

    private int backtickEnd(int from) {
        return backtickEnd(s, from);
    }

    private static int backtickEnd(String s, int from) {
        int n = s.length();
        for (int k = from; k < n; k++) {
            char c = s.charAt(k);
            if (c == '\\') {
                k++;
            } else if (c == '`') {
                return k;
            }
        }
        return n;
    }

    /** {@code [index after the closing quote, 1 when the string holds an expansion]}. */
    private int[] doubleQuoted(int from) {
        return doubleQuoted(s, from);
    }

    private static int[] doubleQuoted(String s, int from) {
        int n = s.length();
        int k = from;
        int expansion = 0;
        while (k < n) {
            char c = s.charAt(k);
            char d = k + 1 < n ? s.charAt(k + 1) : 0;
            if (c == '\\') {
                k += 2;
            } else if (c == '"') {
                return new int[] {k + 1, expansion};
            } else if (c == '$' && d == '(') {
                k = balanced(s, k + 1) + 1;
                expansion = 1;
            } else if (c == '`') {
                k = backtickEnd(s, k + 1) + 1;
                expansion = 1;
            } else if (c == '$' && d != 0 && (Character.isLetterOrDigit(d) || "_{@*#?$!-".indexOf(d) >= 0)) {
                expansion = 1;
                k++;
            } else {
                k++;
            }
        }
        return new int[] {n, expansion};
    }

    private static boolean allDigits(String t) {
        for (int k = 0; k < t.length(); k++) {
            if (t.charAt(k) < '0' || t.charAt(k) > '9') {
                return false;
            }
        }
        return true;
    }
}
