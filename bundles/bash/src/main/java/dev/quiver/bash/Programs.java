package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The programs whose options and operands Quiver knows, and what each does with its operands: one
 * table read by every judge through {@link CommandModel}. A program that is not here reads every
 * word it is given (the safe assumption for the secret check) and its writes are unknown (its rule
 * judges it).
 */
final class Programs {

    /** What a program does with its operands. */
    enum Layout {
        /** Reads the content of every operand (and of every option value it does not know). */
        READS,
        /** Prints its operands: {@code echo}, {@code printf}. */
        TEXT,
        /** Looks at names and metadata only: {@code ls}, {@code stat}, {@code test}. */
        METADATA,
        /** Creates or changes every operand: {@code touch}, {@code mkdir}, {@code tee}. */
        WRITES,
        /** Removes every operand: {@code rm}, {@code rmdir}, {@code unlink}. */
        DELETES,
        /** A mode or owner, then files it changes: {@code chmod}, {@code chown}. */
        MODE_THEN_WRITES,
        /** Sources read, the last operand (or {@code -t DIR}) written: {@code cp}, {@code ln}, {@code install}. */
        COPY,
        /** As {@link #COPY}, and the sources are gone afterwards: {@code mv}. */
        MOVE,
        /** Overwrites its operands, and removes them with {@code -u}. */
        SHRED,
        /** {@code dd}'s {@code if=} and {@code of=}. */
        DD,
        /** A script, then files read (and written with {@code -i}). */
        SED,
        /** An archive and members, read or written by the mode. */
        TAR,
        /** Sources read and a destination written, emptied of extras with {@code --delete}. */
        RSYNC,
        /** Starting points, then an expression. */
        FIND
    }

    /**
     * One program.
     *
     * @param readValues canonical options whose value is a file the program reads
     * @param writeValues canonical options whose value is a file or folder the program writes
     * @param guarded whether an option changes what the program destroys, so that a computed word
     *     where an option could stand leaves it unjudgeable
     */
    record Program(Getopt options, Layout layout, Set<String> readValues, Set<String> writeValues, boolean guarded) {
    }

    /** A GNU-style program (git's subcommands read their options the same way). */
    static Program program(Layout layout, boolean guarded, String options) {
        return program(Getopt.gnu(options), layout, guarded, Set.of(), Set.of());
    }

    static Program program(Layout layout, boolean guarded, String options, Set<String> reads, Set<String> writes) {
        return program(Getopt.gnu(options), layout, guarded, reads, writes);
    }

    /** A program whose options are read by {@code options} (GNU's getopt_long, git's parse-options, ...). */
    static Program program(Getopt options, Layout layout, boolean guarded, Set<String> reads, Set<String> writes) {
        return new Program(options, layout, reads, writes, guarded);
    }

    private static final String CP_OPTIONS = "a|archive attributes-only b backup=? copy-contents d debug f|force "
            + "i|interactive H l|link L|dereference n|no-clobber P|no-dereference p preserve=? no-preserve= parents "
            + "R|r|recursive reflink=? remove-destination sparse= strip-trailing-slashes s|symbolic-link S|suffix= "
            + "t|target-directory= T|no-target-directory u|update=? v|verbose x|one-file-system Z context=? "
            + "keep-directory-symlink g|progress";
    private static final String OWNER_OPTIONS = "c|changes f|silent|quiet v|verbose dereference h|no-dereference from= "
            + "no-preserve-root preserve-root reference= R|recursive H L P";

    static final Map<String, Program> TABLE = Map.ofEntries(
            Map.entry("rm", program(Layout.DELETES, true, "f|force i I interactive=? one-file-system no-preserve-root "
                    + "preserve-root=? r|R|recursive d|dir v|verbose help version")),
            Map.entry("rmdir", program(Layout.DELETES, false, "ignore-fail-on-non-empty p|parents v|verbose")),
            Map.entry("unlink", program(Layout.DELETES, false, "help version")),
            Map.entry("shred", program(Layout.SHRED, true, "f|force n|iterations= random-source= s|size= u remove=? "
                    + "v|verbose x|exact z|zero", Set.of("--random-source"), Set.of())),
            Map.entry("cp", program(Layout.COPY, true, CP_OPTIONS, Set.of(), Set.of("--target-directory"))),
            Map.entry("install", program(Layout.COPY, true, "b backup=? c C|compare d|directory D g|group= m|mode= "
                    + "o|owner= p|preserve-timestamps s|strip strip-program= S|suffix= t|target-directory= "
                    + "T|no-target-directory v|verbose preserve-context Z context=?", Set.of(), Set.of("--target-directory"))),
            Map.entry("ln", program(Layout.COPY, true, "b backup=? d|F|directory f|force i|interactive L|logical "
                    + "n|no-dereference P|physical r|relative s|symbolic S|suffix= t|target-directory= "
                    + "T|no-target-directory v|verbose", Set.of(), Set.of("--target-directory"))),
            Map.entry("mv", program(Layout.MOVE, true, "b backup=? debug exchange f|force i|interactive n|no-clobber "
                    + "no-copy strip-trailing-slashes S|suffix= t|target-directory= T|no-target-directory u|update=? "
                    + "v|verbose Z context", Set.of(), Set.of("--target-directory"))),
            Map.entry("chmod", program(Layout.MODE_THEN_WRITES, true, "c|changes f|silent|quiet v|verbose "
                    + "no-preserve-root preserve-root reference= R|recursive")),
            Map.entry("chown", program(Layout.MODE_THEN_WRITES, false, OWNER_OPTIONS)),
            Map.entry("chgrp", program(Layout.MODE_THEN_WRITES, false, OWNER_OPTIONS)),
            Map.entry("wipefs", program(Layout.WRITES, false, "a|all b|backup f|force n|no-act o|offset= q|quiet "
                    + "t|types=")),
            Map.entry("touch", program(Layout.WRITES, false, "a c|no-create d|date= f h|no-dereference m r|reference= "
                    + "t= time=")),
            Map.entry("mkdir", program(Layout.WRITES, false, "m|mode= p|parents v|verbose Z context=?")),
            Map.entry("mkfifo", program(Layout.WRITES, false, "m|mode= Z context=?")),
            Map.entry("truncate", program(Layout.WRITES, true, "c|no-create o|io-blocks r|reference= s|size=")),
            Map.entry("tee", program(Layout.WRITES, false, "a|append i|ignore-interrupts p output-error=?")),
            Map.entry("dd", program(Layout.DD, true, "help version")),
            Map.entry("sed", program(Layout.SED, true, "n|quiet|silent debug e|expression= f|file= follow-symlinks "
                    + "i|in-place=? l|line-length= posix E|r|regexp-extended s|separate sandbox u|unbuffered z|null-data",
                    Set.of("--file"), Set.of())),
            Map.entry("tar", program(Layout.TAR, true, "A|catenate|concatenate c|create d|diff|compare delete r|append "
                    + "t|list u|update x|extract|get C|directory= f|file= z|gzip|gunzip j|bzip2 J|xz Z|compress "
                    + "a|auto-compress I|use-compress-program= v|verbose k|keep-old-files overwrite remove-files "
                    + "T|files-from= X|exclude-from= exclude= strip-components= P|absolute-names h|dereference "
                    + "p|preserve-permissions same-owner no-same-owner o m|touch O|to-stdout W|verify "
                    + "transform= xform= b|blocking-factor= one-file-system null wildcards",
                    Set.of("--files-from", "--exclude-from"), Set.of())),
            Map.entry("rsync", program(Layout.RSYNC, true, "a|archive r|recursive v|verbose q|quiet n|dry-run "
                    + "del delete delete-before delete-during delete-delay delete-after delete-excluded "
                    + "remove-source-files force max-delete= e|rsh= exclude= include= filter= f= exclude-from= "
                    + "include-from= files-from= z|compress P progress partial partial-dir= b|backup backup-dir= "
                    + "suffix= link-dest= compare-dest= copy-dest= u|update l|links L|copy-links H|hard-links "
                    + "p|perms o|owner g|group t|times D devices specials c|checksum i|itemize-changes "
                    + "h|human-readable R|relative inplace append existing ignore-existing chmod= chown= "
                    + "stats x|one-file-system", Set.of("--exclude-from", "--include-from", "--files-from"), Set.of())),
            Map.entry("find", program(Layout.FIND, true, "")),
            Map.entry("echo", program(Layout.TEXT, false, "")),
            Map.entry("printf", program(Layout.TEXT, false, "v=")),
            Map.entry("ls", program(Layout.METADATA, false, "I|ignore= hide= T|tabsize= w|width= block-size= "
                    + "color=? format= sort= time= time-style= quoting-style= indicator-style=")),
            Map.entry("stat", program(Layout.METADATA, false, "c|format= printf= t|terse L|dereference f|file-system")),
            Map.entry("du", program(Layout.METADATA, false, "d|max-depth= B|block-size= t|threshold= exclude= "
                    + "X|exclude-from= time=? time-style= files0-from=")),
            Map.entry("test", program(Layout.METADATA, false, "")),
            Map.entry("[", program(Layout.METADATA, false, "")),
            Map.entry("realpath", program(Layout.METADATA, false, "relative-to= relative-base=")),
            Map.entry("readlink", program(Layout.METADATA, false, "")),
            Map.entry("basename", program(Layout.METADATA, false, "s|suffix=")),
            Map.entry("dirname", program(Layout.METADATA, false, "")),
            Map.entry("lsattr", program(Layout.METADATA, false, "")),
            Map.entry("getfacl", program(Layout.METADATA, false, "")),
            Map.entry("curl", program(Layout.READS, false, "o|output= O|remote-name output-dir=", Set.of(),
                    Set.of("--output", "--output-dir"))),
            Map.entry("wget", program(Layout.READS, false, "O|output-document= P|directory-prefix= o|output-file= "
                    + "a|append-output=", Set.of(), Set.of("--output-document", "--directory-prefix", "--output-file",
                    "--append-output"))));

    /** Programs that run code given to them: a script file, a string, or standard input. */
    static final Pattern INTERPRETER = Pattern.compile(
            "python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|php[0-9.]*|lua[0-9.]*|deno|bun");

    /** Where an interpreter or shell takes its code from. */
    enum Code { NONE, SCRIPT, INLINE, STDIN }

    private Programs() {
    }

    /**
     * Where {@code base} (a shell, an interpreter, awk or sed) takes its code from: a script file, a
     * string on the command line ({@code python3 -c}, {@code node -e}, awk's program), or standard input.
     */
    static Code code(String base, List<Word> args) {
        if (base.equals("awk") || base.equals("gawk") || base.equals("mawk") || base.equals("nawk") || base.equals("sed")) {
            for (Word a : args) {
                if (a.literal() && (a.value().equals("-f") || a.value().startsWith("--file"))) {
                    return Code.SCRIPT;
                }
            }
            return Code.INLINE;
        }
        boolean shell = Expander.SHELLS.contains(base);
        if (!shell && !INTERPRETER.matcher(base).matches()) {
            return Code.NONE;
        }
        boolean python = base.startsWith("python") || base.startsWith("pypy");
        String inline = shell ? "c" : base.startsWith("perl") ? "eE" : python ? "c" : base.startsWith("ruby") ? "e"
                : base.startsWith("php") ? "r" : "ep";
        String withValue = shell ? "oO" : python ? "WX" : "rI";
        for (int k = 0; k < args.size(); k++) {
            Word a = args.get(k);
            String v = a.value();
            if (!a.literal()) {
                continue;
            }
            if (v.equals("-") || v.equals("/dev/stdin") || v.equals("/proc/self/fd/0")) {
                return Code.STDIN;
            }
            if (v.equals("--")) {
                return k + 1 >= args.size() || args.get(k + 1).value().equals("-") ? Code.STDIN : Code.SCRIPT;
            }
            if (Set.of("--version", "-V", "--help", "-h").contains(v)) {
                return Code.NONE; // it prints and exits before any code
            }
            if (v.startsWith("--")) {
                String name = v.split("=")[0];
                if (Set.of("--eval", "--print", "--command").contains(name)) {
                    return Code.INLINE;
                }
                if (Set.of("--module", "--run").contains(name)) {
                    return Code.SCRIPT;
                }
                continue;
            }
            if ((v.startsWith("-") || (shell && v.startsWith("+"))) && v.length() > 1) {
                if (shell && v.charAt(0) == '-' && v.indexOf('s') > 0) {
                    return Code.STDIN;
                }
                for (int i = 1; i < v.length(); i++) {
                    if (inline.indexOf(v.charAt(i)) >= 0) {
                        return Code.INLINE;
                    }
                    if (python && v.charAt(i) == 'm') {
                        return Code.SCRIPT; // a module
                    }
                    if (withValue.indexOf(v.charAt(i)) >= 0) {
                        if (i == v.length() - 1) {
                            k++;
                        }
                        break;
                    }
                }
                continue;
            }
            return Code.SCRIPT;
        }
        return Code.STDIN;
    }

    /** Fills in what a known program (not git, see {@link Git}) reads, writes and deletes. */
    static void describe(CommandModel.Builder b, Program p, List<Word> args) {
        if (p.layout() == Layout.FIND) {
            find(b, args); // an expression, not options
            return;
        }
        List<Word> words = args;
        if (p.layout() == Layout.TAR && !args.isEmpty() && args.get(0).literal() && args.get(0).value().matches("[A-Za-z]+")) {
            // tar's old style: the first word is a cluster of options without its dash (tar czf out.tgz src)
            words = new ArrayList<>(args);
            words.set(0, Word.literal("-" + args.get(0).value()));
        }
        List<Word> mode = new ArrayList<>();
        if (p.layout() == Layout.MODE_THEN_WRITES) {
            // chmod reads -w, -x, -rwx as a mode, not as options
            words = new ArrayList<>(words);
            for (int i = 0; i < words.size(); i++) {
                Word w = words.get(i);
                if (w.literal() && w.value().matches("-[rwxXst]+")) {
                    mode.add(w);
                    words.remove(i--);
                }
            }
        }
        Getopt.Read read = p.options().read(words, 0);
        b.options(read.options());
        List<Word> operands = new ArrayList<>(mode);
        operands.addAll(read.operands());
        b.operands(operands);
        if (p.guarded()) {
            b.computedOptions(read.computed(), read.operands().size());
        }
        for (CommandModel.Option o : read.options()) {
            if (o.value() == null) {
                continue;
            }
            if (p.writeValues().contains(o.name())) {
                b.writes(o.value());
            } else if (p.readValues().contains(o.name()) || p.layout() == Layout.READS) {
                b.reads(o.value());
            }
        }
        List<Word> ops = read.operands();
        switch (p.layout()) {
            case READS -> ops.forEach(b::reads);
            case TEXT, METADATA, FIND -> {
                // nothing read
            }
            case WRITES -> ops.forEach(b::writes);
            case DELETES -> {
                b.destroysOperands = true;
                ops.forEach(b::deletes);
            }
            case MODE_THEN_WRITES -> {
                boolean reference = b.has("--reference");
                for (int i = mode.isEmpty() && !reference ? 1 : 0; i < ops.size(); i++) {
                    b.writes(ops.get(i));
                }
            }
            case COPY, MOVE -> {
                Word target = b.value("--target-directory");
                int sources = target != null || ops.size() < 2 ? ops.size() : ops.size() - 1;
                for (int i = 0; i < sources; i++) {
                    b.reads(ops.get(i));
                    if (p.layout() == Layout.MOVE) {
                        b.deletes(ops.get(i));
                    }
                }
                if (target == null && ops.size() >= 2) {
                    b.writes(ops.get(ops.size() - 1));
                }
            }
            case SHRED -> {
                b.destroysOperands = true; // overwritten beyond recovery, removed too with -u
                ops.forEach(b::writes);
                if (b.has("-u") || b.has("--remove")) {
                    ops.forEach(b::deletes);
                }
            }
            case DD -> {
                for (Word w : ops) {
                    String v = w.value();
                    if (v.startsWith("if=")) {
                        b.reads(new Word(v.substring(3), w.literal()));
                    } else if (v.startsWith("of=")) {
                        b.writes(new Word(v.substring(3), w.literal()));
                    }
                }
            }
            case SED -> {
                boolean script = b.has("--expression") || b.has("--file");
                for (int i = script ? 0 : 1; i < ops.size(); i++) {
                    b.reads(ops.get(i));
                    if (b.has("--in-place")) {
                        b.writes(ops.get(i));
                    }
                }
            }
            case TAR -> tar(b, ops);
            case RSYNC -> rsync(b, ops);
        }
    }

    private static void tar(CommandModel.Builder b, List<Word> ops) {
        boolean creates = b.has("--create") || b.has("--append") || b.has("--update") || b.has("--catenate");
        Word archive = b.value("--file");
        if (archive != null) {
            if (creates) {
                b.writes(archive);
            } else {
                b.reads(archive);
            }
        }
        if (creates) {
            ops.forEach(b::reads);
            if (b.has("--remove-files")) {
                b.destroysOperands = true;
                ops.forEach(b::deletes);
            }
        } else if (b.has("--extract")) {
            Word into = b.value("--directory");
            b.writes(into != null ? into : Word.literal("."));
        }
    }

    private static void rsync(CommandModel.Builder b, List<Word> ops) {
        b.destroysOperands = b.has("--remove-source-files");
        if (ops.size() < 2) {
            return;
        }
        Word destination = ops.get(ops.size() - 1);
        for (Word source : ops.subList(0, ops.size() - 1)) {
            if (!remote(source)) {
                b.reads(source);
                if (b.has("--remove-source-files")) {
                    b.deletes(source);
                }
            }
        }
        if (!remote(destination)) {
            b.writes(destination);
            for (CommandModel.Option o : b.options()) {
                if (o.name().startsWith("--del")) {
                    // extras in the destination are removed: a deletion of everything it holds
                    b.deletes(destination);
                    break;
                }
            }
        }
    }

    /** {@code host:path} and {@code rsync://...}: nothing on this machine. */
    private static boolean remote(Word w) {
        int colon = w.value().indexOf(':');
        int slash = w.value().indexOf('/');
        return w.literal() && colon > 0 && (slash < 0 || colon < slash);
    }

    /** find's primaries that take a value (two for {@code -fprintf}); the others take none. */
    private static final Map<String, Integer> FIND_VALUES = Map.ofEntries(
            Map.entry("-name", 1), Map.entry("-iname", 1), Map.entry("-path", 1), Map.entry("-ipath", 1),
            Map.entry("-wholename", 1), Map.entry("-iwholename", 1), Map.entry("-regex", 1), Map.entry("-iregex", 1),
            Map.entry("-regextype", 1), Map.entry("-type", 1), Map.entry("-xtype", 1), Map.entry("-size", 1),
            Map.entry("-perm", 1), Map.entry("-user", 1), Map.entry("-group", 1), Map.entry("-uid", 1),
            Map.entry("-gid", 1), Map.entry("-mtime", 1), Map.entry("-atime", 1), Map.entry("-ctime", 1),
            Map.entry("-mmin", 1), Map.entry("-amin", 1), Map.entry("-cmin", 1), Map.entry("-newer", 1),
            Map.entry("-anewer", 1), Map.entry("-cnewer", 1), Map.entry("-maxdepth", 1), Map.entry("-mindepth", 1),
            Map.entry("-printf", 1), Map.entry("-fprint", 1), Map.entry("-fprint0", 1), Map.entry("-fls", 1),
            Map.entry("-fprintf", 2), Map.entry("-links", 1), Map.entry("-inum", 1), Map.entry("-samefile", 1),
            Map.entry("-lname", 1), Map.entry("-ilname", 1), Map.entry("-context", 1), Map.entry("-used", 1),
            Map.entry("-files0-from", 1));

    private static final Set<String> FIND_WRITES = Set.of("-fprint", "-fprint0", "-fls", "-fprintf");
    /** find's actions that run a command of their own. */
    static final Set<String> FIND_ACTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir");

    /**
     * find: {@code -H}/{@code -L}/{@code -P} (and {@code -D}, {@code -O}) first, then starting points up to
     * the first word of the expression, then the expression. Its options are the flags before the
     * starting points and the expression's primaries; its operands the starting points, which
     * {@code -delete} removes.
     */
    private static void find(CommandModel.Builder b, List<Word> args) {
        List<CommandModel.Option> options = new ArrayList<>();
        List<Word> roots = new ArrayList<>();
        List<Word> computed = new ArrayList<>();
        int j = 0;
        while (j < args.size() && args.get(j).literal() && args.get(j).value().matches("-[HLP]+|-D|-O[0-9]*")) {
            String v = args.get(j).value();
            for (char c : v.substring(1).toCharArray()) {
                if ("HLP".indexOf(c) >= 0) {
                    options.add(new CommandModel.Option("-" + c, null));
                }
            }
            j += v.equals("-D") ? 2 : 1;
        }
        for (; j < args.size(); j++) {
            Word a = args.get(j);
            if (a.literal() && (a.value().startsWith("-") || a.value().equals("(") || a.value().equals("!")
                    || a.value().equals(","))) {
                break;
            }
            if (!Getopt.operand(a)) {
                computed.add(a); // a starting point, or the expression's first word
            }
            roots.add(a);
        }
        for (; j < args.size(); j++) {
            Word a = args.get(j);
            String v = a.value();
            if (!a.literal()) {
                computed.add(a); // where a primary stands: it could be -delete
                continue;
            }
            if (FIND_ACTIONS.contains(v)) {
                options.add(new CommandModel.Option(v, null));
                while (j + 1 < args.size() && !(args.get(j + 1).literal()
                        && (args.get(j + 1).value().equals(";") || args.get(j + 1).value().equals("+")))) {
                    j++; // the command it runs is a simple command of its own (see Expander)
                }
                j++;
                continue;
            }
            Integer values = FIND_VALUES.get(v);
            if (values != null) {
                Word value = j + 1 < args.size() ? args.get(j + 1) : null;
                options.add(new CommandModel.Option(v, value));
                if (value != null && FIND_WRITES.contains(v)) {
                    b.writes(value);
                } else if (value != null && v.equals("-files0-from")) {
                    b.reads(value);
                }
                j += values;
            } else if (v.startsWith("-")) {
                options.add(new CommandModel.Option(v, null));
            }
        }
        b.options(options);
        b.operands(roots);
        if (!computed.isEmpty()) {
            b.unjudgeable("find's expression holds a computed word (" + ShellText.abbreviate(computed.get(0).value(), 40)
                    + "), which could be -delete or -exec");
        }
        if (b.has("-delete")) {
            // with no starting point, find starts (and deletes) in the current folder
            (roots.isEmpty() ? List.of(Word.literal(".")) : roots).forEach(b::deletes);
        }
    }
}
