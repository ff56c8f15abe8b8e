package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Shell;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code run_checks}: the project's own check commands ({@link CheckDiscovery}), each run through the
 * {@link Shell} service, so with the same sandbox as {@code bash}; pass or fail per command with its
 * first error lines.
 *
 * <p>A discovered command is not trusted because it was discovered: the call names the target as a
 * {@link Subject.Kind#NAME} subject, which {@code run_checks}' permission rules match, and each command
 * it will run as a {@link Subject.Kind#COMMAND} subject, which the kernel parses and its guard judges
 * as it does {@code bash}'s (a refusal wins over any rule; a secret read is refused, a computed command
 * word asks). Naming the commands needs the workspace, which {@link #subjects(Arguments, Workspace)}
 * receives; a call whose commands were not named that way (or changed since) is refused rather than
 * run unchecked.
 */
@Component(property = {Tool.NAME + "=run_checks", Tool.SET + "=extra", Tool.ACCESS + "=execute"})
public class RunChecksTool implements Tool {

    static final int DEFAULT_TIMEOUT_MS = 300_000;
    static final int MAX_TIMEOUT_MS = 600_000;
    /** Lines of a failing check's output shown, from its first error line. */
    static final int ERROR_LINES = 20;
    private static final int LINE_CHARS = 300;
    private static final int DECLARATIONS_KEPT = 64;
    private static final Pattern ERROR = Pattern.compile("(?i)(\\berrors?\\b|\\bfail(s|ed|ure|ures)?\\b|\\bexception\\b"
            + "|\\bpanic(ked)?\\b|\\bfatal\\b|\\btraceback\\b|\\bassert(ion)?\\b|[\u2716\u2717\u00d7])");

    private static final ToolSpec SPEC = new ToolSpec("run_checks",
            "Run the project's checks (AGENTS.md commands, else package.json scripts, else the mvn, gradle, "
                    + "cargo, go or pytest default): pass/fail per command, first error lines.",
            """
            {"type":"object","properties":{\
            "target":{"type":"string","description":"one check by name, or all (default)"},\
            "timeout":{"type":"integer","description":"ms per command, default 300000, max 600000"}}}""");

    private final Shell shell;
    /** The commands each recent call named, by workspace and target: what the kernel judged. */
    private final Map<String, List<String>> declared = new LinkedHashMap<>();

    @Activate
    public RunChecksTool(@Reference Shell shell) {
        this.shell = shell;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /** Without the workspace, only the target can be named. */
    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.name(target(arguments)));
    }

    /**
     * The target and every command the call will run, found in this workspace. The kernel calls this
     * (when it passes the workspace to subjects) before deciding the call; {@link #call} then runs
     * exactly these commands or refuses.
     */
    @Override
    public List<Subject> subjects(Arguments arguments, Workspace workspace) throws ToolException {
        String target = target(arguments);
        List<Subject> subjects = new ArrayList<>();
        subjects.add(Subject.name(target));
        List<String> commands = new ArrayList<>();
        for (CheckDiscovery.Check check : select(CheckDiscovery.discover(workspace), target)) {
            subjects.add(Subject.command(check.command()));
            commands.add(check.command());
        }
        synchronized (declared) {
            declared.put(key(workspace, target), List.copyOf(commands));
            for (Iterator<String> it = declared.keySet().iterator(); declared.size() > DECLARATIONS_KEPT;) {
                it.next();
                it.remove();
            }
        }
        return subjects;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String target = target(arguments);
        int timeout = arguments.integer("timeout", DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS);
        Workspace workspace = context.workspace();
        CheckDiscovery.Found found = CheckDiscovery.discover(workspace);
        List<CheckDiscovery.Check> checks = select(found, target);
        List<String> commands = checks.stream().map(CheckDiscovery.Check::command).toList();
        List<String> judged;
        synchronized (declared) {
            judged = declared.remove(key(workspace, target));
        }
        if (judged == null) {
            throw new ToolException("run_checks could not have its commands judged by the permission rules (this "
                    + "Quiver does not pass the workspace to Tool.subjects), so it runs nothing. Run them with bash: "
                    + String.join(" ; ", commands));
        }
        if (!judged.equals(commands)) {
            throw new ToolException("The check commands changed after they were approved (" + String.join(" ; ", judged)
                    + " became " + String.join(" ; ", commands) + "), so nothing ran. Call run_checks again.");
        }
        List<String> lines = new ArrayList<>();
        int passed = 0;
        for (CheckDiscovery.Check check : checks) {
            context.stream("$ " + check.command() + "\n");
            Shell.Result result = shell.run(new Shell.Command(check.command(), Duration.ofMillis(timeout)), context);
            String label = check.name().equals(check.command()) ? check.command()
                    : check.name() + ": " + check.command();
            switch (result.end()) {
                case EXITED -> {
                    if (result.exitCode() == 0) {
                        passed++;
                        lines.add("PASS " + label + " (" + duration(result.elapsed()) + ")");
                    } else {
                        lines.add("FAIL " + label + " (exit " + result.exitCode() + note(check, result.exitCode()) + ", "
                                + duration(result.elapsed()) + ")");
                        lines.addAll(firstErrorLines(result.stdout(), result.stderr()));
                    }
                }
                case TIMED_OUT -> {
                    lines.add("TIMED OUT " + label + " (after " + duration(result.elapsed()) + "; killed with every "
                            + "process it started: it did not finish, so its effects are unknown)");
                    lines.addAll(firstErrorLines(result.stdout(), result.stderr()));
                }
                case CANCELLED -> {
                    lines.add("INTERRUPTED " + label + ": killed with every process it started; it did not finish, "
                            + "so its effects are unknown. The checks after it did not run.");
                    throw new ToolException(summary(passed, checks.size(), found.source()) + "\n"
                            + String.join("\n", lines));
                }
                default -> throw new IllegalStateException(result.end().toString());
            }
        }
        return ToolResult.of(summary(passed, checks.size(), found.source()) + "\n" + String.join("\n", lines));
    }

    private static String target(Arguments arguments) throws ToolException {
        String target = arguments.string("target", "all").strip();
        return target.isEmpty() ? "all" : target;
    }

    private static String key(Workspace workspace, String target) {
        return workspace.root() + "\u0000" + target;
    }

    /** The checks a target picks: {@code all} (those meant to run together), or one by name or by command. */
    static List<CheckDiscovery.Check> select(CheckDiscovery.Found found, String target) throws ToolException {
        if (found.checks().isEmpty()) {
            throw new ToolException("No check commands found: no commands in AGENTS.md, no package.json scripts, and no "
                    + "pom.xml, build.gradle, Cargo.toml, go.mod or Python project in the workspace root. Run the "
                    + "project's checks with bash.");
        }
        if (target.equals("all")) {
            List<CheckDiscovery.Check> all = found.checks().stream().filter(CheckDiscovery.Check::inAll).toList();
            if (all.isEmpty()) {
                throw new ToolException("None of the scripts of " + found.source() + " is a check ("
                        + String.join(", ", found.checks().stream().map(CheckDiscovery.Check::name).toList())
                        + "), so all runs nothing. Pick one by name if it checks something.");
            }
            return all;
        }
        for (CheckDiscovery.Check check : found.checks()) {
            if (check.name().equals(target) || check.command().equals(target)) {
                return List.of(check);
            }
        }
        throw new ToolException("No check is called \"" + target + "\". The checks (from " + found.source() + "): "
                + String.join(", ", found.checks().stream().map(CheckDiscovery.Check::name).toList()) + "; or all.");
    }

    private static String summary(int passed, int total, String source) {
        String checks = total == 1 ? "check" : "checks";
        return (passed == total ? "All " + total + " " + checks + " passed" : passed + " of " + total + " " + checks
                + " passed") + " (from " + source + ").";
    }

    private static String note(CheckDiscovery.Check check, int exitCode) {
        if (check.command().equals("pytest") && exitCode == 5) {
            return ": no tests were collected";
        }
        if (exitCode > 128 && exitCode <= 128 + 64) {
            return ": ended by signal " + (exitCode - 128);
        }
        return "";
    }

    /** From the first line that reads like an error, or else the last lines; indented under the check. */
    static List<String> firstErrorLines(String stdout, String stderr) {
        List<String> all = new ArrayList<>();
        stdout.lines().forEach(all::add);
        stderr.lines().forEach(all::add);
        all.removeIf(String::isBlank);
        int start = -1;
        for (int i = 0; i < all.size(); i++) {
            if (ERROR.matcher(all.get(i)).find()) {
                start = i;
                break;
            }
        }
        if (start < 0) {
            start = Math.max(0, all.size() - ERROR_LINES);
        }
        List<String> shown = new ArrayList<>();
        for (String line : all.subList(start, Math.min(all.size(), start + ERROR_LINES))) {
            String cut = line.length() > LINE_CHARS ? line.substring(0, LINE_CHARS) + " ..." : line;
            shown.add("  " + cut.stripTrailing());
        }
        return shown;
    }

    private static String duration(Duration elapsed) {
        long millis = elapsed.toMillis();
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        return seconds / 60 + " min " + seconds % 60 + " s";
    }
}
