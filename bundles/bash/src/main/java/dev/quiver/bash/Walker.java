package dev.quiver.bash;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Walks a tree-sitter-bash tree (copied into {@link Node}s) and feeds every simple command to
 * {@link Expander}. Byte offsets of the tree index the UTF-8 encoding of the source, which is
 * what {@link #src} holds.
 */
final class Walker {

    /**
     * Deeper trees are not walked (the line is unjudgeable) so the Java stack stays safe; the tree
     * reader already stops at {@link ShellParser#MAX_TREE_DEPTH}, so this only guards the walk.
     */
    private static final int MAX_NESTING = ShellParser.MAX_TREE_DEPTH + 8;

    private static final Set<String> EXPANSIONS = Set.of(
            "simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion");

    /** Node types that never contain a command, so their children are not visited. */
    private static final Set<String> LEAVES = Set.of(
            "comment", "word", "number", "variable_name", "string_content", "raw_string", "ansi_c_string",
            "heredoc_start", "heredoc_end", "heredoc_content", "file_descriptor", "test_operator",
            "special_variable_name", "regex", "extglob_pattern", "command_name_word");

    /** Node types a word can be, for the words of a command the parser could not fit into a command node. */
    private static final Set<String> WORD_TYPES = Set.of(
            "word", "string", "raw_string", "ansi_c_string", "concatenation", "simple_expansion", "expansion",
            "number", "translated_string", "command_substitution", "brace_expression");

    private final byte[] src;
    private final int depth;
    private final Sink sink;
    /** A command the grammar dropped words after (see {@link #skipped}), and those words. */
    private Node droppedFor;
    private List<Word> dropped = List.of();

    /** Where a {@code <} redirection stands for a here-string the grammar could not read ({@link ShellParser}). */
    private final java.util.Set<Integer> hereStrings;

    Walker(byte[] src, int depth, Sink sink) {
        this(src, depth, sink, java.util.Set.of());
    }

    Walker(byte[] src, int depth, Sink sink, java.util.Set<Integer> hereStrings) {
        this.src = src;
        this.depth = depth;
        this.sink = sink;
        this.hereStrings = hereStrings;
    }

    private String text(Node n) {
        return text(n.start, n.end());
    }

    /**
     * Whether a line break (not a continuation: {@code \}⏎ inside the gap; a backslash ending the
     * word before belongs to that word) lies between the word that ended at {@code previousEnd} (-1:
     * none yet) and {@code next}. The grammar sometimes runs a statement on past the end of its line
     * ({@code a | b | c⏎d e >&2} read as {@code c d e}, {@code a | b | export X⏎d >&2} as one export),
     * which would hide {@code d} from the guard and the rules: the line break ends the statement, as
     * in bash, and the line is unjudgeable.
     */
    private boolean endsLine(int previousEnd, Node next) {
        for (int i = previousEnd; previousEnd >= 0 && i < next.start && i < src.length; i++) {
            if (src[i] == '\n' && (i == previousEnd || src[i - 1] != '\\')) {
                sink.unjudgeable("a command the grammar runs on past its line ("
                        + ShellText.abbreviate(text(next.start, Math.min(next.end(), next.start + 40)), 40) + ")");
                return true;
            }
        }
        return false;
    }

    private String text(int start, int end) {
        int s = Math.max(0, Math.min(start, src.length));
        int e = Math.max(s, Math.min(end, src.length));
        return new String(src, s, e - s, StandardCharsets.UTF_8);
    }

    void visit(Node n, int level) {
        visit(n, n.type, level);
    }

    private void visit(Node n, String type, int level) {
        if (level > MAX_NESTING) {
            sink.unjudgeable("a syntax tree deeper than " + MAX_NESTING + " levels");
            return;
        }
        if (LEAVES.contains(type)) {
            return;
        }
        switch (type) {
            case "command" -> command(n, new Redirs(), level);
            case "variable_assignment" -> {
                // a statement of its own (X=1;) or a declaration's (export X=1): later commands may see it
                sink.assignments.add(word(n));
                children(n, level);
            }
            case "declaration_command", "unset_command" -> declaration(n, level);
            case "redirected_statement" -> redirected(n, level);
            case "function_definition" -> function(n, level);
            case "pipeline" -> sink.addPipeline(stages(n, level));
            case "command_substitution" -> substitution(n, level);
            case "heredoc_redirect" -> {
                Redirs r = new Redirs();
                redirect(n, type, r);
                afterRedirects(r, null, level);
            }
            case "file_redirect" -> {
                // one outside any command: $(< file), where bash reads the file itself as $(cat file)
                // would; a command of redirections only
                Redirs r = new Redirs();
                redirect(n, type, r);
                redirectsOnly(r);
                afterRedirects(r, null, level);
            }
            case "ERROR" -> {
                sink.unjudgeable(ShellParser.SYNTAX);
                error(n, level);
            }
            default -> children(n, level);
        }
    }

    private void children(Node n, int level) {
        Node[] kids = n.children;
        for (int i = 0; i < kids.length; i++) {
            int start = sink.size();
            visit(kids[i], kids[i].type, level + 1);
            if (i + 1 < kids.length && kids[i + 1].type.equals("&") && sink.size() > start) {
                sink.backgrounds.add(new Structure.Stage(start, sink.size()));
            }
        }
    }

    /** A command of redirections and no name ({@code > file}, {@code $(< file)}). */
    private void redirectsOnly(Redirs r) {
        sink.add(Word.literal(""), r.extraArgs, r.list, List.of(), depth);
    }

    /** Redirections collected for one command, and what they bring along. */
    private static final class Redirs {
        final List<Redirect> list = new ArrayList<>();
        /** Words after a redirection's target ({@code echo a >f b}: tree-sitter gives b to the redirection). */
        final List<Word> extraArgs = new ArrayList<>();
        /** Statements tree-sitter hangs inside a here-document redirection ({@code cat <<EOF | sh}). */
        final List<Node> continuations = new ArrayList<>();
        /** Unquoted here-document bodies, whose substitutions run. */
        final List<Node> bodies = new ArrayList<>();
        /** Redirection nodes whose words may hold substitutions. */
        final List<Node> nodes = new ArrayList<>();
    }

    /** One node as one word. */
    private Word word(Node n) {
        Words w = new Words();
        w.add(n);
        return w.words().get(0);
    }

    private void command(Node n, Redirs outer, int level) {
        Words words = new Words();
        Redirs r = new Redirs();
        List<Word> assignments = new ArrayList<>();
        int previousEnd = -1;
        for (Node c : n.children) {
            String field = c.field;
            if (c.type.equals("variable_assignment") && words.words().isEmpty()) {
                words.breakRun();
                assignments.add(word(c));
            } else if ("name".equals(field) || "argument".equals(field)) {
                if (endsLine(previousEnd, c)) {
                    Expander.emit(sink, words.words(), List.of(), List.of(), depth);
                    words = new Words();
                }
                words.add(c);
                previousEnd = c.end();
            } else if ("redirect".equals(field)) {
                words.breakRun();
                redirect(c, c.type, r);
            } else {
                words.breakRun();
            }
        }
        List<Word> list = words.words();
        if (n == droppedFor) {
            list.addAll(dropped);
        }
        list.addAll(r.extraArgs);
        list.addAll(outer.extraArgs);
        List<Redirect> redirects = new ArrayList<>(r.list);
        redirects.addAll(outer.list);
        Expander.emit(sink, list, redirects, List.of(), depth, assignments);
        for (Node c : n.children) {
            String type = c.type;
            if (type.equals("variable_assignment")) {
                children(c, level + 1);
            } else if (!type.equals("heredoc_redirect") && !type.equals("file_redirect") && !type.equals("herestring_redirect")) {
                visit(c, type, level + 1);
            }
        }
        afterRedirects(r, null, level);
    }

    /** Visits what redirections carry: substitutions in their words, here-document bodies, continuations. */
    private void afterRedirects(Redirs r, Structure.Stage body, int level) {
        for (Node node : r.nodes) {
            children(node, level + 1);
        }
        for (Node b : r.bodies) {
            heredocBody(b, level + 1);
        }
        for (Node cont : r.continuations) {
            String type = cont.type;
            if (body != null && type.equals("pipeline") && cont.childCount() > 0
                    && (cont.child(0).type.equals("|") || cont.child(0).type.equals("|&"))) {
                List<Structure.Stage> stages = new ArrayList<>();
                stages.add(body);
                stages.addAll(stages(cont, level + 1));
                sink.addPipeline(stages);
            } else {
                visit(cont, type, level + 1);
            }
        }
    }

    private void redirect(Node n, String type, Redirs r) {
        switch (type) {
            case "file_redirect" -> {
                Integer fd = null;
                String op = null;
                Words dest = new Words();
                for (int i = 0; i < n.childCount(); i++) {
                    Node c = n.child(i);
                    String field = n.child(i).field;
                    if ("descriptor".equals(field)) {
                        fd = fd(c);
                    } else if ("destination".equals(field)) {
                        dest.add(c);
                    } else if (op == null && !c.named) {
                        op = c.type;
                    }
                }
                List<Word> words = dest.words();
                Word target = words.isEmpty() ? Word.literal("") : words.get(0);
                if (op == null) {
                    op = ">";
                } else if (op.equals("<") && hereStrings.contains(n.start)) {
                    op = "<<<";
                } else if (op.equals(">&-") || op.equals("<&-")) {
                    op = op.substring(0, 2);
                    target = Word.literal("-");
                }
                r.list.add(new Redirect(op, target, fd));
                if (words.size() > 1) {
                    r.extraArgs.addAll(words.subList(1, words.size()));
                }
                r.nodes.add(n);
            }
            case "herestring_redirect" -> {
                Integer fd = null;
                Words target = new Words();
                for (int i = 0; i < n.childCount(); i++) {
                    Node c = n.child(i);
                    if ("descriptor".equals(n.child(i).field)) {
                        fd = fd(c);
                    } else if (c.named) {
                        target.add(c);
                    }
                }
                List<Word> words = target.words();
                r.list.add(new Redirect("<<<", words.isEmpty() ? Word.literal("") : words.get(0), fd));
                r.nodes.add(n);
            }
            case "heredoc_redirect" -> {
                Integer fd = null;
                String op = "<<";
                boolean quoted = false;
                Node body = null;
                List<Node> nested = new ArrayList<>();
                for (int i = 0; i < n.childCount(); i++) {
                    Node c = n.child(i);
                    String t = c.type;
                    if ("descriptor".equals(n.child(i).field)) {
                        fd = fd(c);
                    } else if (t.equals("<<") || t.equals("<<-")) {
                        op = t;
                    } else if (t.equals("heredoc_start")) {
                        String delimiter = text(c);
                        quoted = delimiter.indexOf('\'') >= 0 || delimiter.indexOf('"') >= 0 || delimiter.indexOf('\\') >= 0;
                    } else if (t.equals("heredoc_body")) {
                        body = c;
                    } else if (t.equals("file_redirect") || t.equals("herestring_redirect") || t.equals("heredoc_redirect")) {
                        nested.add(c);
                    } else if (c.named && !t.equals("heredoc_end")) {
                        r.continuations.add(c);
                    }
                }
                Word target = body == null ? Word.literal("")
                        : new Word(text(body), quoted || !hasExpansion(body, 0));
                r.list.add(new Redirect(op, target, fd));
                if (body != null && !quoted) {
                    r.bodies.add(body);
                }
                for (Node c : nested) {
                    redirect(c, c.type, r);
                }
            }
            default -> r.nodes.add(n);
        }
    }

    private static final String SKIPPED = "text the grammar does not read: `";

    /**
     * The words in {@code [from, to)}, where the grammar put nothing: it drops a lone word before some
     * redirections ({@code make -f - <<EOF} read as {@code make -f}, {@code a - 2>e} as {@code a}), which
     * bash passes on as an argument. Plain words are given back; anything else makes the line unjudgeable.
     */
    private List<Word> skipped(int from, int to) {
        String gap = text(from, to).replace("\\\n", " ").strip();
        if (gap.isEmpty()) {
            return List.of();
        }
        List<Word> words = new ArrayList<>();
        for (String w : gap.split("[ \t]+")) {
            if (!w.matches("[A-Za-z0-9_./:=+,@%^~!-]+")) {
                sink.unjudgeable(SKIPPED + ShellText.abbreviate(gap, 40) + "`");
                return List.of();
            }
            words.add(Word.literal(w));
        }
        return words;
    }

    private Integer fd(Node n) {
        try {
            return Integer.valueOf(text(n).trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private void redirected(Node n, int level) {
        Node body = null;
        Redirs r = new Redirs();
        List<Node> others = new ArrayList<>();
        List<Word> skipped = new ArrayList<>();
        for (int i = 0; i < n.childCount(); i++) {
            Node c = n.child(i);
            String field = n.child(i).field;
            if ("body".equals(field)) {
                body = c;
            } else if ("redirect".equals(field)) {
                if (i > 0 && (body != null || !r.list.isEmpty())) {
                    skipped.addAll(skipped(n.child(i - 1).end(), c.start));
                }
                redirect(c, c.type, r);
            } else if (c.named) {
                others.add(c);
            }
        }
        if (!skipped.isEmpty()) {
            // the dropped words belong to the command they follow: the body, or its last command
            Node last = body;
            for (int k = 0; last != null && !last.type.equals("command") && k < MAX_NESTING; k++) {
                Node named = null;
                for (Node c : last.children) {
                    named = c.named ? c : named;
                }
                last = named;
            }
            if (last == null || !last.type.equals("command")) {
                sink.unjudgeable(SKIPPED + Wrappers.join(skipped).value() + "`");
            } else {
                droppedFor = last;
                dropped = skipped;
            }
        }
        int start = sink.size();
        if (body == null) {
            redirectsOnly(r);
        } else {
            String type = body.type;
            if (type.equals("command")) {
                Redirs forCommand = new Redirs();
                forCommand.list.addAll(r.list);
                forCommand.extraArgs.addAll(r.extraArgs);
                command(body, forCommand, level + 1);
            } else {
                Structure.Stage range = range(body, type, level + 1);
                for (int k = range.start(); k < range.end(); k++) {
                    sink.cmds.get(k).redirects.addAll(r.list);
                }
            }
        }
        Structure.Stage whole = new Structure.Stage(start, sink.size());
        for (Node c : others) {
            visit(c, level + 1);
        }
        afterRedirects(r, whole, level);
    }

    /** Visits a redirected compound; returns the commands the trailing redirections apply to. */
    private Structure.Stage range(Node body, String type, int level) {
        if (type.equals("pipeline")) {
            List<Structure.Stage> stages = stages(body, level);
            sink.addPipeline(stages);
            return stages.isEmpty() ? new Structure.Stage(sink.size(), sink.size()) : stages.get(stages.size() - 1);
        }
        if (type.equals("list")) {
            Structure.Stage last = new Structure.Stage(sink.size(), sink.size());
            for (int i = 0; i < body.childCount(); i++) {
                Node c = body.child(i);
                int start = sink.size();
                visit(c, level + 1);
                if (c.named) {
                    last = new Structure.Stage(start, sink.size());
                }
            }
            return last;
        }
        int start = sink.size();
        visit(body, type, level);
        return new Structure.Stage(start, sink.size());
    }

    private List<Structure.Stage> stages(Node n, int level) {
        List<Structure.Stage> stages = new ArrayList<>();
        for (int i = 0; i < n.childCount(); i++) {
            Node c = n.child(i);
            String type = c.type;
            if (type.equals("|") || type.equals("|&")) {
                continue;
            }
            int start = sink.size();
            visit(c, type, level + 1);
            if (c.named) {
                stages.add(new Structure.Stage(start, sink.size()));
            }
        }
        return stages;
    }

    private void function(Node n, int level) {
        Node nameNode = n.childByField("name");
        String name = nameNode == null ? "" : ShellText.unquote(text(nameNode));
        int pipelines = sink.pipelines.size();
        int backgrounds = sink.backgrounds.size();
        children(n, level);
        sink.function(name, pipelines, backgrounds);
    }

    private void substitution(Node n, int level) {
        String t = text(n);
        String trimmed = t.stripLeading();
        if (trimmed.startsWith("`")) {
            int open = t.indexOf('`');
            int close = t.lastIndexOf('`');
            if (close > open) {
                String inner = t.substring(open + 1, close);
                if (inner.indexOf('\\') >= 0) {
                    // bash removes \\ \` \$ before reading the body; tree-sitter reads it unchanged
                    nested(ShellText.unescapeBackticks(inner));
                    return;
                }
            }
        }
        children(n, level);
    }

    private void nested(String text) {
        sink.merge(ShellParser.analyse(text, depth + 1), List.of(), List.of());
    }

    private void heredocBody(Node body, int level) {
        for (int i = 0; i < body.childCount(); i++) {
            Node c = body.child(i);
            String type = c.type;
            if (type.equals("heredoc_content")) {
                backticks(text(c));
            } else {
                visit(c, type, level + 1);
            }
        }
    }

    /** Backtick substitutions in unquoted here-document text, which tree-sitter leaves as text. */
    private void backticks(String t) {
        int from = 0;
        while (true) {
            int open = unescaped(t, '`', from);
            if (open < 0) {
                return;
            }
            int close = unescaped(t, '`', open + 1);
            if (close < 0) {
                sink.unjudgeable(ShellParser.SYNTAX);
                return;
            }
            nested(ShellText.unescapeBackticks(t.substring(open + 1, close)));
            from = close + 1;
        }
    }

    private static int unescaped(String t, char ch, int from) {
        for (int i = from; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == ch) {
                return i;
            }
        }
        return -1;
    }

    private void declaration(Node n, int level) {
        Words words = new Words();
        String keyword = null;
        int previousEnd = -1;
        for (int i = 0; i < n.childCount(); i++) {
            Node c = n.child(i);
            if (keyword == null && !c.named) {
                keyword = c.type;
                previousEnd = c.end();
            } else if (c.named) {
                if (endsLine(previousEnd, c)) {
                    // what follows the line break is a command of its own
                    emitDeclaration(keyword, words.words());
                    keyword = "";
                    words = new Words();
                }
                words.add(c);
                previousEnd = c.end();
            } else {
                words.breakRun();
            }
        }
        emitDeclaration(keyword, words.words());
        children(n, level);
    }

    /** A declaration's words as a command: its keyword first; an empty keyword for the words after a line break. */
    private void emitDeclaration(String keyword, List<Word> words) {
        List<Word> list = new ArrayList<>();
        if (keyword == null || !keyword.isEmpty()) {
            list.add(Word.literal(keyword == null ? "" : keyword));
        }
        list.addAll(words);
        Expander.emit(sink, list, List.of(), List.of(), depth);
    }

    /** Inside an ERROR node: words not inside a command node still form a command. */
    private void error(Node n, int level) {
        Words loose = new Words();
        List<Node> looseNodes = new ArrayList<>();
        for (int i = 0; i < n.childCount(); i++) {
            Node c = n.child(i);
            String type = c.type;
            if (c.named && WORD_TYPES.contains(type)) {
                loose.add(c);
                looseNodes.add(c);
                continue;
            }
            flush(loose, looseNodes, level);
            loose = new Words();
            visit(c, type, level + 1);
        }
        flush(loose, looseNodes, level);
    }

    private void flush(Words loose, List<Node> nodes, int level) {
        List<Word> words = loose.words();
        if (!words.isEmpty()) {
            Expander.emit(sink, words, List.of(), List.of(), depth);
        }
        for (Node c : nodes) {
            visit(c, level + 1);
        }
        nodes.clear();
    }

    private boolean hasExpansion(Node n, int level) {
        String type = n.type;
        if (EXPANSIONS.contains(type)) {
            return true;
        }
        if (LEAVES.contains(type) || level > MAX_NESTING) {
            return false;
        }
        for (int i = 0; i < n.childCount(); i++) {
            if (hasExpansion(n.child(i), level + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Builds words from nodes; nodes that touch (no blank between them) make one word. */
    private final class Words {
        private final List<int[]> ranges = new ArrayList<>();
        private final List<Boolean> expanded = new ArrayList<>();
        private boolean open;

        void add(Node c) {
            int start = c.start;
            int end = c.end();
            boolean expansion = hasExpansion(c, 0);
            int last = ranges.size() - 1;
            if (open && last >= 0 && ranges.get(last)[1] == start) {
                ranges.get(last)[1] = end;
                expanded.set(last, expanded.get(last) || expansion);
            } else {
                ranges.add(new int[] {start, end});
                expanded.add(expansion);
            }
            open = true;
        }

        void breakRun() {
            open = false;
        }

        List<Word> words() {
            List<Word> words = new ArrayList<>(ranges.size());
            for (int i = 0; i < ranges.size(); i++) {
                String t = text(ranges.get(i)[0], ranges.get(i)[1]);
                words.add(expanded.get(i) ? new Word(t, false) : new Word(ShellText.unquote(t), true));
            }
            return words;
        }
    }
}
