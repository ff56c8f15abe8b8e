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
 * {@code env -S}, {@code su -c} and {@code watch} are read recursively; wrappers are stripped (see
 * {@link SimpleCommand#wrappers()}); {@code find -exec} adds the commands it runs. Here-document
 * bodies are data: only the substitutions of an unquoted one are commands.
 *
 * <p>Thread-safe; never throws. Input with NUL characters (which no process argument can hold)
 * or over 1 MiB of UTF-8 is reported incomplete without being parsed. Unpaired surrogates and
 * U+FFFD (what is left of invalid UTF-8 in a Java string) make the parse incomplete; surrogates are
 * read as U+FFFD. A
 * parse that exceeds its time budget is reported incomplete, its commands read by a plain
 * tokenizer ({@link FallbackLexer}).
 */
public final class ShellParser {

    /** Input larger than this (UTF-8 bytes) is not parsed. */
    static final int MAX_BYTES = 1 << 20;
    /** How many {@code bash -c}/{@code eval}/backtick strings deep the parser reads. */
    static final int MAX_DEPTH = 8;
    /** Time budget of one tree-sitter parse. */
    static final long BUDGET_NANOS = 1_000_000_000L;
    /** A tree with more nodes is not walked (the tokenizer reads the input instead). */
    static final int MAX_NODES = 400_000;
    /** Nodes deeper than this are not read (the parse is incomplete). */
    static final int MAX_TREE_DEPTH = 256;

    private static final Logger LOG = LoggerFactory.getLogger(ShellParser.class);
    private static final AtomicBoolean UNAVAILABLE_LOGGED = new AtomicBoolean();

    private ShellParser() {
    }

    public static ParsedCommand parse(String command) {
        String source = command == null ? "" : command;
        try {
            return analyse(source, 0).toParsed(source);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            return new ParsedCommand(source, List.of(), false);
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
        if (source.length() > MAX_BYTES || depth > MAX_DEPTH) {
            sink.incomplete = true;
            return sink;
        }
        long utf8 = 0;
        boolean unpaired = false;
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == 0) {
                sink.incomplete = true;
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
            sink.incomplete = true;
            return sink;
        }
        if (unpaired) {
            // what invalid UTF-8 decoded leniently leaves: incomplete, but still read for the guard
            sink.incomplete = true;
            source = replaceUnpaired(source);
        }
        if (source.isBlank() || PlainCommand.split(source, depth, sink)) {
            return sink;
        }
        return parseWithTree(source, depth, sink);
    }

    /** The grammar's reading of a line that passed the checks of {@link #analyse}, into {@code sink}. */
    static Sink parseWithTree(String source, int depth, Sink sink) {
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + BUDGET_NANOS;
        Node root = null;
        TSTree tree = null;
        try {
            tree = Trees.parse(bytes, BUDGET_NANOS);
            if (tree != null) {
                boolean[] truncated = new boolean[1];
                root = TreeReader.read(tree, Trees.language(), MAX_NODES, MAX_TREE_DEPTH, deadline, truncated);
                if (root != null && (truncated[0] || tree.getRootNode().hasError())) {
                    sink.incomplete = true;
                }
            }
        } catch (LinkageError e) {
            // no native library for this platform (or the grammar's classes are missing): read what a tokenizer can
            if (UNAVAILABLE_LOGGED.compareAndSet(false, true)) {
                LOG.warn("tree-sitter bash is unavailable; shell commands are read by a tokenizer and never complete", e);
            }
            root = null;
        }
        if (root == null) {
            sink.incomplete = true;
            FallbackLexer.split(source, depth, sink);
            return sink;
        }
        new Walker(bytes, depth, sink).visit(root, 0);
        java.lang.ref.Reference.reachabilityFence(tree);
        return sink;
    }
}
