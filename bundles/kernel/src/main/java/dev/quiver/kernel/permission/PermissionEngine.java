package dev.quiver.kernel.permission;

import dev.quiver.api.Access;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import dev.quiver.bash.CommandModel;
import dev.quiver.bash.ParsedCommand;
import dev.quiver.bash.ShellParser;
import dev.quiver.bash.ShellWorkspace;
import dev.quiver.bash.Word;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Decides a call from its subjects: secrets first, then the tool's rule table (or its defaults),
 * then the session's grants where that would ask. A call with several subjects — every path of a
 * multi-path tool, every simple command of a shell line — gets the strictest of their decisions.
 *
 * <p>A call that names {@link Subject.Kind#NAME} subjects besides its {@link Subject.Kind#COMMAND}
 * subjects ({@code run_checks}: the target, then the commands it will run) is matched by its rule
 * table on the names only. Its commands are not rule subjects of that tool — a table written for
 * target names could never match them — but each is still judged as a shell command apart from the
 * table: a secret it reads is refused; a computed command word, an incomplete parse, what cannot be
 * judged before it runs, a privileged command or a change outside the workspace asks. (The guard
 * judges every command before the engine.)
 *
 * <p>A shell command is judged as {@link CommandModel} reads it, the one reading the guard shares:
 * what it reads for the secret check, what it writes and deletes for the workspace's bounds, its
 * normalised text and other spellings for the rules (see {@link #ruleMatches}).
 */
public final class PermissionEngine {

    public static final String BY_RULE = "rule";
    public static final String BY_DEFAULT = "default";
    public static final String BY_SECRET = "secret";

    /** How many shell strings deep (a git alias's code, {@code git rebase -x}) a line's parts are judged. */
    private static final int MAX_NESTING = 4;

    private final RuleSet rules;
    private final Workspace workspace;
    private final String home;
    private final ShellWorkspace shellWorkspace;

    public PermissionEngine(RuleSet rules, Workspace workspace, String home) {
        this.rules = rules;
        this.workspace = workspace;
        this.home = home;
        this.shellWorkspace = new BashWorkspace(workspace, home);
    }

    /** The same rules judging the calls of another workspace (a worker's checkout): its paths are its own. */
    public PermissionEngine over(Workspace other) {
        return new PermissionEngine(rules, other, home);
    }

    /** The workspace as the bash bundle's guard and command model need it. */
    public ShellWorkspace shellWorkspace() {
        return shellWorkspace;
    }

    /** One judged part of a call: a path, a simple command, a URL. */
    private record Part(String text, Decision decision, String by, String reason, Optional<Rule> rule, boolean grantable,
            boolean unjudgeable) {

        Part(String text, Decision decision, String by, String reason, Optional<Rule> rule, boolean grantable) {
            this(text, decision, by, reason, rule, grantable, false);
        }

        /**
         * A part only the user may allow, not a rule and not --yolo: its meaning depends on run-time values,
         * or it runs as another user.
         */
        static Part unjudgeable(String text, String reason) {
            return new Part(text, Decision.ASK, BY_DEFAULT, reason + " No rule and no --yolo can allow it; only the user can.",
                    Optional.empty(), false, true);
        }
    }

    /**
     * Decides a call.
     *
     * @param commands the parsed form of each {@link Subject.Kind#COMMAND} subject, in order
     */
    public Decided decide(String tool, Access access, boolean autoApproved, List<Subject> subjects,
            List<ParsedCommand> commands, Grants grants) {
        return decide(tool, access, false, autoApproved, subjects, commands, grants);
    }

    /**
     * Decides a call.
     *
     * @param publishesPaths whether the call puts the content of its path subjects where it cannot be taken
     *     back (a commit): such a secret path is refused as a read is
     * @param commands the parsed form of each {@link Subject.Kind#COMMAND} subject, in order
     */
    public Decided decide(String tool, Access access, boolean publishesPaths, boolean autoApproved,
            List<Subject> subjects, List<ParsedCommand> commands, Grants grants) {
        boolean table = rules.configures(tool);
        Decision decision = autoApproved ? Decision.ALLOW : defaultDecision(tool, access);
        Fallback fallback = new Fallback(decision, autoApproved
                ? tool + " comes from a trusted bundle that asks for its tools to run unasked."
                : defaultReason(tool, access, decision));
        boolean rulesOnNames = rulesOnNames(subjects);
        List<Part> parts = new ArrayList<>();
        int command = 0;
        for (Subject subject : subjects) {
            switch (subject.kind()) {
                case PATH -> parts.add(path(tool, access == Access.READ, publishesPaths, subject.value(), table,
                        fallback));
                case COMMAND -> parts.addAll(shell(tool, command < commands.size() ? commands.get(command++) : null,
                        table, fallback, !rulesOnNames, 0));
                default -> parts.add(plain(tool, subject.value(), table, fallback));
            }
        }
        if (parts.isEmpty()) {
            parts.add(plain(tool, "*", table, fallback));
        }
        List<Part> granted = new ArrayList<>(parts.size());
        java.util.Set<String> names = names(subjects);
        for (Part part : parts) {
            // a name (git_commit's --amend) is granted only by itself, never by a path's folder pattern
            Optional<String> grant = part.decision() != Decision.ASK || !part.grantable() ? Optional.empty()
                    : names.contains(part.text()) ? grants.exactly(tool, part.text()) : grants.match(tool, part.text());
            granted.add(grant.isPresent()
                    ? new Part(part.text(), Decision.ALLOW, BY_RULE, "allowed for this session by \"" + grant.get() + "\"",
                            Optional.empty(), true)
                    : part);
        }
        Part strictest = granted.get(0);
        for (Part part : granted) {
            // among asks, the one nobody but the user can allow is the reason given
            if (part.decision().ordinal() > strictest.decision().ordinal()
                    || (part.decision() == strictest.decision() && part.unjudgeable() && !strictest.unjudgeable())) {
                strictest = part;
            }
        }
        String reason = granted.size() > 1 && strictest.decision() != Decision.ALLOW
                ? shorten(strictest.text()) + ": " + strictest.reason() : strictest.reason();
        Verdict verdict = new Verdict(strictest.decision(), strictest.by(), reason);
        boolean unjudgeable = verdict.decision() == Decision.ASK && granted.stream().anyMatch(Part::unjudgeable);
        return new Decided(verdict, strictest.rule(), verdict.decision() == Decision.ASK
                ? grant(granted, subjects, rulesOnNames) : List.of(), unjudgeable);
    }

    /** The values of a call's name subjects. */
    private static java.util.Set<String> names(List<Subject> subjects) {
        return subjects.stream().filter(s -> s.kind() == Subject.Kind.NAME).map(Subject::value)
                .collect(java.util.stream.Collectors.toSet());
    }

    /** Whether the rules match a call's names rather than its commands: it names both (see the class comment). */
    private static boolean rulesOnNames(List<Subject> subjects) {
        return subjects.stream().anyMatch(s -> s.kind() == Subject.Kind.NAME)
                && subjects.stream().anyMatch(s -> s.kind() == Subject.Kind.COMMAND);
    }

    private static Decision defaultDecision(String tool, Access access) {
        if (tool.startsWith("mcp__")) {
            return Decision.ASK;
        }
        return access == Access.READ || access == Access.STATE ? Decision.ALLOW : Decision.ASK;
    }

    private static String defaultReason(String tool, Access access, Decision decision) {
        if (tool.startsWith("mcp__")) {
            return tool + " is a tool of an MCP server; those ask by default.";
        }
        String article = access == Access.EXECUTE ? "an " : "a ";
        return decision == Decision.ALLOW
                ? tool + " is " + article + access.id() + " tool; those run without asking by default."
                : tool + " is " + article + access.id() + " tool; those ask by default.";
    }

    /** What a subject gets when no rule matches it, and why. */
    private record Fallback(Decision decision, String reason) {
    }

    private Part decideText(String tool, String text, List<String> texts, boolean table, Fallback fallback) {
        return decide(tool, text, RuleSet.matchingAny(texts), table, fallback);
    }

    /** A subject against the rule table: the strictest rule that {@code matcher} says speaks for it, else the fallback. */
    private Part decide(String tool, String text, Predicate<Rule> matcher, boolean table, Fallback fallback) {
        if (table) {
            List<Rule> matched = rules.matches(tool, matcher);
            if (!matched.isEmpty()) {
                Rule rule = matched.get(0);
                return new Part(text, rule.decision(), BY_RULE, rule.describe(), Optional.of(rule), true);
            }
            // a configured table replaces the defaults: nothing matched, so the tool's default still asks or allows
        }
        return new Part(text, fallback.decision(), BY_DEFAULT, fallback.reason(), Optional.empty(), true);
    }

    private Part path(String tool, boolean reads, boolean publishes, String raw, boolean table, Fallback fallback) {
        Path absolute = absolute(raw);
        String relative = absolute.startsWith(workspace.root()) ? workspace.relativize(absolute) : absolute.toString();
        if (workspace.isSecret(absolute) && (reads || publishes) && !rules.allowsExactly(tool, relative)) {
            String why = reads ? "reading it is refused. Ask the user for the value you need."
                    : "putting it into the repository is refused. If it belongs there, the user can allow exactly "
                            + "this path in their own config: {\"permission\": {\"" + tool + "\": {\"" + relative
                            + "\": \"allow\"}}}.";
            return new Part(relative, Decision.DENY, BY_SECRET, relative + " holds secrets by its name; " + why,
                    Optional.empty(), false);
        }
        List<String> texts = absolute.startsWith(workspace.root()) ? List.of(relative, absolute.toString())
                : List.of(absolute.toString());
        Part part = decideText(tool, relative, expandHome(texts), table, fallback);
        if (workspace.isSecret(absolute)) {
            // "always" for a call is never a decision about a secret it touches (a folder's delete names
            // every file in it; the file may be the only copy of a key): only a rule can allow one unasked
            return new Part(part.text(), part.decision(), part.by(), part.reason(), part.rule(), false,
                    part.unjudgeable());
        }
        return part;
    }

    /**
     * The parts of one shell line, each simple command read once by {@link CommandModel}: against the
     * table (when {@code ruled}), and what no rule can allow — a secret it reads, a computed command
     * word, what cannot be judged before it runs, a privileged command, a change outside the workspace,
     * an incomplete parse. Shell code a command hands on (a git alias) is judged as a line of its own.
     */
    private List<Part> shell(String tool, ParsedCommand parsed, boolean table, Fallback fallback, boolean ruled,
            int nesting) {
        List<Part> parts = new ArrayList<>();
        if (parsed == null) {
            parts.add(Part.unjudgeable("?", "the command could not be read, so it cannot be judged."));
            return parts;
        }
        for (CommandModel model : CommandModel.line(parsed, shellWorkspace)) {
            String text = model.text();
            Optional<String> secret = model.secretRead(shellWorkspace);
            if (secret.isPresent()) {
                parts.add(new Part(text, Decision.DENY, BY_SECRET, "it reads " + secret.get() + ", which holds secrets by "
                        + "its name; that is refused. Ask the user for the value you need.", Optional.empty(), false));
                continue;
            }
            if (model.command().computedName()) {
                String why = "its command word is computed at run time (" + shorten(model.command().name().value())
                        + "), so it cannot be judged.";
                parts.add(fallback.decision() == Decision.DENY
                        ? new Part(text, Decision.DENY, BY_DEFAULT, why, Optional.empty(), false)
                        : Part.unjudgeable(text, why));
                continue;
            }
            if (!model.unjudgeable().isEmpty()) {
                parts.add(Part.unjudgeable(text, String.join("; ", model.unjudgeable()) + ", so it cannot be judged."));
            }
            Part ruledPart = ruled ? command(tool, model, table, fallback) : null;
            if (model.privilege().isPresent() && (ruledPart == null || ruledPart.decision() != Decision.DENY)) {
                ruledPart = Part.unjudgeable(text, "it runs as another user (" + model.privilege().get()
                        + "); do without it, or ask the user to run it.");
            }
            if (ruledPart != null) {
                parts.add(ruledPart);
            }
            for (Word target : model.outside(shellWorkspace)) {
                parts.add(new Part(text, Decision.ASK, BY_DEFAULT, "it writes to or deletes " + shorten(target.value())
                        + ", which may be outside the workspace; that needs approval.", Optional.empty(), false));
            }
            for (Word code : model.shellCode()) {
                if (!code.literal() || nesting >= MAX_NESTING) {
                    parts.add(Part.unjudgeable(text, "it hands the shell code " + shorten(code.value())
                            + " on, which cannot be read here, so it cannot be judged."));
                } else {
                    parts.addAll(shell(tool, ShellParser.parse(code.value()), table, fallback, ruled, nesting + 1));
                }
            }
        }
        for (String why : parsed.unjudgeable()) {
            parts.add(Part.unjudgeable(shorten(parsed.source()), shorten(why) + ": that cannot be judged before it runs."));
        }
        if (parts.isEmpty() && ruled) {
            parts.add(decideText(tool, parsed.source().strip(), List.of(parsed.source().strip()), table, fallback));
        }
        return parts;
    }

    /** A simple command against the rule table. */
    private Part command(String tool, CommandModel model, boolean table, Fallback fallback) {
        return decide(tool, model.text(), rule -> ruleMatches(rule, model), table, fallback);
    }

    /**
     * Whether a rule speaks for a command. A deny or ask rule matches any of its spellings (as written,
     * {@code /usr/bin/git push}, {@code sudo git push}), so none slips past it; an allow rule matches the
     * normalised command alone, and for code given inline or on standard input ({@code python3 -c}) only
     * when the rule names the interpreter ({@code python3 -c *}) or is the tool's whole table ({@code *}):
     * a pattern written for something else ({@code * --version}) never allows code it cannot read.
     */
    static boolean ruleMatches(Rule rule, CommandModel model) {
        String pattern = rule.pattern();
        if (rule.decision() != Decision.ALLOW) {
            return model.spellings().stream().anyMatch(text -> Wildcard.matchesSubject(pattern, text));
        }
        if (!Wildcard.matchesSubject(pattern, model.text())) {
            return false;
        }
        if (!model.runsCode() || pattern.equals("*")) {
            return true;
        }
        int space = pattern.indexOf(' ');
        String first = space < 0 ? pattern : pattern.substring(0, space);
        String word = model.text().split(" ", 2)[0];
        return first.equals(word);
    }

    private Part plain(String tool, String value, boolean table, Fallback fallback) {
        return decideText(tool, value, List.of(value), table, fallback);
    }

    /**
     * What "always allow" grants: one pattern per asked part; nothing when a part could not be judged.
     * A name (a check target) grants itself.
     */
    private static List<String> grant(List<Part> parts, List<Subject> subjects, boolean rulesOnNames) {
        List<String> patterns = new ArrayList<>();
        boolean command = !rulesOnNames && subjects.stream().anyMatch(s -> s.kind() == Subject.Kind.COMMAND);
        // a name beside paths (git_commit's --amend) grants itself, never the folder pattern "*"
        java.util.Set<String> names = names(subjects);
        for (Part part : parts) {
            if (part.decision() == Decision.DENY || (part.decision() == Decision.ASK && !part.grantable())) {
                return List.of();
            }
            if (part.decision() == Decision.ASK) {
                String pattern = rulesOnNames || names.contains(part.text()) ? part.text()
                        : command ? commandPattern(part.text()) : pathPattern(part.text());
                if (!patterns.contains(pattern)) {
                    patterns.add(pattern);
                }
            }
        }
        return patterns;
    }

    /** {@code git status --porcelain} grants {@code git status *}; {@code ls -la} grants {@code ls *}. */
    static String commandPattern(String text) {
        String[] words = text.trim().split(" ");
        if (words.length >= 2 && words[1].matches("[A-Za-z][A-Za-z0-9._:-]*")) {
            return words[0] + " " + words[1] + " *";
        }
        return words[0] + " *";
    }

    /** A path grants its folder: {@code src/a/B.java} grants {@code src/a/*}; a top-level file grants {@code *}. */
    static String pathPattern(String text) {
        if (text.equals("*")) {
            return "*";
        }
        int slash = text.lastIndexOf('/');
        return slash <= 0 ? (text.startsWith("/") ? "/*" : "*") : text.substring(0, slash) + "/*";
    }

    private Path absolute(String raw) {
        try {
            return workspace.resolve(raw);
        } catch (ToolException escapes) {
            try {
                return workspace.root().resolve(raw).normalize();
            } catch (java.nio.file.InvalidPathException invalid) {
                return workspace.root().resolve("?invalid?");
            }
        }
    }

    /** Patterns may start with ~ or $HOME; paths are matched in both spellings. */
    private List<String> expandHome(List<String> texts) {
        if (home == null || home.isEmpty()) {
            return texts;
        }
        List<String> all = new ArrayList<>(texts);
        for (String text : texts) {
            if (text.startsWith(home + "/")) {
                all.add("~" + text.substring(home.length()));
                all.add("$HOME" + text.substring(home.length()));
            }
        }
        return all;
    }

    private static String shorten(String text) {
        String line = text.replace('\n', ' ');
        return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    }
}
