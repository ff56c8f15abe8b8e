package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns the words of one command into simple commands: strips wrappers (see {@link Wrappers}), reads
 * {@code bash -c STRING}, {@code eval ARGS} and the strings wrappers run ({@code su -c},
 * {@code flock -c}, {@code watch}) recursively, and adds the commands {@code find -exec} runs.
 */
final class Expander {

    static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish");

    private Expander() {
    }

    /**
     * Emits the simple commands of one command.
     *
     * @param words the command word and its arguments, leading assignments already dropped
     * @param depth how many {@code bash -c}/{@code eval} strings deep these words are
     */
    static void emit(Sink sink, List<Word> words, List<Redirect> redirects, List<String> wrappers, int depth) {
        emit(sink, words, redirects, wrappers, depth, List.of());
    }

    /** As {@link #emit(Sink, List, List, List, int)} for a command run with {@code assignments} before its command word. */
    static void emit(Sink sink, List<Word> words, List<Redirect> redirects, List<String> wrappers, int depth,
            List<Word> assignments) {
        List<Word> before = sink.pendingAssignments;
        sink.pendingAssignments = new ArrayList<>(assignments);
        try {
            emitWords(sink, words, redirects, wrappers, depth);
        } finally {
            sink.pendingAssignments = before;
        }
    }

    private static void emitWords(Sink sink, List<Word> words, List<Redirect> redirects, List<String> wrappers,
            int depth) {
        List<String> wr = new ArrayList<>(wrappers);
        List<Word> cmd = words;
        while (!cmd.isEmpty() && cmd.get(0).literal()) {
            String word = cmd.get(0).value();
            if (word.indexOf('/') > 0) {
                break; // a program of the workspace (./script, bin/timeout), not the wrapper of that name
            }
            String base = ShellText.baseName(cmd.get(0));
            if (base.equals("coproc")) {
                cmd = coprocBody(cmd);
                if (cmd.size() > 1 && !cmd.get(1).literal() && cmd.size() > 2 && cmd.get(2).literal()
                        && cmd.get(2).value().equals("{")) {
                    sink.unjudgeable("a coprocess of computed name " + Getopt.show(cmd.get(1)));
                }
            }
            Wrappers.Read read = Wrappers.read(base, cmd);
            if (read == null) {
                break;
            }
            switch (read.kind()) {
                case RUNS -> {
                    wr.add(base);
                    passedOn(sink, base, cmd.subList(1, Math.max(1, cmd.size() - read.command().size())));
                    cmd = read.command();
                    continue;
                }
                case STRING -> nested(sink, cmd, read.string(), redirects, wr, read.label(), depth);
                case UNREADABLE -> {
                    sink.unjudgeable("what `" + ShellText.abbreviate(cmd.get(0).value(), 40) + "` runs cannot be read: "
                            + read.why());
                    sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wr, depth);
                    guesses(sink, cmd, redirects, wr, base, depth);
                }
                default -> sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wr, depth,
                        read.kind() == Wrappers.Kind.SHELL);
            }
            return;
        }
        if (cmd.isEmpty()) {
            sink.add(Word.literal(""), List.of(), redirects, wr, depth);
            return;
        }
        Word name = cmd.get(0);
        List<Word> args = cmd.subList(1, cmd.size());
        if (!name.literal()) {
            sink.add(name, args, redirects, wr, depth);
            return;
        }
        String base = ShellText.baseName(name);
        if (SHELLS.contains(base)) {
            int s = invocation(cmd).string();
            if (s >= 0) {
                nested(sink, cmd, cmd.get(s), redirects, wr, base + " -c", depth);
                return;
            }
        } else if (base.equals("eval")) {
            int from = args.size() > 0 && args.get(0).literal() && args.get(0).value().equals("--") ? 1 : 0;
            if (from < args.size()) {
                nested(sink, cmd, Wrappers.join(args.subList(from, args.size())), redirects, wr, "eval", depth);
                return;
            }
        } else if (base.equals("trap")) {
            // trap ACTION SIGNAL...: the action runs later, as if by eval
            int from = args.size() > 0 && args.get(0).literal() && args.get(0).value().equals("--") ? 1 : 0;
            if (from + 1 < args.size() && !(args.get(from).literal() && args.get(from).value().startsWith("-"))) {
                sink.add(name, args, redirects, wr, depth);
                List<String> inner = new ArrayList<>(wr);
                inner.add("trap");
                Word action = args.get(from);
                if (!action.literal()) {
                    sink.unjudgeable("a trap action of computed text " + Getopt.show(action));
                    sink.add(new Word(action.value(), false), List.of(), List.of(), inner, depth + 1);
                } else if (depth + 1 > ShellParser.MAX_DEPTH) {
                    sink.unjudgeable(ShellParser.TOO_DEEP);
                } else {
                    sink.merge(ShellParser.analyse(action.value(), depth + 1), inner, List.of());
                }
                return;
            }
        } else if (base.equals("find")) {
            sink.add(name, args, redirects, wr, depth);
            findActions(sink, args, wr, depth);
            return;
        }
        sink.add(name, args, redirects, wr, depth);
    }

    /**
     * The assignments a wrapper passes on to its command ({@code env A=1 cmd}, {@code sudo A=1 cmd}), kept
     * with the command; a wrapper that runs its command in another folder ({@code env -C DIR},
     * {@code sudo -D DIR}) makes the line unjudgeable, as that folder is not followed.
     */
    private static void passedOn(Sink sink, String wrapper, List<Word> words) {
        List<Word> pending = new ArrayList<>(sink.pendingAssignments);
        for (Word w : words) {
            String v = w.value();
            if (isAssignment(v)) {
                pending.add(w);
            }
            boolean env = wrapper.equals("env") && (v.matches("-[a-zA-Z0-9]*C.*") || v.matches("--ch(d(i(r)?)?)?(=.*)?"));
            boolean sudo = wrapper.equals("sudo") && (v.matches("-[a-zA-Z]*D.*") || v.matches("--chd(i(r)?)?(=.*)?"));
            if (env || sudo) {
                sink.unjudgeable("`" + wrapper + " " + ShellText.abbreviate(v, 40)
                        + "` runs its command in another folder, whose paths are not followed");
            }
        }
        sink.pendingAssignments = pending;
    }

    /**
     * {@code coproc NAME { body; }} and {@code coproc { body; }}, which the grammar reads as a command
     * named {@code NAME} or {@code {}: the coprocess runs the body, so its first command is the one
     * the words start (the body's later commands are read as commands of their own).
     */
    private static List<Word> coprocBody(List<Word> cmd) {
        int k = 1;
        if (k + 1 < cmd.size() && cmd.get(k).literal() && cmd.get(k).value().matches("[A-Za-z_][A-Za-z0-9_]*")
                && cmd.get(k + 1).literal() && cmd.get(k + 1).value().equals("{")) {
            k++;
        }
        if (k < cmd.size() && cmd.get(k).literal() && cmd.get(k).value().equals("{")) {
            List<Word> out = new ArrayList<>();
            out.add(cmd.get(0));
            out.addAll(cmd.subList(k + 1, cmd.size()));
            return out;
        }
        return cmd;
    }

    /** At most this many guesses at what a wrapper that cannot be read runs. */
    private static final int MAX_GUESSES = 16;

    /**
     * What a wrapper whose words cannot be read may run, for the guard to refuse (the line cannot be
     * judged anyway): the words from each that may start its command (literal, no dash) on. Not read
     * further, so that guesses never multiply.
     */
    private static void guesses(Sink sink, List<Word> cmd, List<Redirect> redirects, List<String> wrappers, String base,
            int depth) {
        List<String> inner = new ArrayList<>(wrappers);
        inner.add(base);
        int made = 0;
        for (int k = 1; k < cmd.size() && made < MAX_GUESSES; k++) {
            Word w = cmd.get(k);
            if (w.literal() && !w.value().startsWith("-")) {
                sink.add(w, cmd.subList(k + 1, cmd.size()), redirects, inner, depth);
                made++;
            }
        }
    }

    /**
     * Reads a string of commands ({@code bash -c}'s string, eval's joined arguments) or, when
     * computed, keeps the command and the string as a computed command, and says why it cannot be judged.
     */
    private static void nested(Sink sink, List<Word> cmd, Word string, List<Redirect> redirects,
            List<String> wrappers, String wrapper, int depth) {
        List<String> inner = new ArrayList<>(wrappers);
        inner.add(wrapper);
        if (!string.literal()) {
            sink.unjudgeable(wrapper + " of computed text " + Getopt.show(string));
            sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wrappers, depth);
            sink.add(new Word(string.value(), false), List.of(), redirects, inner, depth + 1);
            return;
        }
        if (depth + 1 > ShellParser.MAX_DEPTH) {
            sink.unjudgeable(ShellParser.TOO_DEEP);
            sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wrappers, depth);
            return;
        }
        sink.merge(ShellParser.analyse(string.value(), depth + 1), inner, redirects);
    }

    /** The commands {@code find} runs with -exec, -execdir, -ok and -okdir, each up to its {@code ;} or {@code +}. */
    private static void findActions(Sink sink, List<Word> args, List<String> wrappers, int depth) {
        for (int j = 0; j < args.size(); j++) {
            Word a = args.get(j);
            if (!a.literal() || !Programs.FIND_ACTIONS.contains(a.value())) {
                continue;
            }
            int end = j + 1;
            while (end < args.size() && !(args.get(end).literal()
                    && (args.get(end).value().equals(";") || args.get(end).value().equals("+")))) {
                end++;
            }
            if (end > j + 1) {
                List<String> inner = new ArrayList<>(wrappers);
                inner.add("find " + a.value());
                emit(sink, args.subList(j + 1, end), List.of(), inner, depth);
            }
            j = end;
        }
    }

    /**
     * What a shell's words say it runs: the index of its {@code -c} string, else of its script operand
     * (-1 for both when it reads its commands from standard input: no operand, {@code -s}, or only
     * {@code -}/{@code --}).
     */
    record Invocation(int string, int script) {
    }

    static Invocation invocation(List<Word> cmd) {
        boolean c = false;
        boolean stdin = false;
        // a computed word may be options or the script: the words after it are read as options too,
        // so that a -c among them is found, and it counts as the script only if none is
        int computed = -1;
        int j = 1;
        while (j < cmd.size()) {
            Word a = cmd.get(j);
            String v = a.value();
            if (!a.literal()) {
                if (c) {
                    return new Invocation(j, -1);
                }
                computed = computed < 0 ? j : computed;
                j++;
                continue;
            }
            int operand = v.equals("--") || v.equals("-") ? j + 1
                    : !(v.startsWith("-") || v.startsWith("+")) || v.length() < 2 ? j : -1;
            if (operand >= 0) {
                // the end of the options: the -c string, else the script (or, with -s, a positional parameter)
                operand = operand < cmd.size() ? operand : -1;
                return new Invocation(c ? operand : -1, c || stdin ? -1 : computed >= 0 ? computed : operand);
            }
            if (v.startsWith("--")) {
                j += v.equals("--rcfile") || v.equals("--init-file") ? 2 : 1;
                continue;
            }
            c |= v.charAt(0) == '-' && v.indexOf('c') > 0;
            stdin |= v.charAt(0) == '-' && v.indexOf('s') > 0;
            j += v.indexOf('o') > 0 || v.indexOf('O') > 0 ? 2 : 1;
        }
        return new Invocation(-1, c || stdin ? -1 : computed);
    }

    static boolean isAssignment(String v) {
        int eq = v.indexOf('=');
        if (eq <= 0) {
            return false;
        }
        for (int k = 0; k < eq; k++) {
            char c = v.charAt(k);
            boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (k > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
