package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns the words of one command into simple commands: strips wrappers ({@code sudo}, {@code env},
 * {@code timeout}, ... , {@code xargs}), reads {@code bash -c STRING} and {@code eval ARGS}
 * recursively, and adds the commands {@code find -exec} runs.
 */
final class Expander {

    static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish");

    private static final Set<String> FIND_ACTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir");

    private Expander() {
    }

    /**
     * Emits the simple commands of one command.
     *
     * @param words the command word and its arguments, leading assignments already dropped
     * @param depth how many {@code bash -c}/{@code eval} strings deep these words are
     */
    static void emit(Sink sink, List<Word> words, List<Redirect> redirects, List<String> wrappers, int depth) {
        List<String> wr = new ArrayList<>(wrappers);
        int i = 0;
        int n = words.size();
        while (i < n) {
            Word w = words.get(i);
            if (!w.literal()) {
                break;
            }
            String base = ShellText.baseName(w);
            int next = wrapped(base, words, i + 1);
            if (next < 0 || next > n || (next == n && !base.equals("xargs"))) {
                break;
            }
            wr.add(base);
            if (next == n) {
                // xargs with nothing to run runs echo
                words = new ArrayList<>(words);
                words.add(Word.literal("echo"));
                n++;
            }
            i = next;
        }
        if (i >= n) {
            sink.add(Word.literal(""), List.of(), redirects, wr);
            return;
        }
        List<Word> cmd = words.subList(i, n);
        Word name = cmd.get(0);
        List<Word> args = cmd.subList(1, cmd.size());
        if (!name.literal()) {
            sink.add(name, args, redirects, wr);
            return;
        }
        String base = ShellText.baseName(name);
        if (SHELLS.contains(base)) {
            int s = commandString(cmd);
            if (s >= 0) {
                nested(sink, cmd, cmd.get(s), List.of(cmd.get(s)), redirects, wr, base + " -c", depth);
                return;
            }
        } else if (base.equals("eval")) {
            int from = args.size() > 0 && args.get(0).literal() && args.get(0).value().equals("--") ? 1 : 0;
            if (from < args.size()) {
                List<Word> parts = args.subList(from, args.size());
                nested(sink, cmd, join(parts), parts, redirects, wr, "eval", depth);
                return;
            }
        } else if (base.equals("env")) {
            if (splitString(sink, cmd, redirects, wr, depth)) {
                return;
            }
        } else if (base.equals("su")) {
            for (int j = 1; j < cmd.size(); j++) {
                Word a = cmd.get(j);
                String v = a.value();
                if (a.literal() && (v.equals("-c") || v.equals("--command") || v.equals("--session-command"))
                        && j + 1 < cmd.size()) {
                    nested(sink, cmd, cmd.get(j + 1), List.of(cmd.get(j + 1)), redirects, wr, "su -c", depth);
                    return;
                }
                if (a.literal() && (v.startsWith("--command=") || v.startsWith("--session-command="))) {
                    Word s = Word.literal(v.substring(v.indexOf('=') + 1));
                    nested(sink, cmd, s, List.of(s), redirects, wr, "su -c", depth);
                    return;
                }
            }
        } else if (base.equals("trap")) {
            // trap ACTION SIGNAL...: the action runs later, as if by eval
            int from = args.size() > 0 && args.get(0).literal() && args.get(0).value().equals("--") ? 1 : 0;
            if (from + 1 < args.size() && !(args.get(from).literal() && args.get(from).value().startsWith("-"))) {
                sink.add(name, args, redirects, wr);
                Word action = args.get(from);
                if (action.literal() && depth + 1 <= ShellParser.MAX_DEPTH) {
                    List<String> inner = new ArrayList<>(wr);
                    inner.add("trap");
                    sink.merge(ShellParser.analyse(action.value(), depth + 1), inner, List.of());
                } else if (!action.literal()) {
                    List<String> inner = new ArrayList<>(wr);
                    inner.add("trap");
                    sink.add(new Word(action.value(), false), List.of(), List.of(), inner);
                }
                return;
            }
        } else if (base.equals("watch")) {
            // watch runs its arguments joined with blanks through sh -c
            int from = options(cmd, 1, "nq", "", false);
            if (from < cmd.size()) {
                List<Word> parts = cmd.subList(from, cmd.size());
                nested(sink, cmd, join(parts), parts, redirects, wr, "watch", depth);
                return;
            }
        } else if (base.equals("find")) {
            sink.add(name, args, redirects, wr);
            findActions(sink, args, wr, depth);
            return;
        }
        sink.add(name, args, redirects, wr);
    }

    /** Reads a string of commands ({@code bash -c}'s string, eval's joined arguments) or, when computed, keeps it as a computed command. */
    private static void nested(Sink sink, List<Word> cmd, Word string, List<Word> parts, List<Redirect> redirects,
            List<String> wrappers, String wrapper, int depth) {
        List<String> inner = new ArrayList<>(wrappers);
        inner.add(wrapper);
        if (!string.literal()) {
            sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wrappers);
            sink.add(new Word(string.value(), false), List.of(), redirects, inner);
            return;
        }
        if (depth + 1 > ShellParser.MAX_DEPTH) {
            sink.incomplete = true;
            sink.add(cmd.get(0), cmd.subList(1, cmd.size()), redirects, wrappers);
            return;
        }
        sink.merge(ShellParser.analyse(string.value(), depth + 1), inner, redirects);
    }

    private static Word join(List<Word> parts) {
        StringBuilder b = new StringBuilder();
        boolean literal = true;
        for (Word p : parts) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(p.value());
            literal &= p.literal();
        }
        return new Word(b.toString(), literal);
    }

    /** {@code env -S STRING ...}: the string is split into words; read it like a command string. */
    private static boolean splitString(Sink sink, List<Word> cmd, List<Redirect> redirects, List<String> wr, int depth) {
        for (int j = 1; j < cmd.size(); j++) {
            Word a = cmd.get(j);
            if (!a.literal()) {
                return false;
            }
            String v = a.value();
            String string = null;
            int rest;
            if (v.equals("-S") || v.equals("--split-string")) {
                if (j + 1 >= cmd.size()) {
                    return false;
                }
                string = cmd.get(j + 1).value();
                rest = j + 2;
                if (!cmd.get(j + 1).literal()) {
                    List<Word> parts = cmd.subList(j + 1, cmd.size());
                    nested(sink, cmd, join(parts), parts, redirects, wr, "env -S", depth);
                    return true;
                }
            } else if (v.startsWith("--split-string=")) {
                string = v.substring("--split-string=".length());
                rest = j + 1;
            } else if (v.startsWith("-S")) {
                string = v.substring(2);
                rest = j + 1;
            } else if (!v.startsWith("-") && !v.contains("=")) {
                return false;
            } else {
                continue;
            }
            List<Word> parts = new ArrayList<>();
            parts.add(Word.literal(string));
            parts.addAll(cmd.subList(rest, cmd.size()));
            nested(sink, cmd, join(parts), parts, redirects, wr, "env -S", depth);
            return true;
        }
        return false;
    }

    /** The commands {@code find} runs with -exec, -execdir, -ok and -okdir, each up to its {@code ;} or {@code +}. */
    private static void findActions(Sink sink, List<Word> args, List<String> wrappers, int depth) {
        for (int j = 0; j < args.size(); j++) {
            Word a = args.get(j);
            if (!a.literal() || !FIND_ACTIONS.contains(a.value())) {
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
                emit(sink, new ArrayList<>(args.subList(j + 1, end)), List.of(), inner, depth);
            }
            j = end;
        }
    }

    /** Index of the {@code -c} string of a shell invocation, or -1 when it runs a script or reads standard input. */
    static int commandString(List<Word> cmd) {
        boolean c = false;
        int j = 1;
        while (j < cmd.size()) {
            Word a = cmd.get(j);
            if (!a.literal()) {
                if (c) {
                    return j;
                }
                j++;
                continue;
            }
            String v = a.value();
            if (v.equals("--") || v.equals("-")) {
                return c && j + 1 < cmd.size() ? j + 1 : -1;
            }
            if (v.startsWith("--")) {
                j += v.equals("--rcfile") || v.equals("--init-file") ? 2 : 1;
                continue;
            }
            if ((v.startsWith("-") || v.startsWith("+")) && v.length() > 1) {
                if (v.charAt(0) == '-' && v.indexOf('c') > 0) {
                    c = true;
                }
                j += v.indexOf('o') > 0 || v.indexOf('O') > 0 ? 2 : 1;
                continue;
            }
            return c ? j : -1;
        }
        return -1;
    }

    /**
     * When {@code base} is a wrapper, the index of the word it runs ({@code words.size()} when
     * nothing follows); -1 when it is not a wrapper here ({@code command -v x}, {@code sudo -e f}).
     */
    static int wrapped(String base, List<Word> words, int j) {
        return switch (base) {
            case "sudo", "doas" -> sudo(words, j);
            case "env" -> env(words, j);
            case "timeout" -> timeout(words, j);
            case "nice" -> options(words, j, "n", "", true);
            case "nohup", "builtin", "coproc" -> options(words, j, "", "", false);
            case "time" -> options(words, j, "fo", "", false);
            case "stdbuf" -> options(words, j, "ioe", "", false);
            case "ionice" -> ionice(words, j);
            case "command" -> command(words, j);
            case "exec" -> options(words, j, "a", "", false);
            case "xargs" -> options(words, j, "ILnPsdaE", "ile", false);
            default -> -1;
        };
    }

    /**
     * Skips getopt-style options: {@code argChars} take a value (attached or the next word),
     * {@code optionalArgChars} take an attached value only; {@code --name=value} and {@code --name}
     * take one word, except the long options listed in {@link #LONG_WITH_VALUE}. {@code --} ends the
     * options. With {@code numeric}, {@code -N} (e.g. {@code nice -10}) is an option too.
     */
    private static int options(List<Word> words, int j, String argChars, String optionalArgChars, boolean numeric) {
        while (j < words.size()) {
            Word a = words.get(j);
            if (!a.literal()) {
                return j;
            }
            String v = a.value();
            if (v.equals("--")) {
                return j + 1;
            }
            if (v.startsWith("--")) {
                j += LONG_WITH_VALUE.contains(v) ? 2 : 1;
                continue;
            }
            if (v.length() < 2 || v.charAt(0) != '-') {
                return j;
            }
            j += cluster(v, argChars, optionalArgChars, numeric);
        }
        return j;
    }

    private static final Set<String> LONG_WITH_VALUE = Set.of(
            "--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type",
            "--command-timeout", "--other-user", "--unset", "--signal", "--kill-after", "--adjustment",
            "--format", "--output", "--input", "--error", "--class", "--classdata", "--arg-file",
            "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--max-lines",
            "--interval");

    /** Words taken by one short-option cluster: 2 when its last option needs the next word. */
    private static int cluster(String v, String argChars, String optionalArgChars, boolean numeric) {
        if (numeric && v.length() > 1 && allDigits(v, 1)) {
            return 1;
        }
        for (int k = 1; k < v.length(); k++) {
            char ch = v.charAt(k);
            if (argChars.indexOf(ch) >= 0) {
                return k == v.length() - 1 ? 2 : 1;
            }
            if (optionalArgChars.indexOf(ch) >= 0) {
                return 1;
            }
        }
        return 1;
    }

    private static boolean allDigits(String v, int from) {
        for (int k = from; k < v.length(); k++) {
            if (v.charAt(k) < '0' || v.charAt(k) > '9') {
                return false;
            }
        }
        return from < v.length();
    }

    private static int sudo(List<Word> words, int j) {
        while (j < words.size()) {
            Word a = words.get(j);
            if (!a.literal()) {
                return j;
            }
            String v = a.value();
            if (v.equals("--")) {
                return j + 1;
            }
            if (v.equals("-e") || v.equals("--edit") || v.equals("-l") || v.equals("--list")
                    || v.equals("-v") || v.equals("--validate") || v.equals("-K") || v.equals("--remove-timestamp")) {
                return -1;
            }
            if (v.startsWith("--")) {
                j += LONG_WITH_VALUE.contains(v) ? 2 : 1;
            } else if (v.length() > 1 && v.charAt(0) == '-') {
                j += cluster(v, "ugpCDrtTUR", "", false);
            } else if (isAssignment(v)) {
                j++;
            } else {
                return j;
            }
        }
        return j;
    }

    private static int env(List<Word> words, int j) {
        while (j < words.size()) {
            Word a = words.get(j);
            if (!a.literal()) {
                return j;
            }
            String v = a.value();
            if (v.equals("--")) {
                j++;
                continue;
            }
            if (v.startsWith("-S") || v.startsWith("--split-string")) {
                return -1; // read by splitString
            }
            if (v.equals("-")) {
                j++;
            } else if (v.startsWith("--")) {
                j += LONG_WITH_VALUE.contains(v) ? 2 : 1;
            } else if (v.length() > 1 && v.charAt(0) == '-') {
                if (v.indexOf('S') > 0) {
                    return -1;
                }
                j += cluster(v, "uC", "", false);
            } else if (isAssignment(v)) {
                j++;
            } else {
                return j;
            }
        }
        return j;
    }

    private static int timeout(List<Word> words, int j) {
        j = options(words, j, "sk", "", false);
        return j < words.size() ? j + 1 : j; // the duration
    }

    private static int ionice(List<Word> words, int j) {
        for (int k = j; k < words.size(); k++) {
            Word a = words.get(k);
            if (!a.literal() || !a.value().startsWith("-")) {
                break;
            }
            String v = a.value();
            if (v.startsWith("-p") || v.startsWith("-P") || v.startsWith("-u") || v.startsWith("--pid")
                    || v.startsWith("--pgid") || v.startsWith("--uid")) {
                return -1;
            }
        }
        return options(words, j, "cn", "", false);
    }

    private static int command(List<Word> words, int j) {
        int k = j;
        while (k < words.size() && words.get(k).literal() && ShellText.isShortCluster(words.get(k).value())) {
            String v = words.get(k).value();
            if (v.indexOf('v') > 0 || v.indexOf('V') > 0) {
                return -1;
            }
            k++;
        }
        if (k < words.size() && words.get(k).literal() && words.get(k).value().equals("--")) {
            k++;
        }
        return k;
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
