package dev.quiver.bash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Code a command reads from somewhere else than its words: a shell's or interpreter's standard input
 * (a here-document, a here-string, a pipe), its script from a process substitution
 * ({@code bash <(...)}, {@code source <(...)}), {@code source /dev/stdin}, the makefile of
 * {@code make -f -}. Run over a finished parse, because what feeds a command's standard input is
 * known only with the pipelines and the redirections of the compounds around it.
 *
 * <p>Code whose text is known (a quoted here-document, the output of {@code echo} or {@code printf}
 * of literal words, of {@code cat} of a literal here-document) is read like a {@code bash -c} string
 * when a shell runs it, so the guard and the rules judge its commands; a makefile's recipes too, when
 * the makefile is plain rules and recipes. Code whose text depends on run-time values, and any code for
 * a shell that is not plain, makes the line unjudgeable. For interpreters (python, perl, node, ...,
 * awk and sed scripts) only the second: their code is not read either way.
 */
final class CodeInput {

    /** Paths that name the standard input. */
    private static final Set<String> STDIN = Set.of("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0");

    private static final Pattern INTERPRETER = Pattern.compile(
            "python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|php[0-9.]*|lua[0-9.]*|tclsh[0-9.]*");

    /**
     * Per interpreter: the options that give its program in the words (python -c, perl -e, ...), so
     * that standard input is data, and the options that take the next word as their value.
     */
    private static final String[][] INTERPRETER_OPTIONS = {
        {"python", "cm", "WXQ"}, {"pypy", "cm", "WXQ"}, {"perl", "eE", "I"}, {"ruby", "e", "ICEr"},
        {"node", "ep", "r"}, {"php", "rBRE", "cdzF"}, {"lua", "e", "l"}};

    /** Long options that give an interpreter its program (node --eval, --print; php --run). */
    private static final Set<String> INLINE_LONG = Set.of("--eval", "--print", "--run");

    /** Long options of node that take the next word as their value, which is then no script. */
    private static final Set<String> VALUED_LONG = Set.of("--require", "--import", "--loader", "--experimental-loader",
            "--conditions", "--input-type", "--title", "--env-file");

    /** awk reads its program from the file {@code -f} names, and so does sed its script. */
    private static final Set<String> AWKS = Set.of("awk", "gawk", "mawk", "nawk");

    /** make's options that take no value, which may stand before {@code f} in one word ({@code -kf -}). */
    private static final String MAKE_FLAGS = "bBdehikLnpqrRsStvw";

    enum Kind {
        /** Shell commands: read and judged. */
        SHELL,
        /** A makefile: its recipes are shell commands. */
        MAKE,
        /** Another language: never read, so only its source counts. */
        OTHER
    }

    /**
     * A command that runs code from elsewhere: what kind, the word naming where it comes from (null:
     * its standard input), and the wrappers its commands get.
     */
    private record Reader(Kind kind, Word script, List<String> labels) {
    }

    private CodeInput() {
    }

    /** Reads the code the commands of {@code sink} are fed, the commands this adds included. */
    static void resolve(Sink sink) {
        for (int k = 0; k < sink.cmds.size(); k++) {
            Sink.Cmd c = sink.cmds.get(k);
            Reader r = reader(sink, c);
            if (r == null) {
                continue;
            }
            if (r.script() != null) {
                substitution(sink, c, r, r.script());
                continue;
            }
            // the last input redirection wins, but which applies depends on the compounds around
            // the command: every one is read, and any of them takes the place of a pipe
            boolean redirected = false;
            for (Redirect in : c.redirects) {
                if (in.fd() == null || in.fd() == 0) {
                    redirected |= redirected(sink, c, r, in);
                }
            }
            if (!redirected) {
                piped(sink, k, c, r);
            }
        }
    }

    /** What {@code c} runs as code, or null when it runs none from elsewhere. */
    private static Reader reader(Sink sink, Sink.Cmd c) {
        if (!c.name.literal()) {
            return null;
        }
        String base = ShellText.baseName(c.name);
        if (c.shell) {
            return new Reader(Kind.SHELL, null, List.of(base, "sh -s"));
        }
        List<Word> args = c.args;
        if (Expander.SHELLS.contains(base)) {
            List<Word> words = new ArrayList<>();
            words.add(c.name);
            words.addAll(args);
            Expander.Invocation inv = Expander.invocation(words);
            if (inv.string() >= 0) {
                return null;
            }
            return inv.script() < 0 ? new Reader(Kind.SHELL, null, List.of(base + " -s"))
                    : source(Kind.SHELL, words.get(inv.script()), List.of(base + " -s"));
        }
        if (base.equals("source") || base.equals(".")) {
            int first = !args.isEmpty() && args.get(0).literal() && args.get(0).value().equals("--") ? 1 : 0;
            if (first >= args.size()) {
                return null;
            }
            Word file = args.get(first);
            if (!file.literal() && substitutionBody(file) == null) {
                // the code runs in this shell, and may define what later commands mean
                sink.unjudgeable(base + " of a computed path " + Getopt.show(file));
                return null;
            }
            return source(Kind.SHELL, file, List.of(base));
        }
        if (base.equals("at") || base.equals("batch")) {
            // at reads the commands it schedules for sh from its standard input, unless -f names a file
            for (Word a : args) {
                if (a.literal() && a.value().startsWith("-") && a.value().indexOf('f') > 0) {
                    return null;
                }
            }
            return new Reader(Kind.SHELL, null, List.of(base));
        }
        if (base.equals("make") || base.equals("gmake")) {
            return fromFiles(Kind.MAKE, scriptFiles(args, MAKE_FLAGS), List.of("make -f"));
        }
        if (base.equals("sed")) {
            return fromFiles(Kind.OTHER, scriptFiles(args, "nErsuz"), List.of());
        }
        if (AWKS.contains(base)) {
            return fromFiles(Kind.OTHER, scriptFiles(args, ""), List.of());
        }
        if (INTERPRETER.matcher(base).matches()) {
            return interpreter(base, args);
        }
        return null;
    }

    /** A reader of the code in {@code file}: its standard input, a process substitution, else none (a file). */
    private static Reader source(Kind kind, Word file, List<String> labels) {
        if (file.literal() && (STDIN.contains(file.value()) || file.value().equals("-"))) {
            return new Reader(kind, null, labels);
        }
        return substitutionBody(file) != null ? new Reader(kind, file, labels) : null;
    }

    /** The first of {@code files} that is code from elsewhere, or null. */
    private static Reader fromFiles(Kind kind, List<Word> files, List<String> labels) {
        for (Word file : files) {
            Reader r = source(kind, file, labels);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    /**
     * The files named with {@code -f FILE}, {@code -fFILE} (also after flags that take no value:
     * {@code -kf FILE}), {@code --file=FILE} or {@code --file FILE} (and make's {@code --makefile}).
     */
    private static List<Word> scriptFiles(List<Word> args, String flags) {
        List<Word> files = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            Word a = args.get(k);
            String v = a.value();
            if (!a.literal()) {
                continue;
            }
            if (v.equals("--")) {
                break;
            }
            if (v.equals("--file") || v.equals("--makefile")) {
                if (k + 1 < args.size()) {
                    files.add(args.get(++k));
                }
            } else if (v.startsWith("--file=") || v.startsWith("--makefile=")) {
                files.add(Word.literal(v.substring(v.indexOf('=') + 1)));
            } else if (v.startsWith("-") && !v.startsWith("--")) {
                int i = 1;
                while (i < v.length() && flags.indexOf(v.charAt(i)) >= 0) {
                    i++;
                }
                if (i < v.length() && v.charAt(i) == 'f') {
                    if (i + 1 < v.length()) {
                        files.add(Word.literal(v.substring(i + 1)));
                    } else if (k + 1 < args.size()) {
                        files.add(args.get(++k));
                    }
                }
            }
        }
        return files;
    }

    /**
     * An interpreter reads its program from standard input unless its words give the program
     * (python -c, perl -e, node -e, ...) or name a script file; {@code -} names standard input.
     * When the words cannot be read, standard input counts as read.
     */
    private static Reader interpreter(String base, List<Word> args) {
        String inline = "";
        String valued = "";
        for (String[] family : INTERPRETER_OPTIONS) {
            if (base.startsWith(family[0])) {
                inline = family[1];
                valued = family[2];
                break;
            }
        }
        Reader stdin = new Reader(Kind.OTHER, null, List.of());
        for (int k = 0; k < args.size(); k++) {
            Word a = args.get(k);
            String v = a.value();
            if (substitutionBody(a) != null) {
                return new Reader(Kind.OTHER, a, List.of());
            }
            if (!a.literal() || v.equals("-") || STDIN.contains(v)) {
                return stdin;
            }
            if (v.equals("--")) {
                return k + 1 < args.size() ? source(Kind.OTHER, args.get(k + 1), List.of()) : stdin;
            }
            if (v.startsWith("--")) {
                String name = v.split("=", 2)[0];
                if (INLINE_LONG.contains(name)) {
                    return null;
                }
                k += VALUED_LONG.contains(name) && !v.contains("=") ? 1 : 0;
                continue;
            }
            if (v.startsWith("-") && v.length() > 1) {
                for (int i = 1; i < v.length(); i++) {
                    if (inline.indexOf(v.charAt(i)) >= 0) {
                        return null;
                    }
                    if (valued.indexOf(v.charAt(i)) >= 0) {
                        k += i == v.length() - 1 ? 1 : 0;
                        break;
                    }
                }
                continue;
            }
            return source(Kind.OTHER, a, List.of());
        }
        return stdin;
    }

    /** The body of a word that is one process substitution {@code <(...)}, or null. */
    private static String substitutionBody(Word w) {
        String v = w.value();
        return !w.literal() && v.startsWith("<(") && v.endsWith(")") ? v.substring(2, v.length() - 1) : null;
    }

    private static String name(Sink.Cmd c) {
        return ShellText.baseName(c.name);
    }

    /** Code from a process substitution: read when it prints literal text, else the line is unjudgeable. */
    private static void substitution(Sink sink, Sink.Cmd c, Reader r, Word word) {
        String body = substitutionBody(word);
        Sink producer = ShellParser.analyse(body, c.depth + 1);
        String text = producer.incomplete() || producer.cmds.size() != 1 ? null : output(producer.cmds.get(0));
        if (text == null) {
            sink.unjudgeable("code for " + name(c) + " from a process substitution: " + Getopt.show(word));
            return;
        }
        run(sink, c, r, text, "a process substitution");
    }

    /**
     * Code from one of the command's input redirections; false when it is no input redirection or
     * keeps the input as it is ({@code < /dev/stdin}, {@code <&0}).
     */
    private static boolean redirected(Sink sink, Sink.Cmd c, Reader r, Redirect in) {
        Word target = in.target();
        switch (in.operator()) {
            case "<<", "<<-", "<<<" -> {
                if (!target.literal()) {
                    sink.unjudgeable("code for " + name(c) + " from " + (in.operator().equals("<<<")
                            ? "a computed here-string " + Getopt.show(target) : "a here-document with expansions"));
                } else {
                    run(sink, c, r, data(in), "a here-document");
                }
                return true;
            }
            case "<", "<>" -> {
                if (target.literal() && STDIN.contains(target.value())) {
                    return false;
                }
                if (substitutionBody(target) != null) {
                    substitution(sink, c, r, target);
                }
                return true; // else a file: its code is judged as a script would be
            }
            case "<&" -> {
                if (target.value().equals("0")) {
                    return false;
                }
                if (!target.value().equals("-")) {
                    sink.unjudgeable("code for " + name(c) + " from file descriptor " + target.value());
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** Code from a pipe: the output of the stage before, when it is literal. */
    private static void piped(Sink sink, int k, Sink.Cmd c, Reader r) {
        Structure.Stage producer = producer(sink, k);
        if (producer == null) {
            return; // the tool's own standard input, which is empty
        }
        int size = producer.end() - producer.start();
        if (size == 0) {
            return; // a stage of no simple command ([[ ]], arithmetic) prints nothing
        }
        String text = size == 1 ? output(sink.cmds.get(producer.start())) : null;
        if (text == null) {
            String first = sink.cmds.get(producer.start()).build().text();
            sink.unjudgeable("code for " + name(c) + " piped from `" + ShellText.abbreviate(first, 60) + "`");
            return;
        }
        run(sink, c, r, text, "a pipe");
    }

    /**
     * The stage whose output is command {@code k}'s standard input: the stage before the innermost
     * pipeline stage holding it; a first stage passes its own input on, so the pipelines around
     * are looked at next. Null when no pipe feeds it.
     */
    private static Structure.Stage producer(Sink sink, int k) {
        List<Structure.Stage[]> around = new ArrayList<>();
        for (Structure.Pipeline p : sink.pipelines) {
            List<Structure.Stage> stages = p.stages();
            for (int s = 0; s < stages.size(); s++) {
                if (stages.get(s).contains(k)) {
                    around.add(new Structure.Stage[] {stages.get(s), s == 0 ? null : stages.get(s - 1)});
                }
            }
        }
        around.sort(Comparator.comparingInt(pair -> pair[0].end() - pair[0].start()));
        for (Structure.Stage[] pair : around) {
            if (pair[1] != null) {
                return pair[1];
            }
        }
        return null;
    }

    /** Reads known code as {@code r} runs it. */
    private static void run(Sink sink, Sink.Cmd c, Reader r, String text, String from) {
        String commands = switch (r.kind()) {
            case SHELL -> text;
            case MAKE -> recipes(text);
            case OTHER -> "";
        };
        if (commands == null) {
            sink.unjudgeable("a makefile for " + name(c) + " from " + from + " that is more than plain rules and recipes");
        } else if (!commands.isBlank()) {
            List<String> wrappers = new ArrayList<>(c.wrappers);
            wrappers.addAll(r.labels());
            sink.merge(ShellParser.analyse(commands, c.depth + 1), wrappers, List.of());
        }
    }

    /** The text a here-document or here-string feeds, as bash feeds it. */
    private static String data(Redirect in) {
        String v = in.target().value();
        return switch (in.operator()) {
            case "<<<" -> v + "\n";
            case "<<-" -> v.replaceAll("(?m)^\t+", "");
            default -> v;
        };
    }

    /**
     * What a command prints when that is known before it runs: {@code echo} and {@code printf} of
     * literal words ({@code printf} with {@code %s}, {@code %%} and the common escapes only),
     * {@code cat} of a literal here-document or here-string; null otherwise.
     */
    static String output(Sink.Cmd c) {
        if (!c.name.literal()) {
            return null;
        }
        List<Word> args = c.args;
        for (Word a : args) {
            if (!a.literal()) {
                return null;
            }
        }
        switch (ShellText.baseName(c.name)) {
            case "echo" -> {
                int k = 0;
                boolean newline = true;
                boolean escapes = false;
                while (k < args.size() && args.get(k).value().matches("-[neE]+")) {
                    newline &= args.get(k).value().indexOf('n') < 0;
                    escapes |= args.get(k).value().indexOf('e') > 0;
                    k++;
                }
                StringBuilder b = new StringBuilder();
                for (int i = k; i < args.size(); i++) {
                    b.append(i > k ? " " : "").append(args.get(i).value());
                }
                if (escapes && b.indexOf("\\") >= 0) {
                    return null;
                }
                return b.append(newline ? "\n" : "").toString();
            }
            case "printf" -> {
                int k = !args.isEmpty() && args.get(0).value().equals("--") ? 1 : 0;
                if (k >= args.size() || args.get(k).value().startsWith("-")) {
                    return null;
                }
                return printf(args.get(k).value(), args.subList(k + 1, args.size()));
            }
            case "cat" -> {
                if (!args.isEmpty() && !(args.size() == 1 && args.get(0).value().equals("-"))) {
                    return null;
                }
                String text = null;
                for (Redirect in : c.redirects) {
                    if ((in.fd() == null || in.fd() == 0) && in.feedsData() && in.target().literal()) {
                        text = data(in);
                    } else if ((in.fd() == null || in.fd() == 0) && !in.writes()) {
                        return null;
                    }
                }
                return text;
            }
            default -> {
                return null;
            }
        }
    }

    /** printf's output for a format of text, {@code %s}, {@code %%} and {@code \n \t \\}; null for anything else. */
    private static String printf(String format, List<Word> args) {
        StringBuilder out = new StringBuilder();
        int next = 0;
        do {
            boolean took = false;
            for (int i = 0; i < format.length(); i++) {
                char ch = format.charAt(i);
                char d = i + 1 < format.length() ? format.charAt(i + 1) : 0;
                if (ch == '%' && d == 's') {
                    out.append(next < args.size() ? args.get(next++).value() : "");
                    took = true;
                    i++;
                } else if (ch == '%' && d == '%') {
                    out.append('%');
                    i++;
                } else if (ch == '\\' && "nt\\".indexOf(d) >= 0 && d != 0) {
                    out.append(d == 'n' ? '\n' : d == 't' ? '\t' : '\\');
                    i++;
                } else if (ch == '%' || ch == '\\') {
                    return null;
                } else {
                    out.append(ch);
                }
            }
            if (!took) {
                break; // printf reuses its format only while it takes arguments
            }
        } while (next < args.size());
        return out.toString();
    }

    private static final Pattern RULE = Pattern.compile("[^\\s#=$:][^=$:]*:[^=$:]*");

    /**
     * The recipes of a makefile made only of blank lines, comments, rules ({@code target: prerequisites},
     * a recipe after {@code ;} included) and tab-indented recipe lines without {@code $} or a
     * continuation, as the shell commands they are (prefixes {@code @ - +} removed); null for any other
     * makefile (variables, includes, conditionals, expansions), whose recipes cannot be known.
     */
    static String recipes(String makefile) {
        StringBuilder out = new StringBuilder();
        for (String line : makefile.split("\n", -1)) {
            String recipe;
            if (line.isBlank() || line.stripLeading().startsWith("#") && !line.startsWith("\t")) {
                continue;
            }
            if (line.startsWith("\t")) {
                recipe = line.substring(1);
            } else {
                int semicolon = line.indexOf(';');
                String rule = semicolon < 0 ? line : line.substring(0, semicolon);
                if (!RULE.matcher(rule.strip()).matches()) {
                    return null;
                }
                if (semicolon < 0) {
                    continue;
                }
                recipe = line.substring(semicolon + 1);
            }
            recipe = recipe.replaceFirst("^[\\s@+-]+", "");
            if (recipe.indexOf('$') >= 0 || recipe.endsWith("\\")) {
                return null;
            }
            out.append(recipe).append('\n');
        }
        return out.toString();
    }
}
