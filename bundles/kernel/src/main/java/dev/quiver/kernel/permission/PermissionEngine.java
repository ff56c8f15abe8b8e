package dev.quiver.kernel.permission;

import dev.quiver.api.Access;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import dev.quiver.bash.ParsedCommand;
import dev.quiver.bash.Redirect;
import dev.quiver.bash.SimpleCommand;
import dev.quiver.bash.Word;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides a call from its subjects: secrets first, then the tool's rule table (or its defaults),
 * then the session's grants where that would ask. A call with several subjects — every path of a
 * multi-path tool, every simple command of a shell line — gets the strictest of their decisions.
 *
 * <p>A call that names {@link Subject.Kind#NAME} subjects besides its {@link Subject.Kind#COMMAND}
 * subjects ({@code run_checks}: the target, then the commands it will run) is matched by its rule
 * table on the names only. Its commands are not rule subjects of that tool — a table written for
 * target names could never match them — but each is still judged as a shell command apart from the
 * table: a secret it reads is refused, a computed command word, an incomplete parse or a write
 * outside the workspace asks. (The guard judges every command before the engine.)
 */
public final class PermissionEngine {

    public static final String BY_RULE = "rule";
    public static final String BY_DEFAULT = "default";
    public static final String BY_SECRET = "secret";

    /** Commands whose arguments are text they print, never files they open. */
    private static final Set<String> TEXT_ARGUMENTS = Set.of("echo", "printf");
    /** Commands whose last operand is the destination they write (unless a -t option names it). */
    private static final Set<String> COPIES = Set.of("cp", "mv");
    /**
     * -t DIR or -tDIR, in a cluster of short options (-vt DIR, -vtDIR), or the long option in any
     * abbreviation getopt accepts (--t, --target, --target-directory=DIR). Read broadly on purpose: a
     * word taken for a target option only makes every operand count as read.
     */
    private static final Pattern TARGET_OPTION = Pattern.compile("-[a-zA-Z]*t.*|--t.*");

    private static final Set<String> HARMLESS_DEVICES = Set.of("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty",
            "/dev/zero", "/dev/fd/1", "/dev/fd/2");

    private final RuleSet rules;
    private final Workspace workspace;
    private final String home;

    public PermissionEngine(RuleSet rules, Workspace workspace, String home) {
        this.rules = rules;
        this.workspace = workspace;
        this.home = home;
    }

    /** One judged part of a call: a path, a simple command, a URL. */
    private record Part(String text, Decision decision, String by, String reason, Optional<Rule> rule, boolean grantable,
            boolean unjudgeable) {

        Part(String text, Decision decision, String by, String reason, Optional<Rule> rule, boolean grantable) {
            this(text, decision, by, reason, rule, grantable, false);
        }

        /** A part whose meaning depends on run-time values: it asks, and nothing but the user can allow it. */
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
                        table, fallback, !rulesOnNames));
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
        if (table) {
            List<Rule> matched = rules.matches(tool, texts);
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
        return decideText(tool, relative, expandHome(texts), table, fallback);
    }

    /**
     * The parts of one shell line: each simple command against the table (when {@code ruled}), and
     * what no rule can allow — secrets, computed command words, writes outside the workspace, an
     * incomplete parse.
     */
    private List<Part> shell(String tool, ParsedCommand parsed, boolean table, Fallback fallback, boolean ruled) {
        List<Part> parts = new ArrayList<>();
        if (parsed == null) {
            parts.add(Part.unjudgeable("?", "the command could not be read, so it cannot be judged."));
            return parts;
        }
        for (SimpleCommand command : parsed.commands()) {
            String text = command.text();
            Optional<String> secret = secretIn(command);
            if (secret.isPresent()) {
                parts.add(new Part(text, Decision.DENY, BY_SECRET, "it reads " + secret.get() + ", which holds secrets by "
                        + "its name; that is refused. Ask the user for the value you need.", Optional.empty(), false));
                continue;
            }
            if (command.computedName()) {
                String why = "its command word is computed at run time (" + shorten(command.name().value())
                        + "), so it cannot be judged.";
                parts.add(fallback.decision() == Decision.DENY
                        ? new Part(text, Decision.DENY, BY_DEFAULT, why, Optional.empty(), false)
                        : Part.unjudgeable(text, why));
                continue;
            }
            if (ruled) {
                parts.add(decideText(tool, text, List.of(text), table, fallback));
            }
            for (Redirect redirect : command.redirects()) {
                if (writes(redirect) && !insideWorkspace(redirect.target())) {
                    parts.add(new Part(text, Decision.ASK, BY_DEFAULT, "it writes to " + shorten(redirect.target().value())
                            + ", outside the workspace; that needs approval.", Optional.empty(), false));
                }
            }
        }
        if (!parsed.complete()) {
            parts.add(Part.unjudgeable(shorten(parsed.source()),
                    "the command could not be parsed completely, so it cannot be judged."));
        }
        if (parts.isEmpty() && ruled) {
            parts.add(decideText(tool, parsed.source().strip(), List.of(parsed.source().strip()), table, fallback));
        }
        return parts;
    }

    private Part plain(String tool, String value, boolean table, Fallback fallback) {
        return decideText(tool, value, List.of(value), table, fallback);
    }

    /**
     * The secret file a command reads, if any: any of its arguments (or an option's value) that names
     * one, or a file it redirects its input from. Not counted, because nothing is read from them:
     * the arguments of {@code echo} and {@code printf} (text), the destination of {@code cp} and
     * {@code mv} (written), and the targets of output redirections and here-strings.
     */
    private Optional<String> secretIn(SimpleCommand command) {
        List<Word> words = new ArrayList<>(readArguments(command));
        for (Redirect redirect : command.redirects()) {
            if (redirect.operator().equals("<") || redirect.operator().equals("<>")) {
                words.add(redirect.target());
            }
        }
        for (Word word : words) {
            if (!word.literal() || word.value().isEmpty()) {
                continue;
            }
            // an option's value (--env-file=.env) names a file as well
            String value = word.value();
            int equals = value.indexOf('=');
            List<String> candidates = value.startsWith("-")
                    ? (equals > 0 ? List.of(value.substring(equals + 1)) : List.of())
                    : (equals > 0 ? List.of(value, value.substring(equals + 1)) : List.of(value));
            for (String candidate : candidates) {
                try {
                    if (!candidate.isEmpty() && workspace.isSecret(Path.of(candidate))) {
                        return Optional.of(candidate);
                    }
                } catch (java.nio.file.InvalidPathException notAPath) {
                    // a word that is no path names no secret
                }
            }
        }
        return Optional.empty();
    }

    /** The arguments of a command that may name a file it reads (see {@link #secretIn}). */
    private static List<Word> readArguments(SimpleCommand command) {
        String name = command.computedName() ? "" : command.baseName();
        List<Word> args = command.args();
        if (TEXT_ARGUMENTS.contains(name)) {
            return List.of();
        }
        if (COPIES.contains(name) && args.size() >= 2) {
            boolean targetOption = args.stream().anyMatch(word -> TARGET_OPTION.matcher(word.value()).matches());
            Word last = args.get(args.size() - 1);
            if (!targetOption && !last.value().startsWith("-")) {
                return args.subList(0, args.size() - 1);
            }
        }
        return args;
    }

    private static boolean writes(Redirect redirect) {
        String op = redirect.operator();
        return op.contains(">") && !op.equals(">&") && !op.equals("<&") || op.equals("&>") || op.equals("&>>");
    }

    private boolean insideWorkspace(Word target) {
        if (!target.literal()) {
            return false;
        }
        String value = target.value();
        if (HARMLESS_DEVICES.contains(value) || value.matches("\\d+|-")) {
            return true;
        }
        // bash expands a leading ~ in a redirection target: ~/x is in the home folder, ~user/x elsewhere
        if ((value.equals("~") || value.startsWith("~/")) && home != null && !home.isEmpty()) {
            value = home + value.substring(1);
        } else if (value.startsWith("~")) {
            return false;
        }
        try {
            workspace.resolve(value);
            return true;
        } catch (ToolException outside) {
            return false;
        }
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
