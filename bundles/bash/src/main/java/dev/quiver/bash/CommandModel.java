package dev.quiver.bash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What one simple command does, decided once and asked by every judge — the guard, the secret check,
 * the rules and the check for changes outside the workspace — so that none of them reads a command
 * differently from another:
 *
 * <ul>
 *   <li>the <b>program</b>, its command word resolved ({@code /usr/bin/git} and {@code \git} are
 *       {@code git}), and for git the <b>subcommand</b> after git's own options and aliases;
 *   <li>its <b>options</b> as the program reads them (GNU prefixes, clusters, {@code --opt=value},
 *       {@code --} ending them, options after operands), each by its canonical name ({@code rm --rec}
 *       has {@code --recursive}), and its <b>operands</b>;
 *   <li>the files whose content it <b>reads</b>, the files it <b>writes</b> (every writing redirection
 *       included: {@code >}, {@code >>}, {@code >|}, {@code &>}, {@code &>>}, {@code >&} to a file,
 *       {@code <>}), and what it <b>deletes</b>;
 *   <li>whether it runs <b>privileged</b>, as another user (through {@code sudo}, {@code doas}, {@code su},
 *       {@code runuser}, {@code pkexec}) and whether it runs <b>code</b> given inline or on standard input;
 *   <li>the shell code it hands on (a git alias starting with {@code !}, {@code git rebase -x});
 *   <li>why it cannot be judged, if it cannot ({@link #unjudgeable()}): a computed word where an
 *       option of a command that destroys could stand, a git setting that can define an alias.
 * </ul>
 *
 * <p>{@link #text()} is the command as rules match it: the resolved command word, git's subcommand
 * without git's own options, long options by their full names. {@link #spellings()} adds the other
 * spellings a deny or ask rule must also catch.
 */
public final class CommandModel {

    /**
     * One option as the program reads it.
     *
     * @param name the canonical name: the first long name of the option when it has one
     *     ({@code --recursive} for {@code -r}, {@code -R} and {@code --rec}), else {@code -x}
     * @param value its value, or null
     */
    public record Option(String name, Word value) {
    }

    /** Programs that run their command as another user. */
    static final Set<String> PRIVILEGED = Set.of("sudo", "doas", "su", "runuser", "pkexec", "run0");

    /** Devices a write to changes nothing: not counted as writes. */
    static final Set<String> HARMLESS = Set.of("/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr",
            "/dev/tty", "/dev/fd/1", "/dev/fd/2");

    /** Folders whose programs are the ones a bare name finds: {@code /usr/bin/git} is matched as {@code git}. */
    private static final Set<String> SYSTEM_FOLDERS = Set.of("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
            "/usr/local/sbin");

    private final SimpleCommand command;
    private final String program;
    private final String subcommand;
    private final List<Option> options;
    private final List<Word> operands;
    private final List<Word> reads;
    private final List<Word> writes;
    private final List<Word> deletes;
    private final boolean destroysOperands;
    private final List<Word> shellCode;
    private final String privilege;
    private final Programs.Code code;
    private List<String> unjudgeable;
    private final String text;
    private final List<String> spellings;
    /** The folder it works in relative to the line's ({@code git -C x}); "" for the same; null when computed. */
    private final String folder;
    /** The folders the line may be in when it runs (after the {@code cd}s before it), empty when unknown; null outside {@link #line}. */
    private List<Path> lineFolders;
    /**
     * {@link #folders}' answer for {@link #foldersOf} (its callers ask it again and again, and each
     * asking resolves {@code git -C} with file system calls); {@link #foldersKnown} tells a cached null
     * from none computed.
     */
    private List<Path> folders;
    private ShellWorkspace foldersOf;
    private boolean foldersKnown;

    private CommandModel(Builder b) {
        this.command = b.command;
        this.program = b.program;
        this.subcommand = b.subcommand;
        this.options = List.copyOf(b.options);
        this.operands = List.copyOf(b.operands);
        this.reads = List.copyOf(b.reads);
        this.writes = List.copyOf(b.writes);
        this.deletes = List.copyOf(b.deletes);
        this.destroysOperands = b.destroysOperands;
        this.shellCode = List.copyOf(b.shellCode);
        this.privilege = b.privilege;
        this.code = b.code;
        this.unjudgeable = List.copyOf(b.unjudgeable);
        this.text = b.text;
        this.spellings = List.copyOf(b.spellings);
        this.folder = b.folder;
    }

    /** Most folders a line's {@code cd}s are followed into before the folder counts as unknown. */
    static final int MAX_FOLDERS = 16;

    /**
     * The models of every simple command of a line, in order, each knowing the folders it may run in:
     * the workspace root, and where each literal {@code cd} or {@code pushd} before it may have led (any
     * of them may have run or not, so every combination in order counts). A {@code cd} to a computed
     * folder, {@code cd -} or {@code popd} makes the folder unknown for the rest of the line.
     *
     * @param where the workspace; null reads only the line itself, every folder unknown
     */
    public static List<CommandModel> line(ParsedCommand parsed, ShellWorkspace where) {
        return line(parsed, where, where == null ? null : List.of(where.root()));
    }

    /** As {@link #line(ParsedCommand, ShellWorkspace)} for a line that starts in one of {@code folders} (null: unknown). */
    static List<CommandModel> line(ParsedCommand parsed, ShellWorkspace where, List<Path> start) {
        List<CommandModel> models = new ArrayList<>();
        List<Path> folders = where == null ? null : start;
        // the logical folder (bash's $PWD, links kept) of each physical one, for cd's textual ..
        java.util.Map<Path, Path> logical = new java.util.LinkedHashMap<>();
        for (Path f : folders == null ? List.<Path>of() : folders) {
            logical.put(f, f);
        }
        boolean physical = false;
        String globOptions = null;
        boolean expandAliases = false;
        Set<String> aliases = new LinkedHashSet<>();
        List<String> statements = new ArrayList<>();
        if (parsed.commands() instanceof Structure.CommandList list) {
            for (Word w : list.structure.assignments) {
                String why = environment(w, where);
                if (why != null && !statements.contains(why)) {
                    statements.add(why);
                }
            }
        }
        Set<String> written = new LinkedHashSet<>();
        for (SimpleCommand command : parsed.commands()) {
            CommandModel model = of(command, where);
            model.lineFolders = folders == null ? List.of() : folders; // (before any folders() call caches)
            model.also(statements);
            models.add(model);
            if (globOptions != null) {
                for (Word w : model.writes.isEmpty() ? model.deletes : concat(model.deletes, model.writes)) {
                    if (w.literal() && PathResolver.isGlob(w.value())) {
                        model.also(List.of("the glob " + ShellText.abbreviate(w.value(), 40) + " after " + globOptions
                                + " changed how globs match"));
                        break;
                    }
                }
            }
            if (expandAliases && (aliases.contains(model.program) || aliases.contains(""))) {
                model.also(List.of("the alias " + (aliases.contains(model.program) ? model.program : "computed")
                        + " defined in the line runs code that is not read here"));
            }
            if (model.program.equals("alias")) {
                for (Word a : model.command.args()) {
                    int eq = a.value().indexOf('=');
                    aliases.add(!a.literal() ? "" : eq > 0 ? a.value().substring(0, eq) : "");
                }
            }
            if (model.program.equals("shopt") && model.command.args().stream().anyMatch(a -> !a.literal()
                    || a.value().equals("expand_aliases")) && model.command.args().stream().anyMatch(a -> !a.literal()
                    || a.value().equals("-s"))) {
                expandAliases = true;
            }
            if (model.program.equals("shopt") && model.command.args().stream().anyMatch(a -> a.value().equals("-s")
                    || !a.literal())) {
                for (Word a : model.command.args()) {
                    if (!a.literal() || GLOB_OPTIONS.contains(a.value())) {
                        globOptions = "`shopt -s " + ShellText.abbreviate(a.value(), 20) + "`";
                    }
                }
            }
            for (Word run : model.runsFiles()) {
                if (!written.isEmpty() && run.literal() && wrote(written, run, folders)) {
                    model.also(List.of("it runs " + ShellText.abbreviate(run.value(), 40) + ", which the line writes "
                            + "before, with code that cannot be read here"));
                }
            }
            for (Word w : model.writes) {
                if (w.literal()) {
                    written.addAll(places(w, folders));
                    if (Set.of("cp", "mv", "install", "ln", "rsync").contains(model.program)) {
                        // a folder it copies into: what it copies lands below
                        places(w, folders).forEach(p -> written.add(p + "/*"));
                    }
                }
            }
            if (model.program.equals("set")) {
                physical = physicalAfter(model.command.args(), physical);
            }
            if (folders != null && Set.of("cd", "pushd", "popd").contains(model.program)) {
                logical = changeFolder(model, logical, where, physical);
                folders = logical == null ? null : List.copyOf(new LinkedHashSet<>(logical.values()));
            }
        }
        return models;
    }

    /**
     * The places a literal path may name from the line's folders, as text: each folder joined with it and
     * {@code ..} taken textually ({@code "/?"} before it when the folders are unknown).
     */
    private static Set<String> places(Word w, List<Path> folders) {
        Set<String> out = new LinkedHashSet<>();
        String v = w.value();
        try {
            for (Path f : folders == null || folders.isEmpty() || v.startsWith("/") ? List.of(Path.of("/?")) : folders) {
                Path p = v.startsWith("/") ? Path.of(v).normalize() : f.resolve(v).normalize();
                out.add(p.toString());
            }
        } catch (RuntimeException notAPath) {
            // no path: names nothing written
        }
        return out;
    }

    /**
     * Whether a file a command runs was written before in the line: the same place, or one in a folder
     * a copy went into ({@code cp a.sh build/}); where the folder is unknown, a file of the same name.
     */
    private static boolean wrote(Set<String> written, Word run, List<Path> folders) {
        for (String place : places(run, folders)) {
            int slash = place.lastIndexOf('/');
            if (written.contains(place) || slash > 0 && written.contains(place.substring(0, slash) + "/*")) {
                return true;
            }
            if (folders == null || place.startsWith("/?/")) {
                String name = place.substring(slash + 1);
                if (written.stream().anyMatch(w -> w.endsWith("/" + name))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Interpreters whose first operand is the script they run. */
    private static final Set<String> INTERPRETERS = Set.of("python", "python2", "python3", "node", "perl", "ruby", "php",
            "lua", "tclsh", "deno", "bun", "Rscript", "julia", "groovy", "jshell");

    /**
     * The files it runs as code: the command word when it is a path ({@code ./build/x.sh}), a shell's
     * script or input redirection, an interpreter's script, what {@code source} or {@code .} read, a
     * makefile given with {@code make -f}.
     */
    List<Word> runsFiles() {
        List<Word> out = new ArrayList<>();
        Word name = command.name();
        List<Word> args = command.args();
        if (name.literal() && name.value().contains("/")) {
            out.add(name);
        }
        if (Expander.SHELLS.contains(program)) {
            List<Word> words = new ArrayList<>();
            words.add(name);
            words.addAll(args);
            int script = Expander.invocation(words).script();
            if (script > 0) {
                out.add(words.get(script));
            }
            for (Redirect r : command.redirects()) {
                if (r.operator().equals("<")) {
                    out.add(r.target());
                }
            }
        } else if (INTERPRETERS.contains(program) || program.matches("python3\\.[0-9]+")
                || program.equals("source") || program.equals(".")) {
            args.stream().filter(a -> !a.value().startsWith("-")).findFirst().ifPresent(out::add);
        } else if (program.equals("make") || program.equals("gmake")) {
            for (int k = 0; k < args.size(); k++) {
                String v = args.get(k).value();
                if ((v.equals("-f") || v.matches("--(file|makefile)")) && k + 1 < args.size()) {
                    out.add(args.get(k + 1));
                } else if (v.matches("-f.+")) {
                    out.add(new Word(v.substring(2), args.get(k).literal()));
                } else if (v.matches("--(file|makefile)=.*")) {
                    out.add(new Word(v.substring(v.indexOf('=') + 1), args.get(k).literal()));
                }
            }
        }
        return out;
    }

    /** The shell options that change what a glob matches. */
    private static final Set<String> GLOB_OPTIONS = Set.of("nocaseglob", "dotglob", "extglob", "globstar", "nullglob",
            "failglob", "nocasematch", "globasciiranges", "globskipdots");

    private static List<Word> concat(List<Word> a, List<Word> b) {
        List<Word> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Adds reasons the line gives (an assignment of its own, an earlier command) to why it cannot be judged. */
    void also(List<String> reasons) {
        if (!reasons.isEmpty()) {
            List<String> all = new ArrayList<>(unjudgeable);
            reasons.stream().filter(r -> !all.contains(r)).forEach(all::add);
            unjudgeable = List.copyOf(all);
        }
    }

    /**
     * Variables that make a program run other code, or read another repository, configuration or
     * library than the line shows: set for a command, passed on by {@code env} or set earlier in the
     * line, they make what runs unknowable. Every {@code GIT_*} variable counts but {@link #INERT_GIT}.
     */
    static final Set<String> ENVIRONMENT = Set.of("EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE",
            "BROWSER", "SHELL", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
            "DYLD_LIBRARY_PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "CDPATH",
            "GLOBIGNORE", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_OPTIONS", "NODE_PATH",
            "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
            "JDK_JAVA_OPTIONS", "MAKEFILES", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "SSH_ASKPASS", "GCONV_PATH", "PATH");

    /** Prefixes of such variables. */
    private static final List<String> ENVIRONMENT_PREFIXES = List.of("GIT_", "BASH_FUNC_", "npm_config_", "NPM_CONFIG_");

    /** git's variables that change no program, repository or configuration it reads. */
    static final Set<String> INERT_GIT = Set.of("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
            "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT",
            "GIT_MERGE_AUTOEDIT", "GIT_OPTIONAL_LOCKS", "GIT_FLUSH", "GIT_PROGRESS_DELAY", "GIT_LFS_SKIP_SMUDGE",
            "GIT_CURL_VERBOSE", "GIT_REDACT_COOKIES", "GIT_CONFIG_NOSYSTEM", "GIT_ADVICE", "GIT_TRACE",
            "GIT_TRACE2", "GIT_TRACE_PERFORMANCE", "GIT_TRACE_SETUP", "GIT_TRACE_PACKET", "GIT_TRACE_CURL");

    /** Values of an editor or pager variable that run nothing else: {@code GIT_EDITOR=true}, {@code PAGER=cat}. */
    private static final Set<String> HARMLESS_PROGRAMS = Set.of("", "cat", "less", "less -R", "less -FRX", "more", "true",
            ":");

    private static final Set<String> PROGRAM_VARIABLES = Set.of("EDITOR", "VISUAL", "PAGER", "MANPAGER", "GIT_PAGER",
            "GIT_EDITOR", "GIT_SEQUENCE_EDITOR");

    /**
     * Why an assignment ({@code NAME=value}) makes what runs unknowable, or null: a variable of
     * {@link #ENVIRONMENT}, an editor or pager set to more than {@link #HARMLESS_PROGRAMS}, a {@code PATH}
     * with a folder that is relative, empty, computed or in the workspace (its command words may be the
     * workspace's files).
     */
    static String environment(Word assignment, ShellWorkspace where) {
        String text = assignment.value();
        int eq = text.indexOf('=');
        if (eq <= 0) {
            return null;
        }
        String name = text.substring(0, eq);
        if (name.endsWith("+")) {
            name = name.substring(0, name.length() - 1);
        }
        String value = text.substring(eq + 1);
        boolean listed = ENVIRONMENT.contains(name) || ENVIRONMENT_PREFIXES.stream().anyMatch(name::startsWith);
        if (!listed || INERT_GIT.contains(name) || name.startsWith("GIT_TRACE")) {
            return null;
        }
        if (PROGRAM_VARIABLES.contains(name) && assignment.literal() && HARMLESS_PROGRAMS.contains(value.strip())) {
            return null;
        }
        if (name.equals("PATH") && !pathReachesWorkspace(value, assignment.literal(), where)) {
            return null;
        }
        return "the variable " + name + " is set (" + ShellText.abbreviate(text, 40) + "), which changes what "
                + "programs run or which repository, configuration or library they read";
    }

    /** Whether a {@code PATH} value has a folder that is empty, relative, computed or inside the workspace. */
    private static boolean pathReachesWorkspace(String value, boolean literal, ShellWorkspace where) {
        String v = literal ? value : value.replace("\"", "");
        for (String entry : v.split(":", -1)) {
            if (!literal && (entry.equals("$PATH") || entry.equals("${PATH}"))) {
                continue;
            }
            String e = entry;
            if (!literal && (e.startsWith("$HOME/") || e.startsWith("${HOME}/")) || e.startsWith("~/")) {
                if (where == null || where.home().isEmpty()) {
                    return true;
                }
                e = where.home().get() + e.substring(e.indexOf('/'));
            }
            if (e.isEmpty() || !e.startsWith("/") || (!literal && (e.contains("$") || e.contains("`")))) {
                return true;
            }
            try {
                if (where != null && Path.of(e).normalize().startsWith(where.root())) {
                    return true;
                }
            } catch (RuntimeException notAPath) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code set} leaves the shell resolving {@code cd}'s {@code ..} physically ({@code set -P}, {@code set -o physical}). */
    private static boolean physicalAfter(List<Word> args, boolean physical) {
        for (int k = 0; k < args.size(); k++) {
            String v = args.get(k).value();
            if ((v.equals("-o") || v.equals("+o")) && k + 1 < args.size() && args.get(k + 1).value().equals("physical")) {
                physical = v.startsWith("-");
            } else if (v.matches("[-+][a-zA-Z]*P[a-zA-Z]*")) {
                physical = v.startsWith("-");
            }
        }
        return physical;
    }

    /**
     * Where a {@code cd} or {@code pushd} may lead from each folder, as bash goes: logically by default,
     * {@code ..} taken off the folder's logical path as text before links are followed
     * ({@code cd build/lnk/..} is {@code build}, wherever {@code lnk} leads), and physically with {@code -P}
     * or after {@code set -P} (and, where the two differ, both count, as bash falls back to the physical
     * path when the logical one fails). Keys are logical folders, values where they lead; null when unknown.
     */
    private static java.util.Map<Path, Path> changeFolder(CommandModel cd, java.util.Map<Path, Path> folders,
            ShellWorkspace where, boolean physical) {
        List<Word> to = new ArrayList<>();
        for (Word w : cd.command.args()) {
            if (w.literal() && w.value().matches("-[LPe@]+|--")) {
                String v = w.value();
                int p = v.lastIndexOf('P');
                int l = v.lastIndexOf('L');
                physical = p >= 0 || l >= 0 ? p > l : physical;
            } else {
                to.add(w);
            }
        }
        String target;
        boolean swaps = cd.program.equals("pushd") && (to.isEmpty() || to.get(0).value().matches("[+-][0-9]+"));
        if (cd.program.equals("popd") || swaps
                || (!to.isEmpty() && (!to.get(0).literal() || to.get(0).value().equals("-")))) {
            return null;
        } else if (to.isEmpty()) {
            if (where.home().isEmpty()) {
                return null;
            }
            target = where.home().get().toString();
        } else {
            target = to.get(0).value();
        }
        java.util.Map<Path, Path> next = new java.util.LinkedHashMap<>(folders);
        for (java.util.Map.Entry<Path, Path> from : folders.entrySet()) {
            PathResolver.Resolution r = PathResolver.resolve(target, from.getValue(), where.home(), true);
            boolean known = r.known() && r.targets().size() == 1;
            if (!known && physical) {
                return null;
            }
            Path physicalTarget = known ? r.targets().get(0).path() : null;
            if (!physical) {
                String text = target;
                if (text.startsWith("~")) {
                    int slash = text.indexOf('/');
                    if (slash != 1 && text.length() > 1 || where.home().isEmpty()) {
                        return null;
                    }
                    text = where.home().get() + (slash < 0 ? "" : text.substring(slash));
                }
                Path logicalTarget;
                try {
                    logicalTarget = (text.startsWith("/") ? Path.of(text) : from.getKey().resolve(text)).normalize();
                } catch (RuntimeException notAPath) {
                    return null;
                }
                PathResolver.Resolution l = PathResolver.resolve(logicalTarget.toString(), Path.of("/"), where.home(), true);
                if (!l.known() || l.targets().size() != 1) {
                    return null;
                }
                next.put(logicalTarget, l.targets().get(0).path());
            }
            if (physicalTarget != null) {
                // (a physical path that cannot be known, a .. after a folder that does not exist, fails)
                next.putIfAbsent(physicalTarget, physicalTarget);
            }
        }
        return next.size() > MAX_FOLDERS ? null : next;
    }

    /** The folders it may run in ({@code git -C} taken), or null when one of them cannot be known. */
    List<Path> folders(ShellWorkspace where) {
        if (!foldersKnown || foldersOf != where) {
            folders = resolveFolders(where);
            foldersOf = where;
            foldersKnown = true;
        }
        return folders;
    }

    private List<Path> resolveFolders(ShellWorkspace where) {
        List<Path> line = lineFolders != null ? lineFolders : where == null ? List.of() : List.of(where.root());
        if (line.isEmpty() || folder == null) {
            return null;
        }
        if (folder.isEmpty()) {
            return line;
        }
        List<Path> out = new ArrayList<>();
        for (Path f : line) {
            // git -C follows links like cd
            PathResolver.Resolution r = PathResolver.resolve(folder, f, where.home(), true);
            if (!r.known() || r.targets().size() != 1) {
                return null;
            }
            out.add(r.targets().get(0).path());
        }
        return out;
    }

    /**
     * The model of one simple command.
     *
     * @param where the workspace the line runs in (for git's aliases); null reads only the line itself
     */
    public static CommandModel of(SimpleCommand command, ShellWorkspace where) {
        Builder b = new Builder(command);
        List<Word> args = command.args();
        Programs.Program known = Programs.TABLE.get(b.program);
        if (b.program.equals("git")) {
            Git.read(b, args, where);
        } else if (known != null) {
            Programs.describe(b, known, args);
            b.text(Builder.canonical(known.options(), args));
        } else {
            // a program Quiver does not know reads whatever it is given: every word may name a file
            b.operands(args);
            args.forEach(b::reads);
            b.text(Builder.values(args));
        }
        b.code = Programs.code(b.program, args);
        for (Redirect r : command.redirects()) {
            if (r.operator().equals("<") || r.operator().equals("<>")) {
                b.reads(r.target());
            }
            if (r.writes()) {
                b.writes(r.target());
            }
        }
        for (String wrapper : command.wrappers()) {
            if (b.privilege == null && PRIVILEGED.contains(wrapper.split(" ")[0])) {
                b.privilege = wrapper.split(" ")[0];
            }
        }
        if (b.privilege == null && PRIVILEGED.contains(b.program)) {
            b.privilege = b.program;
        }
        for (Word assignment : command.assignments()) {
            String why = environment(assignment, where);
            if (why != null && !b.unjudgeable.contains(why)) {
                b.unjudgeable(why);
            }
        }
        b.spell();
        return new CommandModel(b);
    }

    /** The simple command this models. */
    public SimpleCommand command() {
        return command;
    }

    /**
     * The program's name: the command word's file name ({@code rm} for {@code /bin/rm} or {@code ./rm}),
     * what a readable computed word names ({@code $(echo rm)}), else empty (also for a command made of
     * redirections only).
     */
    public String program() {
        return program;
    }

    /** git's subcommand after its options and aliases ({@code reset} for {@code git -C . nuke} with nuke = reset --hard); else empty. */
    public String subcommand() {
        return subcommand;
    }

    /** The options, by canonical name, in order. */
    public List<Option> options() {
        return options;
    }

    /** The operands (for git, of the subcommand), in order; computed words included. */
    public List<Word> operands() {
        return operands;
    }

    /** Whether the program was given this option (by its canonical name, {@code --recursive}, or {@code -x}). */
    public boolean has(String option) {
        return has(options, option);
    }

    /** The last value of an option, or null. */
    public Word value(String option) {
        return value(options, option);
    }

    private static boolean has(List<Option> options, String option) {
        return options.stream().anyMatch(o -> o.name().equals(option));
    }

    private static Word value(List<Option> options, String option) {
        Word value = null;
        for (Option o : options) {
            if (o.name().equals(option) && o.value() != null) {
                value = o.value();
            }
        }
        return value;
    }

    /** Files whose content it reads: operands, option values, input redirections. A program Quiver does not know reads every word. */
    public List<Word> reads() {
        return reads;
    }

    /**
     * The secret file it reads, if any: a word it reads the content of ({@link #reads()}: an operand, an
     * option's value, an input redirection) that names a file {@link ShellWorkspace#isSecret} calls a
     * secret — as written, or any file its globs and braces expand to in the folders it may run in
     * ({@code cat .e*}, {@code cat {.env,x}}, {@code cat <.en?}; listed as {@link PathResolver} lists them,
     * bounded), by the matched name or the file a link leads to. A word of the form {@code --opt=.env} or
     * {@code KEY=.env} names the file after its {@code =}.
     */
    public Optional<String> secretRead(ShellWorkspace where) {
        if (where == null) {
            return Optional.empty();
        }
        List<Path> cwds = folders(where);
        for (Word word : reads) {
            if (!word.literal() || word.value().isEmpty()) {
                continue;
            }
            String value = word.value();
            int equals = value.indexOf('=');
            List<String> candidates = value.startsWith("-")
                    ? (equals > 0 ? List.of(value.substring(equals + 1)) : List.of())
                    : (equals > 0 ? List.of(value, value.substring(equals + 1)) : List.of(value));
            for (String candidate : candidates) {
                String secret = secret(candidate, where, cwds == null || cwds.isEmpty() ? List.of(where.root()) : cwds);
                if (secret != null) {
                    return Optional.of(secret);
                }
            }
        }
        return Optional.empty();
    }

    private static String secret(String candidate, ShellWorkspace where, List<Path> cwds) {
        if (candidate.isEmpty()) {
            return null;
        }
        try {
            if (where.isSecret(Path.of(candidate))) {
                return candidate;
            }
        } catch (java.nio.file.InvalidPathException notAPath) {
            return null; // a word that is no path names no secret
        }
        if (!PathResolver.isGlob(candidate) && candidate.indexOf('{') < 0) {
            return null;
        }
        for (Path cwd : cwds) {
            for (boolean followLast : new boolean[] {false, true}) {
                // a list too long to read leaves the word as written, judged above
                for (PathResolver.Target t : PathResolver.resolve(candidate, cwd, where.home(), followLast).targets()) {
                    if (where.isSecret(t.path())) {
                        Path p = t.path();
                        return p.startsWith(where.root()) && !p.equals(where.root())
                                ? where.root().relativize(p).toString() : p.toString();
                    }
                }
            }
        }
        return null;
    }

    /** Files it creates or changes, redirections included; writes to {@code /dev/null} and the like are not listed. */
    public List<Word> writes() {
        return writes;
    }

    /** What it removes ({@code rm}'s operands, {@code find -delete}'s starting points, what {@code mv} moves away). */
    public List<Word> deletes() {
        return deletes;
    }

    /**
     * Whether it destroys its operands, those on the line and any more that {@code xargs} appends:
     * {@code rm}, {@code rmdir}, {@code unlink}, {@code shred}, {@code tar --remove-files},
     * {@code rsync --remove-source-files}. (mv moves its sources elsewhere, which destroys nothing.)
     */
    public boolean destroysOperands() {
        return destroysOperands;
    }

    /** Shell code it hands to a shell: a git alias starting with {@code !}, {@code git rebase -x}, {@code git submodule foreach}. */
    public List<Word> shellCode() {
        return shellCode;
    }

    /**
     * The wrapper or program that runs it as another user — {@code sudo}, {@code doas}, {@code su},
     * {@code runuser}, {@code pkexec}, {@code run0} — outermost first; empty when it runs as the user.
     */
    public Optional<String> privilege() {
        return Optional.ofNullable(privilege);
    }

    /**
     * Whether it runs code that is given inline or on standard input ({@code python3 -c}, {@code node -e},
     * {@code perl -e}, an awk program, {@code bash} reading a here-document): what that code does is not known.
     */
    public boolean runsCode() {
        return code == Programs.Code.INLINE || code == Programs.Code.STDIN;
    }

    /** Where a shell or interpreter takes its code from. */
    Programs.Code code() {
        return code;
    }

    /** Why what it does cannot be known before it runs; empty when it can be judged. */
    public List<String> unjudgeable() {
        return unjudgeable;
    }

    /** The command as rules match it: {@code git push --force} for {@code /usr/bin/git -C . push --forc}. */
    public String text() {
        return text;
    }

    /**
     * Every spelling a deny or ask rule must catch, {@link #text()} first: also the command as
     * written, with its command word's file name, and with each privileged wrapper in front
     * ({@code sudo git push}). An allow rule is matched against {@link #text()} alone.
     */
    public List<String> spellings() {
        return spellings;
    }

    /**
     * The writes and deletions that may land outside the workspace: a computed target, one that
     * leads out (links followed, {@code ~} and {@code ..} resolved), or one whose place cannot be
     * known (also a relative one after a {@code cd} to a computed folder). Harmless devices are not writes.
     * Only a model from {@link #line} knows the {@code cd}s before it.
     */
    public List<Word> outside(ShellWorkspace where) {
        List<Word> out = new ArrayList<>();
        Set<Word> seen = new LinkedHashSet<>(writes);
        seen.addAll(deletes);
        List<Path> cwds = folders(where);
        for (Word w : seen) {
            boolean absolute = w.literal() && (w.value().startsWith("/") || w.value().startsWith("~"));
            if (!w.literal() || (cwds == null && !absolute)) {
                out.add(w);
                continue;
            }
            for (Path cwd : cwds == null ? List.of(where.root()) : cwds) {
                PathResolver.Resolution r = PathResolver.resolve(w.value(), cwd, where.home(), true);
                if (!r.known() || r.targets().stream().anyMatch(t -> !t.path().startsWith(where.root()))) {
                    out.add(w);
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return text;
    }

    /** Collects a model while the program's reader fills it in. */
    static final class Builder {
        final SimpleCommand command;
        final String program;
        private final String word;
        String subcommand = "";
        List<Option> options = List.of();
        List<Word> operands = List.of();
        final List<Word> reads = new ArrayList<>();
        final List<Word> writes = new ArrayList<>();
        final List<Word> deletes = new ArrayList<>();
        /** Whether what stands as its operands is destroyed, whether or not the line spells any (see {@link #destroysOperands}). */
        boolean destroysOperands;
        final List<Word> shellCode = new ArrayList<>();
        final List<String> unjudgeable = new ArrayList<>();
        String privilege;
        Programs.Code code = Programs.Code.NONE;
        String folder = "";
        private List<String> textWords = List.of();
        String text = "";
        final List<String> spellings = new ArrayList<>();

        Builder(SimpleCommand command) {
            this.command = command;
            if (command.name().literal()) {
                this.program = command.baseName();
                String name = command.name().value();
                int slash = name.lastIndexOf('/');
                boolean system = slash > 0 && SYSTEM_FOLDERS.contains(normalize(name.substring(0, slash)));
                this.word = system ? program : name;
            } else {
                this.program = Optional.ofNullable(resolveComputed(command.name().value())).orElse("");
                this.word = command.name().value();
            }
        }

        /** {@code $(echo rm)}, {@code `printf rm`}, {@code "$(which rm)"}, {@code $(command -v rm)}: the command they name. */
        private static String resolveComputed(String text) {
            String t = text;
            if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
                t = t.substring(1, t.length() - 1);
            }
            String inner;
            if (t.startsWith("$(") && t.endsWith(")") && !t.startsWith("$((")) {
                inner = t.substring(2, t.length() - 1);
            } else if (t.length() >= 2 && t.startsWith("`") && t.endsWith("`")) {
                inner = t.substring(1, t.length() - 1);
            } else {
                return null;
            }
            List<SimpleCommand> commands = ShellParser.parse(inner).commands();
            if (commands.size() != 1 || !commands.get(0).name().literal()) {
                return null;
            }
            SimpleCommand c = commands.get(0);
            List<Word> args = c.args();
            if (args.isEmpty() || !args.get(args.size() - 1).literal()) {
                return null;
            }
            String last = args.get(args.size() - 1).value().trim();
            String base = switch (c.baseName()) {
                case "echo", "printf" -> args.get(0).literal() && !args.get(0).value().startsWith("-")
                        ? args.get(0).value().trim().split("\\s+")[0] : null;
                case "which", "type", "command", "whereis" -> last;
                default -> null;
            };
            if (base == null || base.isEmpty()) {
                return null;
            }
            int slash = base.lastIndexOf('/');
            return slash >= 0 ? base.substring(slash + 1) : base;
        }

        private static String normalize(String folder) {
            try {
                return Path.of(folder).normalize().toString();
            } catch (RuntimeException e) {
                return folder;
            }
        }

        void options(List<Option> options) {
            this.options = options;
        }

        List<Option> options() {
            return options;
        }

        void operands(List<Word> operands) {
            this.operands = operands;
        }

        void subcommand(String subcommand) {
            this.subcommand = subcommand;
        }

        boolean has(String option) {
            return CommandModel.has(options, option);
        }

        Word value(String option) {
            return CommandModel.value(options, option);
        }

        void reads(Word w) {
            reads.add(w);
        }

        void writes(Word w) {
            if (!(w.literal() && HARMLESS.contains(w.value()))) {
                writes.add(w);
            }
        }

        void deletes(Word w) {
            deletes.add(w);
        }

        void shellCode(Word code) {
            shellCode.add(code);
        }

        void unjudgeable(String why) {
            unjudgeable.add(why);
        }

        /** A {@code -C} folder, joined to the ones before it; null (computed, or a work tree elsewhere) makes it unknown. */
        void folder(Word w) {
            if (folder == null) {
                return;
            }
            if (w == null || !w.literal()) {
                folder = null;
            } else {
                folder = w.value().startsWith("/") || folder.isEmpty() ? w.value() : folder + "/" + w.value();
            }
        }

        /**
         * Computed words where the program reads options: any of them could be {@code -rf}. One
         * quoted word that is the only operand cannot hurt (as an option it leaves nothing to act on).
         */
        void computedOptions(List<Word> computed, int operandCount) {
            for (Word w : computed) {
                if (ShellText.maySplit(w) || operandCount > 1) {
                    unjudgeable(ShellText.abbreviate(w.value(), 40) + " is computed at run time where " + program
                            + " reads its options, so what it does cannot be known (it could be -rf)");
                    return;
                }
            }
        }

        void text(List<String> words) {
            this.textWords = words;
        }

        /** The words of a command as rules see them: long options by their full names. */
        static List<String> canonical(Getopt spec, List<Word> args) {
            List<String> out = new ArrayList<>();
            boolean dashes = false;
            for (Word w : args) {
                String v = w.value();
                dashes |= w.literal() && v.equals("--");
                if (!dashes && w.literal() && v.startsWith("--") && v.length() > 2) {
                    int eq = v.indexOf('=');
                    List<String> names = spec.longNames(v.substring(2, eq < 0 ? v.length() : eq));
                    if (names.size() == 1) {
                        out.add(names.get(0) + (eq < 0 ? "" : v.substring(eq)));
                        continue;
                    }
                }
                out.add(v);
            }
            return out;
        }

        static List<String> values(List<Word> words) {
            List<String> out = new ArrayList<>();
            words.forEach(w -> out.add(w.value()));
            return out;
        }

        void spell() {
            String rest = String.join(" ", textWords);
            text = word + (rest.isEmpty() || word.isEmpty() ? rest : " " + rest);
            Set<String> all = new LinkedHashSet<>();
            all.add(text);
            all.add(command.text());
            if (command.name().literal() && !word.equals(program)) {
                all.add(program + (rest.isEmpty() ? "" : " " + rest));
            }
            for (String wrapper : command.wrappers()) {
                String first = wrapper.split(" ")[0];
                if (PRIVILEGED.contains(first)) {
                    all.add(first + " " + text);
                }
            }
            spellings.addAll(all);
        }
    }
}
