package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The built-in guard: refuses commands that destroy work or the machine whatever the rules say.
 * It looks at every simple command of a parse (so wrappers, {@code bash -c}, {@code eval},
 * pipelines, subshells and substitutions hide nothing) and at the pipelines and functions around
 * them. It refuses:
 *
 * <ul>
 *   <li>forced or recursive deletion ({@code rm -r}/{@code -f} in any spelling, {@code find -delete},
 *       {@code find -exec rm}, {@code xargs rm}) unless every path is literal and git-ignored inside
 *       the workspace; {@code rm -rf /} and {@code ~} always;
 *   <li>git commands that discard work: {@code reset --hard}, {@code clean -f} (not with
 *       {@code -n}), {@code checkout .}, {@code restore .} (not {@code --staged} alone), forced
 *       pushes, {@code branch -D}, {@code stash drop}/{@code clear};
 *   <li>SQL that drops or empties tables (see {@link #SQL_ANY}, {@link #SQL_CLIENT}, {@link #TEXT_ONLY});
 *   <li>{@code mkfs*}, {@code dd of=/dev/...}, writing to a disk device; {@code chmod 777};
 *       shutdown and reboot; fork bombs; a download piped or substituted into a shell or interpreter.
 * </ul>
 *
 * <p>Commands whose name is computed ({@code $CMD x}) are not refused here unless the computed
 * name is a download or a plain {@code $(echo rm)}/{@code $(which rm)}: the permission engine must
 * never allow a computed name by rule. Nor is a parse's incompleteness a reason to refuse: the
 * guard refuses what it can read, the engine must not allow an incomplete parse.
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

    private static final Pattern INTERPRETER = Pattern.compile(
            "python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|php[0-9.]*|lua[0-9.]*|deno|bun");

    private static final Pattern DISK = Pattern.compile(
            "^/dev/(sd[a-z]|nvme[0-9]|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk[0-9]|disk/|mapper/|md[0-9]|dm-[0-9])");

    private static final Set<String> SAFE_DEVICES = Set.of(
            "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/full");

    private static final Pattern WORLD_WRITABLE = Pattern.compile("0*777|[ugo]*a[ugo]*[+=]rwx[Xst]*|ugo[+=]rwx[Xst]*");

    private CommandGuard() {
    }

    /**
     * A refusal reason (naming the command and why, and telling the model to ask the user) when
     * any simple command of {@code command} is destructive; empty otherwise.
     */
    public static Optional<String> refusal(ParsedCommand command, IgnoredPaths ignored) {
        try {
            return Optional.ofNullable(check(command, ignored == null ? IgnoredPaths.NONE : ignored, 0));
        } catch (RuntimeException | StackOverflowError e) {
            return Optional.of("The built-in guard could not check this command (" + e.getClass().getSimpleName()
                    + "), so it is refused." + ASK);
        }
    }

    private static String check(ParsedCommand parsed, IgnoredPaths ignored, int depth) {
        List<SimpleCommand> commands = parsed.commands();
        Boolean findRootsIgnored = null;
        for (SimpleCommand c : commands) {
            if (c.name().literal() && c.baseName().equals("find")) {
                findRootsIgnored = findRootsIgnored(c, ignored);
            }
            String why = command(c, ignored, findRootsIgnored, depth);
            if (why != null) {
                return why;
            }
        }
        Structure.CommandList list = ShellParser.commandList(parsed);
        for (Structure.Pipeline p : list.structure.pipelines) {
            String why = pipeline(list, p, ignored, depth);
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

    private static String command(SimpleCommand c, IgnoredPaths ignored, Boolean findRootsIgnored, int depth) {
        for (Redirect r : c.redirects()) {
            if (r.writes() && r.target().literal() && DISK.matcher(r.target().value()).find()) {
                return refuse(c, "it writes to the disk device " + r.target().value());
            }
        }
        String base;
        if (c.name().literal()) {
            base = c.baseName();
        } else {
            if (mentionsDownload(c.name().value(), depth)) {
                return refuse(c, "it runs the output of a download as a command");
            }
            base = resolveComputed(c.name().value());
        }
        String sql = sql(c, base);
        if (sql != null) {
            return sql;
        }
        if (base == null) {
            return null;
        }
        List<Word> args = c.args();
        if (base.startsWith("mkfs") || base.equals("mke2fs") || base.equals("mkswap")) {
            return refuse(c, "it formats a file system");
        }
        switch (base) {
            case "rm":
                return rm(c, ignored, findRootsIgnored);
            case "find":
                return find(c, ignored);
            case "git":
                return git(c);
            case "dd":
                for (Word a : args) {
                    if (a.literal() && a.value().startsWith("of=/dev/") && !SAFE_DEVICES.contains(a.value().substring(3))) {
                        return refuse(c, "it writes to the device " + a.value().substring(3));
                    }
                }
                return null;
            case "tee", "cp", "shred", "wipefs":
                // cp writes to its last argument only; the others write to every one
                for (int k = base.equals("cp") ? args.size() - 1 : 0; k >= 0 && k < args.size(); k++) {
                    Word a = args.get(k);
                    if (a.literal() && DISK.matcher(a.value()).find()) {
                        return refuse(c, "it writes to the disk device " + a.value());
                    }
                }
                return null;
            case "chmod":
                for (Word a : args) {
                    if (a.literal() && !a.value().startsWith("-")) {
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
                return codeRunner(c, base, ignored, depth);
        }
    }

    // ---- deletion

    private static String rm(SimpleCommand c, IgnoredPaths ignored, Boolean findRootsIgnored) {
        boolean recursive = false;
        boolean force = false;
        boolean dashes = false;
        List<Word> paths = new ArrayList<>();
        for (Word a : c.args()) {
            String v = a.value();
            if (!a.literal() || dashes || !v.startsWith("-") || v.equals("-")) {
                paths.add(a);
            } else if (v.equals("--")) {
                dashes = true;
            } else if (v.startsWith("--")) {
                recursive |= v.equals("--recursive");
                force |= v.equals("--force");
            } else {
                recursive |= v.indexOf('r') > 0 || v.indexOf('R') > 0;
                force |= v.indexOf('f') > 0;
            }
        }
        for (String w : c.wrappers()) {
            if (w.equals("xargs")) {
                return refuse(c, "it deletes the paths xargs reads from its input, which cannot be checked");
            }
            if (w.startsWith("find ")) {
                // the paths are find's placeholders: what counts is where find looks
                return Boolean.TRUE.equals(findRootsIgnored) ? null
                        : refuse(c, "it deletes what find finds outside git-ignored build output");
            }
        }
        if (!recursive && !force) {
            return null;
        }
        for (Word p : paths) {
            if (p.literal() && (p.value().equals("/") || p.value().startsWith("~") || p.value().equals("/*"))) {
                return refuse(c, "it deletes " + (p.value().startsWith("~") ? "the home directory" : "the root directory"));
            }
        }
        for (Word p : paths) {
            if (!deletable(p, ignored)) {
                return refuse(c, "it deletes " + (recursive ? "recursively" : "by force")
                        + " outside git-ignored build output (" + ShellText.abbreviate(p.value(), 60) + ")");
            }
        }
        return null;
    }

    private static String find(SimpleCommand c, IgnoredPaths ignored) {
        for (Word a : c.args()) {
            if (a.literal() && a.value().equals("-delete")) {
                return findRootsIgnored(c, ignored) ? null
                        : refuse(c, "it deletes what find finds outside git-ignored build output");
            }
        }
        return null;
    }

    /** True when find's starting points are all literal, git-ignored paths in the workspace. */
    private static boolean findRootsIgnored(SimpleCommand c, IgnoredPaths ignored) {
        List<Word> args = c.args();
        int j = 0;
        while (j < args.size() && args.get(j).literal() && Set.of("-H", "-L", "-P").contains(args.get(j).value())) {
            j++;
        }
        int roots = 0;
        for (; j < args.size(); j++) {
            Word a = args.get(j);
            if (a.literal() && (a.value().startsWith("-") || a.value().equals("(") || a.value().equals("!"))) {
                break;
            }
            if (!deletable(a, ignored)) {
                return false;
            }
            roots++;
        }
        return roots > 0;
    }

    /** True when a deletion of this path only removes git-ignored files inside the workspace. */
    static boolean deletable(Word path, IgnoredPaths ignored) {
        if (!path.literal() || path.value().isEmpty() || path.value().startsWith("~")) {
            return false;
        }
        List<String> expanded = new ArrayList<>();
        if (!braces(path.value(), expanded, 0)) {
            return false;
        }
        for (String e : expanded) {
            String p = e;
            int glob = firstGlob(e);
            if (glob >= 0) {
                int slash = e.lastIndexOf('/', glob);
                if (slash <= 0) {
                    return false;
                }
                p = e.substring(0, slash);
            }
            String normalized = normalize(p);
            if (normalized == null || !ignored.ignoredInsideWorkspace(normalized)) {
                return false;
            }
        }
        return true;
    }

    private static int firstGlob(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '*' || c == '?' || c == '[') {
                return i;
            }
        }
        return -1;
    }

    /** {@code a/./b/../c} as {@code a/c}; null for the root, the workspace root, or a path above it. */
    static String normalize(String p) {
        boolean absolute = p.startsWith("/");
        List<String> parts = new ArrayList<>();
        for (String part : p.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (parts.isEmpty()) {
                    return null;
                }
                parts.remove(parts.size() - 1);
            } else {
                parts.add(part);
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        return (absolute ? "/" : "") + String.join("/", parts);
    }

    /** Brace expansion ({@code {a,b}}); false when it would give more than 64 words. */
    private static boolean braces(String s, List<String> out, int level) {
        int open = -1;
        int depth = 0;
        int comma = -1;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{') {
                if (depth++ == 0) {
                    open = i;
                    comma = -1;
                }
            } else if (c == '}' && depth > 0) {
                if (--depth == 0 && comma > 0) {
                    List<String> alternatives = new ArrayList<>();
                    int d = 0;
                    int from = open + 1;
                    for (int k = open + 1; k < i; k++) {
                        char ch = s.charAt(k);
                        if (ch == '{') {
                            d++;
                        } else if (ch == '}') {
                            d--;
                        } else if (ch == ',' && d == 0) {
                            alternatives.add(s.substring(from, k));
                            from = k + 1;
                        }
                    }
                    alternatives.add(s.substring(from, i));
                    String prefix = s.substring(0, open);
                    String suffix = s.substring(i + 1);
                    for (String alt : alternatives) {
                        if (level > 8 || out.size() > 64 || !braces(prefix + alt + suffix, out, level + 1)) {
                            return false;
                        }
                    }
                    return out.size() <= 64;
                }
            } else if (c == ',' && depth == 1) {
                comma = i;
            }
        }
        out.add(s);
        return out.size() <= 64;
    }

    // ---- git

    private static String git(SimpleCommand c) {
        List<Word> args = c.args();
        int j = 0;
        while (j < args.size() && args.get(j).literal() && args.get(j).value().startsWith("-")) {
            String v = args.get(j).value();
            boolean takesValue = Set.of("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                    "--exec-path", "--super-prefix").contains(v) && !v.contains("=");
            j += takesValue ? 2 : 1;
        }
        if (j >= args.size() || !args.get(j).literal()) {
            return null;
        }
        String sub = args.get(j).value();
        List<Word> rest = args.subList(j + 1, args.size());
        switch (sub) {
            case "reset":
                return has(rest, "--hard") ? refuse(c, "it discards uncommitted changes") : null;
            case "clean": {
                boolean force = has(rest, "--force") || cluster(rest, 'f');
                boolean dryRun = has(rest, "--dry-run") || cluster(rest, 'n');
                return force && !dryRun ? refuse(c, "it deletes untracked files") : null;
            }
            case "checkout":
                return everything(pathspecs(rest, Set.of("-b", "-B", "--orphan", "--conflict", "--pathspec-from-file")))
                        ? refuse(c, "it discards uncommitted changes in every file") : null;
            case "restore": {
                boolean staged = has(rest, "--staged") || cluster(rest, 'S');
                boolean worktree = has(rest, "--worktree") || cluster(rest, 'W');
                if (staged && !worktree) {
                    return null;
                }
                return everything(pathspecs(rest, Set.of("-s", "--source", "--pathspec-from-file")))
                        ? refuse(c, "it discards uncommitted changes in every file") : null;
            }
            case "push":
                for (Word a : rest) {
                    String v = a.value();
                    if (!a.literal()) {
                        continue;
                    }
                    if (v.equals("--force") || v.equals("--force-with-lease") || v.startsWith("--force-with-lease=")
                            || v.equals("--mirror")
                            || (ShellText.isShortCluster(v) && v.indexOf('f') > 0) || (v.startsWith("+") && v.length() > 1)) {
                        return refuse(c, "it force-pushes, which can overwrite commits on the remote");
                    }
                }
                return null;
            case "branch": {
                boolean deleteForce = cluster(rest, 'D');
                boolean delete = has(rest, "--delete") || cluster(rest, 'd');
                boolean force = has(rest, "--force") || cluster(rest, 'f');
                return deleteForce || (delete && force) ? refuse(c, "it deletes a branch even if it is not merged") : null;
            }
            case "stash":
                for (Word a : rest) {
                    if (a.literal() && !a.value().startsWith("-")) {
                        return a.value().equals("drop") || a.value().equals("clear")
                                ? refuse(c, "it deletes stashed changes") : null;
                    }
                }
                return null;
            default:
                return null;
        }
    }

    private static boolean has(List<Word> args, String option) {
        for (Word a : args) {
            if (a.literal() && a.value().equals(option)) {
                return true;
            }
        }
        return false;
    }

    private static boolean cluster(List<Word> args, char option) {
        for (Word a : args) {
            if (a.literal() && a.value().equals("--")) {
                return false;
            }
            if (a.literal() && ShellText.isShortCluster(a.value()) && a.value().indexOf(option) > 0) {
                return true;
            }
        }
        return false;
    }

    private static List<Word> pathspecs(List<Word> args, Set<String> withValue) {
        List<Word> out = new ArrayList<>();
        boolean dashes = false;
        for (int k = 0; k < args.size(); k++) {
            Word a = args.get(k);
            String v = a.value();
            if (!dashes && a.literal() && v.equals("--")) {
                dashes = true;
            } else if (!dashes && a.literal() && v.startsWith("-") && v.length() > 1) {
                if (withValue.contains(v)) {
                    k++;
                }
            } else {
                out.add(a);
            }
        }
        return out;
    }

    private static boolean everything(List<Word> pathspecs) {
        for (Word p : pathspecs) {
            if (p.literal() && Set.of(".", "./", "*", ":/", ":/.", ":/*", ":(top)", "./*").contains(p.value())) {
                return true;
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
        return Expander.SHELLS.contains(base) || INTERPRETER.matcher(base).matches()
                || base.equals("eval") || base.equals("source") || base.equals(".");
    }

    private static String codeRunner(SimpleCommand c, String base, IgnoredPaths ignored, int depth) {
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
        if (Expander.SHELLS.contains(base) && readsStdin(c, base) && depth < MAX_DEPTH) {
            for (Redirect r : c.redirects()) {
                if (r.feedsData() && r.target().literal()) {
                    String why = check(ShellParser.parse(r.target().value()), ignored, depth + 1);
                    if (why != null) {
                        return why;
                    }
                }
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

    // ---- pipelines

    private static String pipeline(Structure.CommandList list, Structure.Pipeline p, IgnoredPaths ignored, int depth) {
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
            if (s + 1 < stages.size() && depth < MAX_DEPTH) {
                String echoed = echoed(list, stage);
                Structure.Stage next = stages.get(s + 1);
                if (echoed != null && next.end() > next.start() && next.start() < list.size()
                        && Expander.SHELLS.contains(list.get(next.start()).baseName())
                        && executesStdin(list.get(next.start()))) {
                    String why = check(ShellParser.parse(echoed), ignored, depth + 1);
                    if (why != null) {
                        return why;
                    }
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

    /**
     * The text a stage made of one {@code echo}/{@code printf} of literal words prints, or of one
     * {@code cat} of a literal here-document or here-string.
     */
    private static String echoed(Structure.CommandList list, Structure.Stage stage) {
        if (stage.end() - stage.start() != 1 || stage.start() >= list.size()) {
            return null;
        }
        SimpleCommand c = list.get(stage.start());
        if (c.name().literal() && c.baseName().equals("cat") && c.args().isEmpty()) {
            for (Redirect r : c.redirects()) {
                if (r.feedsData() && r.target().literal()) {
                    return r.target().value();
                }
            }
            return null;
        }
        if (!c.name().literal() || !(c.baseName().equals("echo") || c.baseName().equals("printf"))) {
            return null;
        }
        List<String> words = new ArrayList<>();
        for (Word a : c.args()) {
            if (!a.literal()) {
                return null;
            }
            if (!(words.isEmpty() && a.value().startsWith("-"))) {
                words.add(a.value());
            }
        }
        if (c.baseName().equals("printf") && !words.isEmpty()) {
            // the format with each %s or %b replaced by the next argument
            StringBuilder b = new StringBuilder();
            String format = words.get(0);
            int next = 1;
            for (int i = 0; i < format.length(); i++) {
                char ch = format.charAt(i);
                if (ch == '%' && i + 1 < format.length() && (format.charAt(i + 1) == 's' || format.charAt(i + 1) == 'b')) {
                    b.append(next < words.size() ? words.get(next++) : "");
                    i++;
                } else {
                    b.append(ch);
                }
            }
            while (next < words.size()) {
                b.append(' ').append(words.get(next++));
            }
            return b.toString().replace("\\n", "\n");
        }
        return String.join(" ", words).replace("\\n", "\n");
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
        if (!Expander.SHELLS.contains(base) && !INTERPRETER.matcher(base).matches()) {
            return false;
        }
        return readsStdin(c, base);
    }

    private static boolean readsStdin(SimpleCommand c, String base) {
        boolean shell = Expander.SHELLS.contains(base);
        String inline = shell ? "c" : base.startsWith("perl") ? "eE" : base.startsWith("python") || base.startsWith("pypy")
                ? "cm" : base.startsWith("ruby") ? "e" : base.startsWith("php") ? "rf" : "ep";
        String withValue = shell ? "oO" : base.startsWith("python") || base.startsWith("pypy") ? "WX" : "rI";
        List<Word> args = c.args();
        for (int k = 0; k < args.size(); k++) {
            Word a = args.get(k);
            String v = a.value();
            if (!a.literal()) {
                continue;
            }
            if (v.equals("-") || v.equals("/dev/stdin") || v.equals("/proc/self/fd/0")) {
                return true;
            }
            if (v.equals("--")) {
                return k + 1 >= args.size() || args.get(k + 1).value().equals("-");
            }
            if (v.startsWith("--")) {
                if (Set.of("--eval", "--print", "--command", "--module", "--run").contains(v.split("=")[0])) {
                    return false;
                }
                continue;
            }
            if ((v.startsWith("-") || (shell && v.startsWith("+"))) && v.length() > 1) {
                if (shell && v.charAt(0) == '-' && v.indexOf('s') > 0) {
                    return true;
                }
                for (int i = 1; i < v.length(); i++) {
                    if (inline.indexOf(v.charAt(i)) >= 0) {
                        return false;
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
            return false; // a script file
        }
        return true;
    }
}
