package dev.quiver.bash;

import dev.quiver.bash.Programs.Layout;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * git read as git reads it: its global options ({@code -c}, {@code --config-env}, {@code -C},
 * {@code --git-dir}, {@code --work-tree}, {@code --exec-path}, ...) stop at the subcommand; a word
 * that is no builtin is looked up as an alias (from {@code -c alias.*} on the line, then the config
 * files, see {@link GitConfig}) and expanded, as often as git would; the subcommand's own options are
 * read with its table (GNU-style: unique prefixes, clusters, options after operands).
 */
final class Git {

    /** git's own options before the subcommand: exact names only, as git.c compares them. */
    private static final Getopt GLOBAL = Getopt.strict("C= c= config-env= exec-path=? git-dir= work-tree= "
            + "namespace= super-prefix= p|paginate P|no-pager no-replace-objects bare literal-pathspecs glob-pathspecs "
            + "noglob-pathspecs icase-pathspecs no-optional-locks no-lazy-fetch no-advice list-cmds= attr-source= "
            + "html-path man-path info-path v|version h|help");

    /** A subcommand's table, read as git's parse-options reads it ({@code --no-} forms included). */
    private static Programs.Program program(Layout layout, boolean guarded, String options) {
        return Programs.program(Getopt.git(options), layout, guarded, Set.of(), Set.of());
    }

    private static Programs.Program program(Layout layout, boolean guarded, String options, Set<String> reads,
            Set<String> writes) {
        return Programs.program(Getopt.git(options), layout, guarded, reads, writes);
    }

    private static final Programs.Program UNKNOWN = program(Layout.READS, false, "");

    private static final String LOG_OPTIONS = "p|u|patch s|no-patch n|max-count= skip= since= after= until= before= "
            + "author= committer= grep= S= G= L= format= pretty=? date= decorate=? word-diff=? word-diff-regex= "
            + "color-words=? cc c m stat=? numstat shortstat name-only name-status oneline graph all follow "
            + "patch-with-stat patch-with-raw full-diff raw U|unified= abbrev=? no-merges merges first-parent reverse "
            + "branches=? tags=? remotes=? glob= exclude= encoding= notes=? diff-filter= relative=? output= "
            + "ext-diff textconv M|find-renames=? C|find-copies=? B|break-rewrites=? source walk-reflogs g";

    /**
     * The subcommands Quiver reads closely: their options, whether their operands are files whose
     * content they show (READS) or only names (METADATA), and whether an option decides whether work
     * is discarded (a computed word where an option could stand leaves them unjudgeable).
     */
    private static final Map<String, Programs.Program> SUBCOMMANDS = Map.ofEntries(
            Map.entry("reset", program(Layout.METADATA, true, "q|quiet no-quiet refresh no-refresh p|patch soft "
                    + "mixed hard merge keep recurse-submodules=? no-recurse-submodules N|intent-to-add "
                    + "pathspec-from-file= pathspec-file-nul U|unified= inter-hunk-context=")),
            Map.entry("clean", program(Layout.METADATA, true, "d f|force i|interactive n|dry-run q|quiet "
                    + "e|exclude= x X")),
            Map.entry("checkout", program(Layout.METADATA, true, "q|quiet b= B= orphan= l t|track=? no-track "
                    + "guess no-guess f|force 2|ours 3|theirs m|merge conflict= d|detach p|patch "
                    + "ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore "
                    + "recurse-submodules=? no-recurse-submodules progress no-progress overlay no-overlay "
                    + "pathspec-from-file= pathspec-file-nul")),
            Map.entry("switch", program(Layout.METADATA, true, "c|create= C|force-create= d|detach guess no-guess "
                    + "f|force|discard-changes m|merge conflict= q|quiet progress no-progress t|track=? no-track "
                    + "orphan= ignore-other-worktrees recurse-submodules=? no-recurse-submodules")),
            Map.entry("restore", program(Layout.METADATA, true, "s|source= p|patch W|worktree S|staged q|quiet "
                    + "progress no-progress 2|ours 3|theirs m|merge conflict= ignore-unmerged ignore-skip-worktree-bits "
                    + "recurse-submodules=? no-recurse-submodules overlay no-overlay pathspec-from-file= "
                    + "pathspec-file-nul U|unified= inter-hunk-context=")),
            Map.entry("push", program(Layout.METADATA, true, "all branches mirror d|delete tags n|dry-run porcelain "
                    + "f|force force-with-lease=? no-force-with-lease force-if-includes no-force-if-includes "
                    + "recurse-submodules= no-recurse-submodules verify no-verify u|set-upstream thin no-thin q|quiet "
                    + "v|verbose progress no-progress prune no-prune follow-tags no-follow-tags signed=? no-signed "
                    + "atomic no-atomic o|push-option= receive-pack= exec= 4|ipv4 6|ipv6 repo=")),
            Map.entry("branch", program(Layout.METADATA, true, "d|delete D f|force m|move M c|copy C l|list a|all "
                    + "r|remotes v|verbose q|quiet t|track=? no-track u|set-upstream-to= unset-upstream "
                    + "edit-description contains=? no-contains=? merged=? no-merged=? points-at= sort= format= "
                    + "color=? no-color column=? no-column abbrev=? no-abbrev i|ignore-case omit-empty show-current "
                    + "create-reflog recurse-submodules")),
            Map.entry("stash", program(Layout.READS, true, "p|patch S|staged k|keep-index no-keep-index q|quiet "
                    + "u|include-untracked no-include-untracked a|all m|message= pathspec-from-file= "
                    + "pathspec-file-nul index")),
            Map.entry("update-ref", program(Layout.METADATA, true, "m= d no-deref z stdin create-reflog")),
            Map.entry("reflog", program(Layout.METADATA, true, "expire= expire-unreachable= all single-worktree "
                    + "rewrite updateref stale-fix n|dry-run verbose")),
            Map.entry("gc", program(Layout.METADATA, true, "aggressive auto detach no-detach prune=? no-prune "
                    + "q|quiet force keep-largest-pack cruft no-cruft max-cruft-size= expire-to=")),
            Map.entry("prune", program(Layout.METADATA, true, "n|dry-run v|verbose progress no-progress expire=")),
            Map.entry("worktree", program(Layout.METADATA, true, "f|force b= B= d|detach checkout no-checkout "
                    + "lock reason= q|quiet track no-track guess-remote orphan n|dry-run v|verbose expire= porcelain z")),
            Map.entry("rm", program(Layout.METADATA, true, "f|force n|dry-run r cached ignore-unmatch sparse "
                    + "q|quiet pathspec-from-file= pathspec-file-nul")),
            Map.entry("symbolic-ref", program(Layout.METADATA, true, "d|delete q|quiet short no-recurse recurse m=")),
            Map.entry("filter-branch", program(Layout.READS, true, "")),
            Map.entry("rebase", program(Layout.METADATA, false, "x|exec= i|interactive onto= root autosquash "
                    + "no-autosquash autostash no-autostash r|rebase-merges=? keep-base f|force-rebase no-ff q|quiet "
                    + "v|verbose continue abort skip quit edit-todo m|merge s|strategy= X|strategy-option= update-refs "
                    + "committer-date-is-author-date ignore-date signoff empty= reapply-cherry-picks")),
            Map.entry("commit", program(Layout.READS, false, "F|file= m|message= a|all p|patch C|reuse-message= "
                    + "c|reedit-message= fixup= squash= t|template= s|signoff n|no-verify amend e|edit no-edit "
                    + "author= date= cleanup= u|untracked-files=? v|verbose q|quiet dry-run short porcelain "
                    + "z|null i|include o|only pathspec-from-file= pathspec-file-nul allow-empty allow-empty-message "
                    + "S|gpg-sign=? no-gpg-sign", Set.of("--file", "--template", "--pathspec-from-file"), Set.of())),
            Map.entry("log", program(Layout.METADATA, false, LOG_OPTIONS, Set.of(), Set.of("--output"))),
            Map.entry("whatchanged", program(Layout.METADATA, false, LOG_OPTIONS, Set.of(), Set.of("--output"))),
            Map.entry("shortlog", program(Layout.METADATA, false, "n|numbered s|summary e|email c|committer "
                    + "w= format= group=")),
            Map.entry("status", program(Layout.METADATA, false, "s|short b|branch porcelain=? long v|verbose "
                    + "u|untracked-files=? ignore-submodules=? ignored=? z column=? no-column ahead-behind "
                    + "no-ahead-behind renames no-renames find-renames=?")),
            Map.entry("ls-files", program(Layout.METADATA, false, "")),
            Map.entry("check-ignore", program(Layout.METADATA, false, "")),
            Map.entry("check-attr", program(Layout.METADATA, false, "")),
            Map.entry("mv", program(Layout.METADATA, false, "f|force k n|dry-run v|verbose")),
            Map.entry("fetch", program(Layout.METADATA, true, "upload-pack= f|force p|prune P|prune-tags n|dry-run "
                    + "q|quiet v|verbose all multiple a|append depth= deepen= unshallow t|tags j|jobs= refmap= "
                    + "recurse-submodules=? atomic k|keep u|update-head-ok o|server-option= set-upstream progress")),
            Map.entry("pull", program(Layout.METADATA, true, "upload-pack= r|rebase=? ff ff-only f|force q|quiet "
                    + "v|verbose autostash all depth= t|tags s|strategy= X|strategy-option= commit edit squash")),
            Map.entry("ls-remote", program(Layout.METADATA, true, "upload-pack= exec= h|heads b|branches t|tags refs "
                    + "q|quiet get-url sort= o|server-option= symref")),
            Map.entry("archive", program(Layout.METADATA, true, "remote= exec= o|output= format= prefix= l|list "
                    + "v|verbose worktree-attributes add-file= add-virtual-file=", Set.of(), Set.of("--output"))),
            Map.entry("difftool", program(Layout.METADATA, true, "x|extcmd= t|tool= y|no-prompt prompt g|gui "
                    + "d|dir-diff tool-help trust-exit-code symlinks")),
            Map.entry("read-tree", program(Layout.METADATA, true, "m u reset i trivial aggressive prefix= "
                    + "index-output= n|dry-run v exclude-per-directory= sparse-checkout recurse-submodules=? q")),
            Map.entry("checkout-index", program(Layout.METADATA, true, "a|all f|force n|no-create u|index q|quiet z "
                    + "stdin temp prefix= stage= ignore-skip-worktree-bits")),
            Map.entry("config", program(Layout.METADATA, false, "global system local worktree f|file= blob= add "
                    + "replace-all get get-all get-regexp get-urlmatch unset unset-all l|list e|edit type= bool int "
                    + "bool-or-int path expiry-date null z name-only includes show-origin show-scope default= "
                    + "fixed-value comment= all value= regexp url=")),
            Map.entry("merge", program(Layout.METADATA, false, "m= F|file=", Set.of("--file"), Set.of())),
            Map.entry("tag", program(Layout.METADATA, false, "m= F|file=", Set.of("--file"), Set.of())),
            Map.entry("init", program(Layout.METADATA, false, "")),
            Map.entry("clone", program(Layout.METADATA, true, "u|upload-pack= o|origin= b|branch= depth= c|config= "
                    + "template= reference= separate-git-dir= j|jobs= filter= recurse-submodules=? shallow-since= "
                    + "bare mirror l|local s|shared q|quiet v|verbose n|no-checkout single-branch tags")),
            Map.entry("remote", program(Layout.METADATA, false, "")),
            Map.entry("rev-parse", program(Layout.METADATA, false, "")),
            Map.entry("describe", program(Layout.METADATA, false, "")),
            Map.entry("cherry-pick", program(Layout.METADATA, false, "")),
            Map.entry("revert", program(Layout.METADATA, false, "")),
            Map.entry("submodule", program(Layout.METADATA, false, "f|force q|quiet all recursive")),
            Map.entry("bisect", program(Layout.METADATA, false, "")));

    /** Options whose value is a command git runs through the shell (push, fetch, pull, clone, ls-remote, archive, difftool). */
    private static final Set<String> RUNS = Set.of("--upload-pack", "--receive-pack", "--exec", "--extcmd");

    /**
     * Settings that run a command or decide what git keeps, which {@code git config} must not write and
     * {@code -c} cannot set unasked: editors, pagers, hooks, the fsmonitor, ssh and credential helpers,
     * diff and merge drivers, filters, aliases, includes, a remote's mirror or transport programs, and
     * {@code clean.requireForce}.
     */
    private static final java.util.regex.Pattern RUNS_OR_KEEPS = java.util.regex.Pattern.compile(
            "core\\.(fsmonitor|hookspath|editor|pager|sshcommand|gitproxy|askpass|worktree|alternaterefscommand"
            + "|bare|sharedrepository)|sequence\\.editor|diff\\.external|.*\\.textconv|diff\\..*\\.command"
            + "|merge\\..*\\.driver|mergetool\\..*|difftool\\..*|filter\\..*|alias\\..*|credential(\\..*)?\\.helper"
            + "|remote\\..*\\.(mirror|uploadpack|receivepack|proxy|vcs)|clean\\.requireforce|pager\\..*"
            + "|gpg(\\..*)?\\.program|include\\.path|includeif\\..*|uploadpack\\..*|receive\\..*|url\\..*"
            + "|protocol\\..*|ssh\\.variant|web\\.browser|browser\\..*|man\\..*\\.cmd|core\\.logallrefupdates"
            + "|gc\\.(.*\\.)?(reflogexpire|reflogexpireunreachable|pruneexpire|worktreepruneexpire)"
            + "|submodule\\..*\\.update|instaweb\\..*|interactive\\.difffilter",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /** Whether {@code git config} writing this key could run a command or make git discard work. */
    static boolean runsOrKeeps(String key) {
        return RUNS_OR_KEEPS.matcher(key).matches();
    }

    /** git log's options that show file contents (a patch); without them a path is only a filter. */
    private static final Set<String> PATCH = Set.of("--patch", "--word-diff", "--word-diff-regex", "--color-words",
            "--cc", "-c", "--patch-with-stat", "--patch-with-raw", "-L");

    /** Every command git has (git help -a), so that any other word is an alias or an external command. */
    static final Set<String> BUILTINS = Set.of("add", "am", "annotate", "apply", "archimport", "archive", "backfill",
            "bisect", "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore",
            "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean",
            "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential",
            "credential-cache", "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe",
            "diagnose", "diff", "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool", "fast-export",
            "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo",
            "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui",
            "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init",
            "init-db", "instaweb", "interpret-trailers", "last-modified", "log", "ls-files", "ls-remote", "ls-tree",
            "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-octopus",
            "merge-one-file", "merge-ours", "merge-recursive", "merge-resolve", "merge-subtree", "merge-tree",
            "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects",
            "pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport",
            "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs", "remote", "remote-ext", "remote-fd",
            "repack", "replace", "replay", "repo", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse",
            "revert", "rm", "scalar", "send-email", "send-pack", "sh-i18n--envsubst", "shortlog", "show", "show-branch",
            "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule",
            "subtree", "svn", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index",
            "update-ref", "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit", "verify-pack",
            "verify-tag", "version", "web--browse", "whatchanged", "worktree", "write-tree");

    /** Well-known {@code git-*} programs: subcommands that are no alias, judged by the rules like any program. */
    static final Set<String> EXTERNAL = Set.of("lfs", "flow", "absorb", "annex", "crypt", "secret", "town", "machete",
            "branchless", "filter-repo", "review", "extras", "delete-merged-branches", "sizer", "credential-manager",
            "credential-osxkeychain", "credential-libsecret", "trim", "gone", "publish", "cliff", "cola", "imerge");

    /** {@code -c} settings that neither run anything nor change what git keeps: read aloud, they are inert. */
    private static final Set<String> INERT = Set.of("user.name", "user.email", "author.name", "author.email",
            "committer.name", "committer.email", "core.quotepath", "core.autocrlf", "core.safecrlf", "core.abbrev",
            "core.ignorecase", "core.filemode", "init.defaultbranch", "pull.rebase", "pull.ff", "merge.ff",
            "merge.conflictstyle", "log.showsignature", "log.decorate", "log.date", "log.follow", "format.pretty",
            "diff.renames", "diff.algorithm", "diff.noprefix", "diff.mnemonicprefix", "diff.colormoved", "status.short",
            "status.branch", "status.showuntrackedfiles", "column.ui", "commit.gpgsign", "tag.gpgsign", "fetch.prune",
            "rebase.autostash", "rebase.autosquash", "protocol.version", "safe.directory", "gc.auto", "maintenance.auto",
            "i18n.logoutputencoding", "i18n.commitencoding", "push.autosetupremote", "push.default", "branch.sort",
            "tag.sort", "versionsort.suffix", "feature.manyfiles", "index.threads", "pack.threads", "credential.interactive");
    private static final Set<String> INERT_SECTIONS = Set.of("color", "advice");
    private static final Set<String> PAGERS = Set.of("cat", "less", "more", "less -r", "less -R", "less -FRX", "");

    private Git() {
    }

    /** Reads git's words (after the command word) into the model. */
    static void read(CommandModel.Builder b, List<Word> args, ShellWorkspace where) {
        List<Word> words = args;
        List<String[]> settings = new ArrayList<>();
        ConfigAliases configured = new ConfigAliases(where);
        for (int depth = 0; depth <= GitConfig.MAX_DEPTH; depth++) {
            Getopt.Read globals = GLOBAL.read(words, 0);
            if (!globals.computed().isEmpty()) {
                b.unjudgeable("git's options hold a computed word (" + ShellText.abbreviate(globals.computed().get(0).value(),
                        40) + "), which could define an alias or choose the subcommand");
            }
            for (CommandModel.Option o : globals.options()) {
                global(b, o, settings);
            }
            List<Word> rest = globals.operands();
            if (rest.isEmpty()) {
                b.text(List.of());
                return;
            }
            Word sub = rest.get(0);
            List<Word> after = rest.subList(1, rest.size());
            if (!sub.literal()) {
                b.unjudgeable("git's subcommand is computed at run time (" + ShellText.abbreviate(sub.value(), 40) + ")");
                b.text(CommandModel.Builder.values(rest));
                return;
            }
            String name = sub.value();
            if (BUILTINS.contains(name)) {
                subcommand(b, name, after);
                return;
            }
            String alias = alias(name, settings, configured);
            if (alias == null) {
                if (!EXTERNAL.contains(name)) {
                    b.unjudgeable("git " + name + " is no git command and no git config file Quiver reads defines it as "
                            + "an alias; it could be an alias from elsewhere (GIT_CONFIG_* variables, a file included "
                            + "under a condition) or a git-" + name + " program, and run anything");
                }
                subcommand(b, name, after);
                return;
            }
            if (alias.startsWith("!")) {
                // git runs it with sh -c, its arguments appended
                StringBuilder code = new StringBuilder(alias.substring(1));
                boolean literal = true;
                for (Word w : after) {
                    code.append(' ').append(w.literal() ? "'" + w.value().replace("'", "'\\''") + "'" : w.value());
                    literal &= w.literal();
                }
                b.shellCode(new Word(code.toString(), literal));
                b.subcommand(name);
                b.operands(after);
                b.text(CommandModel.Builder.values(rest));
                return;
            }
            List<String> expanded = splitCommandLine(alias);
            if (expanded == null || expanded.isEmpty()) {
                b.unjudgeable("git " + name + " is an alias git cannot split (" + ShellText.abbreviate(alias, 40) + ")");
                b.text(CommandModel.Builder.values(rest));
                return;
            }
            List<Word> next = new ArrayList<>();
            expanded.forEach(w -> next.add(Word.literal(w)));
            next.addAll(after);
            words = next;
        }
        b.unjudgeable("git's aliases nest more than " + GitConfig.MAX_DEPTH + " deep");
    }

    private static void global(CommandModel.Builder b, CommandModel.Option o, List<String[]> settings) {
        Word value = o.value();
        switch (o.name()) {
            case "-c", "--config-env" -> setting(b, "git " + o.name(), value, settings);
            case "--exec-path" -> {
                if (value != null) {
                    b.unjudgeable("git --exec-path runs git's commands from another folder");
                }
            }
            case "-C" -> b.folder(value);
            case "--git-dir", "--work-tree" -> b.folder(null);
            default -> {
                // the others change what git prints or how it looks, not what it does to files
            }
        }
    }

    /**
     * A {@code key=value} setting given on the line ({@code -c}, {@code --config-env}, {@code clone --config}):
     * unjudgeable unless it is inert. Recorded in {@code settings} (when given) for the aliases it defines.
     */
    private static void setting(CommandModel.Builder b, String how, Word value, List<String[]> settings) {
        if (value == null || !value.literal()) {
            b.unjudgeable(how + " sets a computed setting");
            return;
        }
        int eq = value.value().indexOf('=');
        String key = key(eq < 0 ? value.value() : value.value().substring(0, eq));
        // --config-env takes the value from a variable: known only when the key cannot matter
        String setting = how.endsWith("--config-env") ? null : eq < 0 ? "true" : value.value().substring(eq + 1);
        if (settings != null) {
            settings.add(new String[] {key, setting});
        }
        if (!inert(key, setting)) {
            b.unjudgeable(how + " " + ShellText.abbreviate(value.value(), 60) + (key.startsWith("alias.")
                    ? " defines an alias, which could run anything"
                    : " changes a setting that can run commands or decide what git keeps"));
        }
    }

    /** A setting's name as git compares it: section and key in lower case, a subsection as written. */
    private static String key(String name) {
        int first = name.indexOf('.');
        int last = name.lastIndexOf('.');
        if (first < 0) {
            return name.toLowerCase(Locale.ROOT);
        }
        return name.substring(0, first).toLowerCase(Locale.ROOT) + name.substring(first, last)
                + name.substring(last).toLowerCase(Locale.ROOT);
    }

    private static boolean inert(String key, String value) {
        int dot = key.indexOf('.');
        if (dot > 0 && INERT_SECTIONS.contains(key.substring(0, dot))) {
            return true;
        }
        if (key.equals("core.pager") || key.startsWith("pager.")) {
            return value != null && (PAGERS.contains(value) || value.equals("false") || value.equals("true"));
        }
        return INERT.contains(key);
    }

    /** The alias a word names: from {@code -c} on the line (the last wins), else from the config files. */
    private static String alias(String name, List<String[]> settings, ConfigAliases configured) {
        String key = "alias." + name.toLowerCase(Locale.ROOT);
        for (int i = settings.size() - 1; i >= 0; i--) {
            if (settings.get(i)[0].toLowerCase(Locale.ROOT).equals(key)) {
                // --config-env's value is unknown: an alias of any meaning (already unjudgeable)
                return settings.get(i)[1] == null ? "!" : settings.get(i)[1];
            }
        }
        return configured.get().get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * The config files' aliases, read on first need and then kept for the rest of one {@link #read}:
     * reading them means up to {@link GitConfig#MAX_FILES} files from disk, and a nested alias asks again.
     */
    private static final class ConfigAliases {
        private final ShellWorkspace where;
        private Map<String, String> aliases;

        ConfigAliases(ShellWorkspace where) {
            this.where = where;
        }

        Map<String, String> get() {
            if (aliases == null) {
                aliases = GitConfig.aliases(where);
            }
            return aliases;
        }
    }

    private static void subcommand(CommandModel.Builder b, String name, List<Word> after) {
        Programs.Program p = SUBCOMMANDS.getOrDefault(name, UNKNOWN);
        Getopt.Read read = p.options().read(after, 0);
        b.subcommand(name);
        b.options(read.options());
        b.operands(read.operands());
        if (p.guarded() && !read.computed().isEmpty()) {
            b.unjudgeable("git " + name + " has a computed word (" + ShellText.abbreviate(read.computed().get(0).value(), 40)
                    + ") where an option could stand, which could make it discard work");
        }
        boolean patch = read.options().stream().anyMatch(o -> PATCH.contains(o.name()));
        boolean reads = p.layout() == Layout.READS || patch;
        for (CommandModel.Option o : read.options()) {
            if (o.value() == null) {
                continue;
            }
            if ((name.equals("rebase") && o.name().equals("--exec")) || RUNS.contains(o.name())) {
                // a command git runs through the shell: judged as a line, unjudgeable when computed
                b.shellCode(o.value());
            } else if (name.equals("clone") && o.name().equals("--config")) {
                setting(b, "git clone --config", o.value(), null);
            } else if (p.writeValues().contains(o.name())) {
                b.writes(o.value());
            } else if (reads || p.readValues().contains(o.name())) {
                b.reads(o.value());
            }
        }
        if (reads) {
            read.operands().forEach(b::reads);
        }
        List<Word> operands = read.operands();
        if (name.equals("mv") && operands.size() >= 2) {
            // like mv: the sources move (their content goes where the destination is) and are gone
            for (Word source : operands.subList(0, operands.size() - 1)) {
                b.reads(source);
                b.deletes(source);
            }
            b.writes(operands.get(operands.size() - 1));
        }
        shellCommand(b, name, after);
        List<String> text = new ArrayList<>();
        text.add(name);
        text.addAll(CommandModel.Builder.canonical(p.options(), after));
        b.text(text);
    }

    /** {@code git submodule foreach CMD} and {@code git bisect run CMD}: the words after the action, as written, are shell code. */
    private static void shellCommand(CommandModel.Builder b, String name, List<Word> after) {
        String action = name.equals("submodule") ? "foreach" : name.equals("bisect") ? "run" : null;
        int k = 0;
        while (k < after.size() && after.get(k).literal() && after.get(k).value().startsWith("-")) {
            k++;
        }
        if (action == null || k >= after.size() || !after.get(k).literal() || !after.get(k).value().equals(action)) {
            return;
        }
        k++;
        while (action.equals("foreach") && k < after.size() && after.get(k).literal()
                && Set.of("--recursive", "--quiet", "-q").contains(after.get(k).value())) {
            k++;
        }
        StringBuilder code = new StringBuilder();
        boolean literal = true;
        for (Word w : after.subList(k, after.size())) {
            // foreach joins its words into one line for the shell; bisect run keeps them as one argv
            String text = action.equals("run") && w.literal() ? "'" + w.value().replace("'", "'\\''") + "'" : w.value();
            code.append(code.length() > 0 ? " " : "").append(text);
            literal &= w.literal();
        }
        if (code.length() > 0) {
            b.shellCode(new Word(code.toString(), literal));
        }
    }


    /** git's split_cmdline: blanks separate words; single and double quotes and backslashes quote. Null when a quote is open. */
    static List<String> splitCommandLine(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote == 0 && Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                continue;
            }
            inWord = true;
            if (c == '\\' && i + 1 < line.length() && quote != '\'') {
                word.append(line.charAt(++i));
            } else if (quote == 0 && (c == '"' || c == '\'')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            } else {
                word.append(c);
            }
        }
        if (quote != 0) {
            return null;
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
