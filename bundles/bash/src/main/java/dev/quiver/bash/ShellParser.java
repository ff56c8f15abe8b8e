package dev.quiver.bash;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.treesitter.TSTree;

/**
 * Splits a bash command line into every simple command it runs, with tree-sitter's bash grammar:
 * lists and pipelines, subshells and groups, if/while/until/for/case/select, function bodies,
 * {@code $(...)}, backticks, process substitutions, substitutions inside strings, arithmetic and
 * unquoted here-documents. {@code bash -c STRING} (and sh, zsh, dash, ...), {@code eval ARGS},
 * {@code env -S}, {@code su -c}, {@code flock -c}, {@code script -c}, {@code watch} and
 * {@code parallel} are read recursively; wrappers are stripped (see {@link Wrappers}); {@code find
 * -exec} adds the commands it runs. Here-document bodies are data: only the substitutions of an
 * unquoted one are commands, unless the document is code for a shell (see {@link CodeInput}).
 *
 * <p>Bounds, each checked before the work it bounds; past one the line is unjudgeable at once, with
 * the bound named ({@link ParsedCommand#unjudgeable()}): at most {@value #MAX_BYTES} bytes of UTF-8
 * (NUL characters, which no process argument can hold, are refused too); at most {@value #MAX_NESTING}
 * levels of nesting (see {@link Nesting}, counted in one pass before the grammar runs); strings read as
 * commands ({@code bash -c}, {@code eval}, backticks, here-documents fed to a shell) at most
 * {@value #MAX_DEPTH} deep; a tree of at most {@value #MAX_NODES} nodes, and at most one second of
 * tree-sitter per string. Everything within the bounds is read completely.
 *
 * <p>Thread-safe; never throws. Unpaired surrogates and U+FFFD (what is left of invalid UTF-8 in a
 * Java string) make the line unjudgeable; surrogates are read as U+FFFD. A parse that exceeds its
 * time budget or node bound is unjudgeable, its commands read by a plain tokenizer ({@link FallbackLexer}).
 */
public final class ShellParser {

    /** Input larger than this (UTF-8 bytes) is not parsed. */
    static final int MAX_BYTES = 1 << 20;
    /** How many {@code bash -c}/{@code eval}/backtick strings deep the parser reads. */
    static final int MAX_DEPTH = 8;
    /** How deep a string may nest (see {@link Nesting}); deeper is not parsed. */
    static final int MAX_NESTING = 32;
    /** Time budget of one tree-sitter parse. */
    static final long BUDGET_NANOS = 1_000_000_000L;
    /** A tree with more nodes is not walked (the tokenizer reads the input instead). */
    static final int MAX_NODES = 400_000;
    /**
     * Nodes deeper than this are not read (the line is unjudgeable). Each level of {@link Nesting}
     * takes at most two levels of the grammar's tree in every construct the tests nest (a substitution
     * and its command, a loop and its body); twice that leaves room, so a line within
     * {@link #MAX_NESTING} is read whole.
     */
    static final int MAX_TREE_DEPTH = 4 * MAX_NESTING + 32;

    static final String TOO_DEEP = "strings read as commands nested more than " + MAX_DEPTH
            + " deep (bash -c, eval, backticks, here-documents fed to a shell)";
    static final String TOO_NESTED = "nesting deeper than " + MAX_NESTING
            + " levels (subshells, groups, substitutions, quotes, compound commands)";

    /** Why a line the grammar reports an ERROR or MISSING node in cannot be judged. */
    static final String SYNTAX = "bash syntax that is incomplete or not understood";

    private static final Logger LOG = LoggerFactory.getLogger(ShellParser.class);
    private static final AtomicBoolean UNAVAILABLE_LOGGED = new AtomicBoolean();

    private ShellParser() {
    }

    public static ParsedCommand parse(String command) {
        String source = command == null ? "" : command;
        try {
            return analyse(source, 0).toParsed(source);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            return new ParsedCommand(source, List.of(),
                    List.of("the parser failed on it (" + e.getClass().getSimpleName() + ")"));
        }
    }

    /**
     * The parser's command list behind a parse, which carries the pipelines and functions: the
     * parse's own list, else (a parse built by hand) the list of parsing its source again.
     */
    static Structure.CommandList commandList(ParsedCommand parsed) {
        if (parsed.commands() instanceof Structure.CommandList list) {
            return list;
        }
        ParsedCommand again = parse(parsed.source());
        return again.commands() instanceof Structure.CommandList list
                ? list : new Structure.CommandList(List.of(), Structure.EMPTY);
    }

    private static String replaceUnpaired(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else {
                b.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return b.toString();
    }

    static Sink analyse(String source, int depth) {
        Sink sink = new Sink();
        if (depth > MAX_DEPTH) {
            sink.unjudgeable(TOO_DEEP);
            return sink;
        }
        if (source.length() > MAX_BYTES) {
            sink.unjudgeable(TOO_LARGE);
            return sink;
        }
        long utf8 = 0;
        boolean unpaired = false;
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == 0) {
                sink.unjudgeable("a NUL character, which no command line can hold");
                return sink;
            }
            if (c < 0x80) {
                utf8++;
            } else if (c < 0x800) {
                utf8 += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < source.length() && Character.isLowSurrogate(source.charAt(i + 1))) {
                utf8 += 4;
                i++;
            } else if (Character.isSurrogate(c) || c == '\uFFFD') {
                // U+FFFD is what a lenient decoder leaves of invalid UTF-8 (quiver's stdin, a JSON
                // parser): the bytes the model sent are not the ones that would run, so never allow
                unpaired = true;
                utf8 += 3;
            } else {
                utf8 += 3;
            }
        }
        if (utf8 > MAX_BYTES) {
            sink.unjudgeable(TOO_LARGE);
            return sink;
        }
        if (unpaired) {
            // what invalid UTF-8 decoded leniently leaves: the bytes that would run are not these,
            // but the line is still read for the guard
            sink.unjudgeable("text that is not valid UTF-8 (a lone surrogate or U+FFFD)");
            source = replaceUnpaired(source);
        }
        if (source.indexOf("\\\n") >= 0) {
            source = joinContinuations(source);
        }
        if (source.isBlank() || PlainCommand.split(source, depth, sink)) {
            return sink;
        }
        if (Nesting.deeperThan(source, MAX_NESTING)) {
            sink.unjudgeable(TOO_NESTED);
            return sink;
        }
        return parseWithTree(source, depth, sink);
    }

    /**
     * The line as bash reads it: a backslash before a line break outside single quotes, comments and
     * the bodies of here-documents with a quoted delimiter is removed with the line break before the
     * line is split into words ({@code r\⏎m -rf sr\⏎c} is {@code rm -rf src}); the grammar reads such a
     * backslash as the end of a word.
     */
    static String joinContinuations(String s) {
        StringBuilder out = new StringBuilder(s.length());
        List<String[]> pending = new java.util.ArrayList<>(); // here-documents: delimiter, quoted, dash
        int n = s.length();
        int i = 0;
        boolean dq = false;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < n) {
                if (s.charAt(i + 1) != '\n') {
                    out.append(c).append(s.charAt(i + 1));
                }
                i += 2;
            } else if (dq) {
                dq = c != '"';
                out.append(c);
                i++;
            } else if (c == '"') {
                dq = true;
                out.append(c);
                i++;
            } else if (c == '\'') {
                boolean ansi = i > 0 && s.charAt(i - 1) == '$';
                int k = i + 1;
                while (k < n && s.charAt(k) != '\'') {
                    k += ansi && s.charAt(k) == '\\' ? 2 : 1;
                }
                k = Math.min(k + 1, n);
                out.append(s, i, k);
                i = k;
            } else if (c == '#' && (i == 0 || " \t\n;&|()".indexOf(s.charAt(i - 1)) >= 0)) {
                int k = s.indexOf('\n', i);
                k = k < 0 ? n : k;
                out.append(s, i, k);
                i = k;
            } else if (c == '<' && s.startsWith("<<", i) && !s.startsWith("<<<", i)) {
                int k = i + 2;
                boolean dash = k < n && s.charAt(k) == '-';
                k += dash ? 1 : 0;
                while (k < n && (s.charAt(k) == ' ' || s.charAt(k) == '\t')) {
                    k++;
                }
                int startWord = k;
                while (k < n && " \t\n;&|()<>".indexOf(s.charAt(k)) < 0) {
                    k++;
                }
                String word = s.substring(startWord, k);
                boolean quoted = word.indexOf('\'') >= 0 || word.indexOf('"') >= 0 || word.indexOf('\\') >= 0;
                if (!word.isEmpty()) {
                    pending.add(new String[] {ShellText.unquote(word), quoted ? "q" : "", dash ? "-" : ""});
                }
                out.append(s, i, k);
                i = k;
            } else if (c == '\n' && !pending.isEmpty()) {
                out.append(c);
                i++;
                for (String[] doc : pending) {
                    while (i < n) {
                        int end = s.indexOf('\n', i);
                        end = end < 0 ? n : end;
                        String line = s.substring(i, end);
                        if (doc[1].isEmpty() && line.endsWith("\\") && end < n) {
                            // an unquoted body: the continuation joins its lines (the delimiter is looked for after)
                            out.append(line, 0, line.length() - 1);
                            i = end + 1;
                            continue;
                        }
                        out.append(s, i, Math.min(end + 1, n));
                        i = Math.min(end + 1, n);
                        String bare = doc[2].isEmpty() ? line : line.replaceFirst("^\t+", "");
                        if (bare.equals(doc[0])) {
                            break;
                        }
                    }
                }
                pending.clear();
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static final String TOO_LARGE = "more than " + (MAX_BYTES >> 20) + " MiB of text";

    /** Where an ERROR of a lone {@code <<} is followed by a {@code <}: a here-string the grammar could not read. */
    private static void hereStringErrors(Node n, byte[] bytes, List<Integer> spots, int level) {
        if (level > MAX_TREE_DEPTH + 8) {
            return;
        }
        if (n.type.equals("ERROR") && n.children.length == 1 && n.children[0].type.equals("<<") && n.end() == n.start + 2
                && n.end() < bytes.length && bytes[n.end()] == '<') {
            spots.add(n.end());
        }
        for (Node c : n.children) {
            hereStringErrors(c, bytes, spots, level + 1);
        }
    }

    /** The grammar's reading of a line that passed the checks of {@link #analyse}, into {@code sink}. */
    static Sink parseWithTree(String source, int depth, Sink sink) {
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        Node root = null;
        TSTree tree = null;
        boolean treeSitter = true;
        java.util.Set<Integer> hereStrings = java.util.Set.of();
        try {
            tree = Trees.parse(bytes, BUDGET_NANOS);
            if (tree != null) {
                boolean[] truncated = new boolean[1];
                root = TreeReader.read(tree, Trees.language(), MAX_NODES, MAX_TREE_DEPTH, deadline, truncated);
                if (root != null && truncated[0]) {
                    sink.unjudgeable("a syntax tree deeper than " + MAX_TREE_DEPTH + " levels");
                }
                if (root != null && !truncated[0] && tree.getRootNode().hasError() && source.contains("<<<")) {
                    // the grammar cannot read a here-string after a file redirection (cat > f <<< hi): read
                    // the line with each such <<< as <, marked, when that leaves no other error
                    List<Integer> spots = new java.util.ArrayList<>();
                    hereStringErrors(root, bytes, spots, 0);
                    if (!spots.isEmpty()) {
                        byte[] fixed = bytes.clone();
                        for (int s : spots) {
                            fixed[s - 2] = ' ';
                            fixed[s - 1] = ' ';
                        }
                        TSTree again = Trees.parse(fixed, BUDGET_NANOS);
                        if (again != null && !again.getRootNode().hasError()) {
                            boolean[] cut = new boolean[1];
                            Node read = TreeReader.read(again, Trees.language(), MAX_NODES, MAX_TREE_DEPTH, deadline, cut);
                            if (read != null && !cut[0]) {
                                tree = again;
                                root = read;
                                bytes = fixed;
                                hereStrings = java.util.Set.copyOf(spots);
                            }
                        }
                    }
                }
                if (root != null && tree.getRootNode().hasError()) {
                    sink.unjudgeable(SYNTAX);
                }
            }
        } catch (LinkageError e) {
            // no native library for this platform (or the grammar's classes are missing): read what a tokenizer can
            if (UNAVAILABLE_LOGGED.compareAndSet(false, true)) {
                LOG.warn("tree-sitter bash is unavailable; shell commands are read by a tokenizer and never complete", e);
            }
            root = null;
            treeSitter = false;
        }
        if (root == null) {
            sink.unjudgeable(treeSitter ? "more than the grammar reads within its bounds (one second, "
                    + MAX_NODES + " syntax nodes)" : "the bash grammar is not available on this platform");
            FallbackLexer.split(source, depth, sink);
            return sink;
        }
        new Walker(bytes, depth, sink, hereStrings).visit(root, 0);
        java.lang.ref.Reference.reachabilityFence(tree);
        return sink;
    }
}
