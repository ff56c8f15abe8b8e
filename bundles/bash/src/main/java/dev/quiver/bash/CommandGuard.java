package dev.quiver.bash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The built-in guard: refuses commands that destroy work or the machine whatever the rules say.
 * It asks {@link CommandModel} what every simple command of a parse does (so wrappers, {@code bash -c},
 * {@code eval}, pipelines, subshells and substitutions hide nothing, and options are read as the
 * program reads them) and looks at the pipelines and functions around them. It refuses:
 *
 * <ul>
 *   <li>forced or recursive deletion ({@code rm} with {@code -r}/{@code -f} in any spelling,
 *       {@code find -delete}, {@code find -exec rm}, {@code xargs rm}, {@code shred}, {@code rsync --delete})
 *       unless every path leads, on the real file system, into git-ignored output inside the workspace
 *       (see {@link #deletable}); {@code .git} is never such output;
 *   <li>git commands that discard work: {@code reset --hard}/{@code --merge}/{@code --keep}, {@code clean}
 *       (but a dry run, or {@code -X}), {@code checkout -f}, {@code switch -f}, {@code checkout} and
 *       {@code restore} of everything (magic, globs, folders), forced pushes ({@code -f},
 *       {@code --force-with-lease}, {@code --mirror}, {@code +ref}), {@code branch -D}, {@code stash
 *       drop}/{@code clear}, {@code update-ref -d}, {@code reflog expire}/{@code delete}, {@code gc
 *       --prune=}, {@code prune}, {@code filter-branch}, {@code filter-repo}, {@code worktree remove
 *       --force}; through aliases too, and a {@code !} alias's shell code is checked as a command line;
 *   <li>SQL that drops or empties tables (see {@link #SQL_ANY}, {@link #SQL_CLIENT}, {@link #TEXT_ONLY});
 *   <li>{@code mkfs*}, {@code dd of=/dev/...}, writing to a disk device; {@code chmod 777};
 *       shutdown and reboot; fork bombs; a download piped or substituted into a shell or interpreter.
 * </ul>
 *
 * <p>What depends on run-time values is the permission engine's: a computed command word
 * ({@code $CMD x}) is not refused here unless it is a download or a readable {@code $(echo rm)}, and a
 * computed option ({@code rm $x src}) is not either ({@link CommandModel#unjudgeable()} makes the
 * engine ask). Nor is a parse's incompleteness a reason to refuse: the guard refuses what it can read.
 */
public final class CommandGuard {

    private static final int MAX_DEPTH = 4;

    private static final String ASK = " If it is really needed, ask the user to run it themselves.";

    /** SQL that refuses in an argument of any command. */
    static final Pattern SQL_ANY = Pattern.compile(
            "\\bDROP\\s+(TABLE|DATABASE|SCHEMA)\\b|\\bTRUNCATE\\s+TABLE\\b", Pattern.CASE_INSENSITIVE);
    /**
     * SQL that refuses in an argument or here-document of a SQL client: a bare {@code TRUNCATE}
     * too. Elsewhere "truncate" is too common an English word (commit messages) to refuse alone.
     */
    static final Pattern SQL_CLIENT = Pattern.compile(
            "\\bDROP\\s+(TABLE|DATABASE|SCHEMA)\\b|\\bTRUNCATE\\b", Pattern.CASE_INSENSITIVE);

    private static final Set<String> SQL_CLIENTS = Set.of(
            "psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "clickhouse", "clickhouse-client", "duckdb",
            "cockroach", "pgcli", "mycli", "litecli", "usql", "snowsql", "bq", "spark-sql", "beeline", "hive",
            "cqlsh", "trino", "presto", "sqlplus", "isql", "osql", "db2");

    /**
     * Commands whose arguments are text, not statements: {@code echo "drop table" > notes.txt},
     * {@code grep -r "DROP TABLE" migrations}, {@code git commit -m "..."} pass; their text is
     * checked only when a pipeline feeds it to a SQL client ({@code echo "DROP TABLE t" | psql}).
     */
    private static final Set<String> TEXT_ONLY = Set.of(
            "echo", "printf", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git", "sed", "tee", "cat");

    private static final Set<String> DOWNLOADERS = Set.of(
            "curl", "wget", "fetch", "http", "https", "xh", "lwp-request", "GET", "aria2c");

    private static final Pattern DISK = Pattern.compile(
            "^/dev/(sd[a-z]|nvme[0-9]|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk[0-9]|disk/|mapper/|md[0-9]|dm-[0-9])");

    private static final Pattern WORLD_WRITABLE = Pattern.compile("0*777|[ugo]*a[ugo]*[+=]rwx[Xst]*|ugo[+=]rwx[Xst]*");

    /** Programs that can leave a symbolic link (or a folder holding one) where a path of the line leads. */
    private static final Set<String> LINK_MAKERS = Set.of("ln", "cp", "mv", "install", "tar", "bsdtar", "unzip", "cpio",
            "rsync", "patch", "7z", "7za", "eval", "source", ".");
    /** git subcommands that write the working tree, where a tracked symbolic link may appear. */
    private static final Set<String> GIT_CHECKOUTS = Set.of("checkout", "switch", "restore", "reset", "merge", "pull",
            "stash", "clone", "am", "apply", "cherry-pick", "rebase", "revert", "worktree", "submodule", "read-tree",
            "checkout-index", "sparse-checkout");

    private CommandGuard() {
    }

    /**
     * A refusal reason (naming the command and why, and telling the model to ask the user) when
     * any simple command of {@code command} is destructive; empty otherwise.
     *
     * @param where the workspace the line runs in; null when there is none, so no deletion is of build output
     */
    public static Optional<String> refusal(ParsedCommand command, ShellWorkspace where) {
        try {
            return Optional.ofNullable(check(command, where, where == null ? null : List.of(where.root()), 0));
        } catch (RuntimeException | StackOverflowError e) {
            return Optional.of("The built-in guard could not check this command (" + e.getClass().getSimpleName()
                    + "), so it is refused." + ASK);
        }
    }

    /** One line being checked: its models and what the deletions in it may assume. */
    private record Line(List<CommandModel> models, ShellWorkspace where, int depth) {

        /** Whether a command of the line other than {@code self} could leave a link where a path leads. */
        boolean linkMakerBesides(CommandModel self) {
            for (CommandModel m : models) {
                if (m != self && linkMaker(m)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static boolean linkMaker(CommandModel m) {
        String p = m.program();
        return !m.command().name().literal() || LINK_MAKERS.contains(p) || m.runsCode() || m.code() == Programs.Code.SCRIPT
                || (p.equals("git") && GIT_CHECKOUTS.contains(m.subcommand()));
    }

    /** Checks a line that starts in one of {@code folders} (null: unknown), {@code depth} strings deep. */
    private static String check(ParsedCommand parsed, ShellWorkspace where, List<Path> folders, int depth) {
        Line line = new Line(CommandModel.line(parsed, where, folders), where, depth);
        CommandModel find = null;
        List<Path> deleted = new ArrayList<>();
        for (CommandModel m : line.models()) {
            if (m.command().name().literal() && m.program().equals("find")) {
                find = m;
            }
            String why = command(m, line, find, deleted);
            if (why != null) {
                return why;
            }
        }
        String why = movedThenDeleted(line, deleted);
        if (why != null) {
            return why;
        }
        Structure.CommandList list = ShellParser.commandList(parsed);
        for (Structure.Pipeline p : list.structure.pipelines) {
            why = pipeline(list, p);
            if (why != null) {
                return why;
            }
        }
        for (Structure.Function f : list.structure.functions) {
            if (f.selfPiped() || f.selfInBackground()) {
                return "Refused `" + f.name() + "`: the function starts copies of itself "
                        + (f.selfPiped() ? "in a pipeline" : "in the background") + ", which is a fork bomb." + ASK;
            }
        }
        return null;
    }

    private static String refuse(SimpleCommand c, String why) {
        return "Refused `" + ShellText.abbreviate(display(c), 120) + "`: " + why + "." + ASK;
    }

    private static String display(SimpleCommand c) {
        StringBuilder b = new StringBuilder();
        for (String w : c.wrappers()) {
            b.append(w).append(' ');
        }
        b.append(c.text());
        if (c.name().value().isEmpty()) {
            for (Redirect r : c.redirects()) {
                b.append(b.length() > 0 ? " " : "").append(r.fd() == null ? "" : r.fd()).append(r.operator())
                        .append(' ').append(r.feedsData() ? "..." : r.target().value());
            }
        }
        return b.toString().trim();
    }

    private static String command(CommandModel m, Line line, CommandModel find, List<Path> deleted) {
        SimpleCommand c = m.command();
        for (Word w : m.writes()) {
            if (w.literal() && DISK.matcher(w.value()).find()) {
                return refuse(c, "it writes to the disk device " + w.value());
            }
        }
        if (!c.name().literal() && mentionsDownload(c.name().value(), line.depth())) {
            return refuse(c, "it runs the output of a download as a command");
        }
        String base = m.program();
        String sql = sql(c, base.isEmpty() ? null : base);
        if (sql != null) {
            return sql;
        }
        for (Word code : m.shellCode()) {
            if (code.literal() && line.depth() < MAX_DEPTH) {
                // git runs it where it runs
                String why = check(ShellParser.parse(code.value()), line.where(), m.folders(line.where()),
                        line.depth() + 1);
                if (why != null) {
                    return why;
                }
            }
        }
        if (base.startsWith("mkfs") || base.equals("mke2fs") || base.equals("mkswap")) {
            return refuse(c, "it formats a file system");
        }
        String git = gitFolderWrite(m, line);
        if (git != null) {
            return git;
        }
        String input = deletesInput(m);
        if (input != null) {
            return input;
        }
        List<Word> args = c.args();
        switch (base) {
            case "rm":
                return rm(m, line, find, deleted);
            case "shred":
                return deletions(m, line, m.writes(), "it overwrites files beyond recovery", deleted);
            case "find":
                return find(m, line, deleted);
            case "rsync":
                // --remove-source-files removes the sources, --delete* the destination's extras
                return m.deletes().isEmpty() ? null
                        : deletions(m, line, m.deletes(), "it removes the files it sends or what the source lacks", deleted);
            case "tar", "bsdtar":
                return m.deletes().isEmpty() ? null
                        : deletions(m, line, m.deletes(), "it removes the files it archives (--remove-files)", deleted);
            case "mv": {
                // onto a device the sources are gone: mv X /dev/null
                List<Word> ops = m.operands();
                Word to = m.value("--target-directory") != null ? m.value("--target-directory")
                        : ops.size() >= 2 ? ops.get(ops.size() - 1) : null;
                return to != null && to.literal() && CommandModel.HARMLESS.contains(to.value())
                        ? deletions(m, line, m.deletes(), "it moves files onto the device " + to.value() + ", which destroys them",
                                deleted)
                        : null;
            }
            case "git":
                return git(m, line);
            case "dd":
                for (Word w : m.writes()) {
                    if (w.literal() && w.value().startsWith("/dev/")) {
                        return refuse(c, "it writes to the device " + w.value());
                    }
                }
                return null;
            case "chmod":
                for (Word a : m.operands()) {
                    if (a.literal()) {
                        for (String part : a.value().split(",")) {
                            if (WORLD_WRITABLE.matcher(part).matches()) {
                                return refuse(c, "it makes files writable by everyone (" + a.value() + ")");
                            }
                        }
                    }
                }
                return null;
            case "shutdown", "reboot", "halt", "poweroff":
                return refuse(c, "it shuts down or restarts the machine");
            case "init", "telinit":
                if (!args.isEmpty() && args.get(0).literal() && Set.of("0", "6").contains(args.get(0).value())) {
                    return refuse(c, "it shuts down or restarts the machine");
                }
                return null;
            case "systemctl":
                for (Word a : args) {
                    if (a.literal() && !a.value().startsWith("-")) {
                        return Set.of("poweroff", "reboot", "halt", "kexec").contains(a.value())
                                ? refuse(c, "it shuts down or restarts the machine") : null;
                    }
                }
                return null;
            default:
                return codeRunner(m, line);
        }
    }

    // ---- deletion

    /**
     * Refuses a command that deletes (or destroys its operands: rm, shred, tar --remove-files, ...) run by
     * xargs, or by parallel with {@code {}}: the paths come from their input, which cannot be checked.
     * Every deleting program passes here, before the checks of its own, so none can miss it.
     */
    private static String deletesInput(CommandModel m) {
        if (m.deletes().isEmpty() && !m.destroysOperands()) {
            return null;
        }
        SimpleCommand c = m.command();
        for (String w : c.wrappers()) {
            if (w.equals("xargs")) {
                return refuse(c, "it deletes the paths xargs reads from its input, which cannot be checked");
            }
            // parallel's arguments from its input stand as {} in the command it runs
            if (w.equals("parallel") && c.args().stream().anyMatch(a -> a.value().contains("{}"))) {
                return refuse(c, "it deletes the paths parallel reads from its input, which cannot be checked");
            }
        }
        return null;
    }

    private static String rm(CommandModel m, Line line, CommandModel find, List<Path> deleted) {
        SimpleCommand c = m.command();
        for (String w : c.wrappers()) {
            if (w.startsWith("find ")) {
                // the paths are find's placeholders: what counts is where find looks
                return find == null ? refuse(c, "it deletes what find finds, which cannot be checked")
                        : findRoots(find, line, "it deletes what find finds", deleted);
            }
        }
        boolean recursive = m.has("--recursive");
        if (!recursive && !m.has("--force")) {
            return null;
        }
        for (Word p : m.deletes()) {
            if (p.literal() && (p.value().equals("/") || p.value().startsWith("~") || p.value().equals("/*"))) {
                return refuse(c, "it deletes " + (p.value().startsWith("~") ? "the home directory" : "the root directory"));
            }
        }
        return deletions(m, line, m.deletes(), "it deletes " + (recursive ? "recursively" : "by force"), deleted);
    }

    private static String find(CommandModel m, Line line, List<Path> deleted) {
        return m.has("-delete") ? findRoots(m, line, "it deletes what find finds", deleted) : null;
    }

    /** A deletion by find (-delete, or a command of -exec): every starting point must be build output, and links not followed. */
    private static String findRoots(CommandModel find, Line line, String what, List<Path> deleted) {
        if (find.has("-L") || find.has("-follow")) {
            return refuse(find.command(), what + " following symbolic links, which can lead anywhere");
        }
        List<Word> roots = find.deletes().isEmpty() ? find.operands() : find.deletes();
        return deletions(find, line, roots.isEmpty() ? List.of(Word.literal(".")) : roots, what, deleted);
    }

    /** Refuses unless every path only removes git-ignored files inside the workspace; records what it removes. */
    private static String deletions(CommandModel m, Line line, List<Word> paths, String what, List<Path> deleted) {
        for (Word p : paths) {
            String why = deletable(m, p, line, deleted);
            if (why != null) {
                return refuse(m.command(), what + " outside git-ignored build output (" + ShellText.abbreviate(p.value(), 60)
                        + (why.isEmpty() ? "" : ": " + why) + ")");
            }
        }
        return null;
    }

    /**
     * Null when deleting this path only removes git-ignored files inside the workspace, else why not
     * (empty when it is simply not such output). The path is resolved as the system will resolve it
     * (links followed, globs listed, {@code ~} expanded) from every folder the command may run in, and
     * each place it leads must be inside the workspace and outside every {@code .git}, and be ignored by
     * git or not exist at all (deleting it removes nothing).
     * A path that climbs back ({@code a/..}) or passes through a folder another command of the line
     * could make a link is not trusted from its text.
     */
    static String deletable(CommandModel m, Word path, Line line, List<Path> deleted) {
        ShellWorkspace where = line.where();
        if (!path.literal()) {
            return "computed at run time";
        }
        if (where == null) {
            return "";
        }
        boolean absolute = path.value().startsWith("/") || path.value().startsWith("~");
        List<Path> folders = m.folders(where);
        if (folders == null && !absolute) {
            return "the folder it runs in is not known";
        }
        for (Path cwd : folders == null ? List.of(where.root()) : folders) {
            PathResolver.Resolution r = PathResolver.resolve(path.value(), cwd, where.home(), false, true);
            if (!r.known()) {
                return r.unknown();
            }
            for (PathResolver.Target t : r.targets()) {
                Path p = t.path();
                Path root = where.root();
                if (!p.startsWith(root) || p.equals(root)) {
                    return "";
                }
                if (inGitFolder(p, where, true)) {
                    return "the repository's git folder is never build output";
                }
                if (root.relativize(p).getName(0).toString().equalsIgnoreCase(".quiver")) {
                    return "";
                }
                if (t.followed() && line.linkMakerBesides(m)) {
                    return "a folder on its way could become a symbolic link by another command of the line";
                }
                // what is not there removes nothing (unless the line moves work there: see movedThenDeleted)
                if (t.exists() && !where.isIgnored(p)) {
                    return "";
                }
                deleted.add(p);
            }
        }
        return null;
    }

    /**
     * Whether a resolved path is a git folder or inside one: any {@code .git} component (at any depth, in
     * any case), or the repository's git folder under another name ({@code git init --separate-git-dir});
     * with {@code holding}, also a folder that holds the repository's git folder (deleting it deletes that).
     */
    static boolean inGitFolder(Path p, ShellWorkspace where, boolean holding) {
        Path root = where.root();
        for (Path name : p.startsWith(root) ? root.relativize(p) : p) {
            if (name.toString().equalsIgnoreCase(".git")) {
                return true;
            }
        }
        return where.gitDir().map(git -> (holding && git.startsWith(p)) || p.startsWith(git)).orElse(false);
    }

    /**
     * A refusal when a command other than git writes, truncates, deletes or moves away anything in a git
     * folder ({@code rm .git/index}, {@code echo x > .git/HEAD}, {@code mv .git .git-old}, {@code sed -i d
     * .git/config}): checkpoints restore the working tree, never {@code .git}, so nothing there can be
     * undone, and a hook or a config setting written there runs code later. git writing its own folder
     * is git's (its discarding commands are refused apart); a redirection of git's output is not.
     */
    private static String gitFolderWrite(CommandModel m, Line line) {
        ShellWorkspace where = line.where();
        if (where == null) {
            return null;
        }
        List<Word> paths = new ArrayList<>();
        if (m.program().equals("git") && m.command().name().literal()) {
            for (Redirect r : m.command().redirects()) {
                if (r.writes()) {
                    paths.add(r.target());
                }
            }
        } else {
            paths.addAll(m.writes());
            paths.addAll(m.deletes());
        }
        List<Path> folders = m.folders(where);
        for (Word w : paths) {
            boolean holding = m.deletes().contains(w);
            if (!w.literal()) {
                continue; // a computed target is the engine's to ask about
            }
            boolean absolute = w.value().startsWith("/") || w.value().startsWith("~");
            for (Path cwd : folders == null ? (absolute ? List.of(where.root()) : List.<Path>of()) : folders) {
                for (boolean followLast : new boolean[] {false, true}) {
                    PathResolver.Resolution r = PathResolver.resolve(w.value(), cwd, where.home(), followLast);
                    for (PathResolver.Target t : r.targets()) {
                        if (inGitFolder(t.path(), where, holding)) {
                            return refuse(m.command(), "it changes or removes " + ShellText.abbreviate(w.value(), 60)
                                    + " in the repository's git folder, which no checkpoint can restore");
                        }
                    }
                }
            }
            if (folders == null && !absolute && w.value().matches("(?i)(.*/)?\\.git(/.*)?")) {
                return refuse(m.command(), "it changes or removes " + ShellText.abbreviate(w.value(), 60)
                        + " in a git folder, which no checkpoint can restore");
            }
        }
        return null;
    }

    /**
     * {@code mv src build/ && rm -rf build}: what a command moves into a folder the line deletes is
     * deleted too, so the moved paths must be build output as well.
     */
    private static String movedThenDeleted(Line line, List<Path> deleted) {
        if (deleted.isEmpty()) {
            return null;
        }
        for (CommandModel m : line.models()) {
            if (m.deletes().isEmpty() || m.writes().isEmpty() || m.program().equals("rm") || m.program().equals("shred")) {
                continue;
            }
            for (Word w : m.writes()) {
                if (intoDeleted(m, w, line.where(), deleted)) {
                    return deletions(m, line, m.deletes(), "it moves files into " + w.value() + ", which the line deletes,",
                            new ArrayList<>());
                }
            }
        }
        return null;
    }

    private static boolean intoDeleted(CommandModel m, Word w, ShellWorkspace where, List<Path> deleted) {
        List<Path> folders = m.folders(where);
        if (!w.literal() || folders == null) {
            return true;
        }
        for (Path cwd : folders) {
            PathResolver.Resolution r = PathResolver.resolve(w.value(), cwd, where.home(), true);
            if (!r.known()) {
                return true;
            }
            for (PathResolver.Target t : r.targets()) {
                if (deleted.stream().anyMatch(d -> t.path().startsWith(d))) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- git

    private static String git(CommandModel m, Line line) {
        SimpleCommand c = m.command();
        List<Word> operands = m.operands();
        String first = operands.isEmpty() || !operands.get(0).literal() ? "" : operands.get(0).value();
        switch (m.subcommand()) {
            case "reset":
                return m.has("--hard") || m.has("--merge") || m.has("--keep")
                        ? refuse(c, "it discards uncommitted changes") : null;
            case "clean":
                // without a dry run it deletes, whatever -f says: clean.requireForce can be off in a config
                // or a GIT_CONFIG_* variable; -X alone removes only what git ignores
                boolean ignoredOnly = m.has("-X") && !m.has("-x") && !m.has("--exclude");
                return m.has("--dry-run") || ignoredOnly ? null : refuse(c, "it deletes untracked files");
            case "checkout":
                if (m.has("-B")) {
                    return refuse(c, "it resets a branch that may exist, which can lose its commits");
                }
                if (m.has("--force")) {
                    return refuse(c, "it discards uncommitted changes");
                }
                return everything(m, line) ? refuse(c, "it discards uncommitted changes in every file it names") : null;
            case "switch":
                if (m.has("--force-create")) {
                    return refuse(c, "it resets a branch that may exist, which can lose its commits");
                }
                return m.has("--force") ? refuse(c, "it discards uncommitted changes") : null;
            case "restore":
                if (m.has("--staged") && !m.has("--worktree")) {
                    return null;
                }
                return everything(m, line) ? refuse(c, "it discards uncommitted changes in every file it names") : null;
            case "rm":
                return m.has("--force") && !m.has("--cached") && everything(m, line)
                        ? refuse(c, "it deletes files with their uncommitted changes") : null;
            case "read-tree":
                return m.has("-u") && (m.has("--reset") || m.has("-m"))
                        ? refuse(c, "it overwrites the working tree with a tree, discarding uncommitted changes") : null;
            case "checkout-index":
                return m.has("--force") ? refuse(c, "it overwrites files with their staged version, discarding changes") : null;
            case "submodule":
                return first.equals("deinit") && m.has("--force")
                        ? refuse(c, "it removes submodules' working trees with their local changes") : null;
            case "mv":
                return m.has("--force") && gitMvOverwrites(m, line)
                        ? refuse(c, "it moves a file over an existing one, whose content is lost") : null;
            case "config":
                return config(m);
            case "fetch":
                for (Word w : operands) {
                    String v = w.value();
                    int colon = v.indexOf(':');
                    if (w.literal() && v.startsWith("+") && colon > 0 && !v.substring(colon + 1).startsWith("refs/remotes/")
                            && !v.substring(colon + 1).startsWith("refs/tags/")) {
                        return refuse(c, "it force-updates local branches from the remote (" + v + "), which can lose commits");
                    }
                }
                return null;
            case "push":
                if (m.has("--prune")) {
                    return refuse(c, "it deletes remote branches that have no local counterpart");
                }
                if (m.has("--force") || m.has("--force-with-lease") || m.has("--mirror")
                        || operands.stream().anyMatch(w -> w.literal() && w.value().startsWith("+") && w.value().length() > 1)) {
                    return refuse(c, "it force-pushes, which can overwrite commits on the remote");
                }
                return null;
            case "branch":
                if (m.has("-D") || (m.has("--delete") && m.has("--force"))) {
                    return refuse(c, "it deletes a branch even if it is not merged");
                }
                // -f NAME REV, -M OLD NEW, -C OLD NEW: an existing branch is moved or overwritten; the one-word
                // forms (git branch -M main after git init, -f NAME at HEAD) are left as everyday renames
                return (m.has("-M") || m.has("-C") || m.has("--force")) && operands.size() >= 2
                        ? refuse(c, "it moves or overwrites an existing branch, which can lose its commits") : null;
            case "stash":
                return first.equals("drop") || first.equals("clear") ? refuse(c, "it deletes stashed changes") : null;
            case "update-ref":
                // a new value of all zeros deletes the reference too
                return m.has("-d") || m.has("--stdin") || (operands.size() >= 2 && operands.get(1).literal()
                        && operands.get(1).value().matches("0{40}|0{64}"))
                        ? refuse(c, "it deletes or rewrites a reference") : null;
            case "symbolic-ref":
                return m.has("--delete") ? refuse(c, "it deletes a reference") : null;
            case "reflog":
                return Set.of("expire", "delete", "drop").contains(first)
                        ? refuse(c, "it deletes the reflog, which is how lost commits are found again") : null;
            case "gc": {
                Word prune = m.value("--prune");
                return prune != null && !prune.value().equals("never")
                        ? refuse(c, "it prunes unreachable commits now, which may be the only copy of lost work") : null;
            }
            case "prune":
                return m.has("--dry-run") ? null
                        : refuse(c, "it prunes unreachable commits, which may be the only copy of lost work");
            case "filter-branch", "filter-repo":
                return refuse(c, "it rewrites the repository's history");
            case "worktree":
                return first.equals("remove") && m.has("--force")
                        ? refuse(c, "it removes a worktree with its uncommitted changes") : null;
            default:
                return null;
        }
    }

    /**
     * {@code git config} writing a setting that runs commands or decides what git keeps ({@link Git#runsOrKeeps}),
     * or writing any setting outside the repository ({@code --global}, {@code --system}, {@code --file}):
     * refused rather than asked, since the command that later runs it is judged without knowing.
     */
    private static String config(CommandModel m) {
        List<Word> ops = m.operands();
        boolean reads = m.options().stream().anyMatch(o -> Set.of("--get", "--get-all", "--get-regexp", "--get-urlmatch",
                "--list", "--unset", "--unset-all", "--edit").contains(o.name()));
        String key = null;
        if (!ops.isEmpty() && ops.get(0).literal() && Set.of("set", "unset", "get", "list", "edit", "rename-section",
                "remove-section").contains(ops.get(0).value())) {
            // git 2.46's verbs
            if (ops.get(0).value().equals("set") && ops.size() >= 3) {
                key = ops.get(1).value();
            } else if (ops.get(0).value().equals("set") || ops.get(0).value().equals("edit")) {
                key = "?";
            }
        } else if (!reads && (ops.size() >= 2 || m.has("--add") || m.has("--replace-all"))) {
            key = ops.isEmpty() ? "?" : ops.get(0).value();
        }
        if (key == null) {
            return null;
        }
        SimpleCommand c = m.command();
        if (m.has("--global") || m.has("--system") || m.has("--file") || m.has("--blob")) {
            return refuse(c, "it changes git settings outside the repository, for every repository that reads them");
        }
        boolean computed = ops.stream().anyMatch(w -> !w.literal());
        return computed || key.equals("?") || Git.runsOrKeeps(key)
                ? refuse(c, "it sets " + ShellText.abbreviate(key, 40) + ", a git setting that runs commands or decides "
                        + "what git keeps") : null;
    }

    /** Whether {@code git mv -f}'s destination (a file, or a file of the same name in a destination folder) exists. */
    private static boolean gitMvOverwrites(CommandModel m, Line line) {
        List<Word> ops = m.operands();
        List<Path> folders = line.where() == null ? null : m.folders(line.where());
        if (ops.size() < 2 || folders == null) {
            return true;
        }
        Word to = ops.get(ops.size() - 1);
        if (!to.literal()) {
            return true;
        }
        for (Path cwd : folders) {
            PathResolver.Resolution r = PathResolver.resolve(to.value(), cwd, line.where().home(), true);
            if (!r.known()) {
                return true;
            }
            for (PathResolver.Target t : r.targets()) {
                if (!t.exists()) {
                    continue;
                }
                if (!java.nio.file.Files.isDirectory(t.path())) {
                    return true;
                }
                for (Word source : ops.subList(0, ops.size() - 1)) {
                    String name = Path.of(source.value()).getFileName() == null ? "" : Path.of(source.value())
                            .getFileName().toString();
                    if (!source.literal() || java.nio.file.Files.exists(t.path().resolve(name))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether a pathspec of git checkout, restore or rm covers more than named files: pathspec magic
     * ({@code :/}, {@code :(glob)**}), a glob ({@code *}, {@code '**'}), or a folder ({@code .}, {@code src});
     * a relative one when the folder git runs in is not known.
     */
    private static boolean everything(CommandModel m, Line line) {
        if (m.has("--pathspec-from-file")) {
            return true; // a file can name every path
        }
        List<Path> folders = line.where() == null ? null : m.folders(line.where());
        for (Word p : m.operands()) {
            String v = p.value();
            if (!p.literal()) {
                continue;
            }
            if (v.startsWith(":") || PathResolver.isGlob(v)) {
                return true;
            }
            if (folders == null) {
                if (!v.startsWith("/")) {
                    return true;
                }
                continue;
            }
            for (Path cwd : folders) {
                PathResolver.Resolution r = PathResolver.resolve(v, cwd, line.where().home(), true);
                if (!r.known() || r.targets().stream().anyMatch(t -> java.nio.file.Files.isDirectory(t.path()))) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- SQL

    private static String sql(SimpleCommand c, String base) {
        boolean client = base != null && SQL_CLIENTS.contains(base);
        if (!client && base != null && TEXT_ONLY.contains(base)) {
            return null; // checked only when piped into a SQL client
        }
        return sql(c, client ? SQL_CLIENT : SQL_ANY);
    }

    private static String sql(SimpleCommand c, Pattern pattern) {
        for (Word a : c.args()) {
            String v = a.value();
            // an attached option value: mysql -e"DROP TABLE t"
            boolean attached = v.length() > 2 && v.charAt(0) == '-' && Character.isLetter(v.charAt(1));
            if (pattern.matcher(v).find() || (attached && pattern.matcher(v.substring(2)).find())) {
                return refuse(c, "it drops or empties database tables");
            }
        }
        for (Redirect r : c.redirects()) {
            if (r.feedsData() && pattern.matcher(r.target().value()).find()) {
                return refuse(c, "it drops or empties database tables");
            }
        }
        return null;
    }

    // ---- code from elsewhere

    private static boolean runsCode(String base) {
        return Expander.SHELLS.contains(base) || Programs.INTERPRETER.matcher(base).matches()
                || base.equals("eval") || base.equals("source") || base.equals(".");
    }

    private static String codeRunner(CommandModel m, Line line) {
        SimpleCommand c = m.command();
        int depth = line.depth();
        String base = m.program();
        if (!runsCode(base)) {
            return null;
        }
        for (Word a : c.args()) {
            if (!a.literal() && mentionsDownload(a.value(), depth)) {
                return refuse(c, "it runs code straight from a download");
            }
        }
        for (Redirect r : c.redirects()) {
            if (!r.target().literal() && !r.writes() && mentionsDownload(r.target().value(), depth)) {
                return refuse(c, "it runs code straight from a download");
            }
        }
        return null;
    }

    /** Whether a word's source text runs a downloader ({@code "$(curl ...)"}, {@code <(wget -O- ...)}). */
    private static boolean mentionsDownload(String text, int depth) {
        boolean candidate = false;
        for (String d : DOWNLOADERS) {
            candidate |= text.contains(d);
        }
        if (!candidate || depth >= MAX_DEPTH) {
            return candidate;
        }
        for (SimpleCommand inner : ShellParser.parse("_ " + text).commands()) {
            if (inner.name().literal() && DOWNLOADERS.contains(inner.baseName())) {
                return true;
            }
        }
        return false;
    }

    // ---- pipelines

    private static String pipeline(Structure.CommandList list, Structure.Pipeline p) {
        List<Structure.Stage> stages = p.stages();
        for (int s = 1; s < stages.size(); s++) {
            if (!hasSqlClient(list, stages.get(s))) {
                continue;
            }
            for (int k = stages.get(0).start(); k < stages.get(s).start() && k < list.size(); k++) {
                String why = sql(list.get(k), SQL_CLIENT);
                if (why != null) {
                    return why;
                }
            }
        }
        int download = -1;
        for (int s = 0; s < stages.size(); s++) {
            Structure.Stage stage = stages.get(s);
            for (int k = stage.start(); k < stage.end() && k < list.size(); k++) {
                SimpleCommand c = list.get(k);
                if (download >= 0 && executesStdin(c)) {
                    return refuse(c, "it runs code piped from a download (" + ShellText.abbreviate(
                            list.get(download).text(), 60) + ")");
                }
            }
            for (int k = stage.start(); k < stage.end() && k < list.size(); k++) {
                SimpleCommand c = list.get(k);
                if (download < 0 && c.name().literal() && DOWNLOADERS.contains(c.baseName())) {
                    download = k;
                }
            }
        }
        return null;
    }

    private static boolean hasSqlClient(Structure.CommandList list, Structure.Stage stage) {
        for (int k = stage.start(); k < stage.end() && k < list.size(); k++) {
            SimpleCommand c = list.get(k);
            if (c.name().literal() && SQL_CLIENTS.contains(c.baseName())) {
                return true;
            }
        }
        return false;
    }

    /** True when the command runs its standard input as code ({@code sh}, {@code bash -s}, {@code python3 -}). */
    private static boolean executesStdin(SimpleCommand c) {
        if (!c.name().literal()) {
            return false;
        }
        String base = c.baseName();
        if (base.equals("sudo") || base.equals("su")) {
            // a shell that reads its commands from standard input: sudo -i, sudo -s, su
            return base.equals("su") ? !has(c.args(), "-c") : has(c.args(), "-i") || has(c.args(), "-s");
        }
        if (base.equals("source") || base.equals(".")) {
            return !c.args().isEmpty() && Set.of("/dev/stdin", "/proc/self/fd/0", "-").contains(c.args().get(0).value());
        }
        return (Expander.SHELLS.contains(base) || Programs.INTERPRETER.matcher(base).matches())
                && Programs.code(base, c.args()) == Programs.Code.STDIN;
    }

    private static boolean has(List<Word> args, String option) {
        for (Word a : args) {
            if (a.literal() && a.value().equals(option)) {
                return true;
            }
        }
        return false;
    }
}
