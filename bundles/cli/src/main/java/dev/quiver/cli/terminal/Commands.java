package dev.quiver.cli.terminal;

import dev.quiver.api.Shell;
import dev.quiver.api.ToolException;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.cli.UndoText;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;

/** The slash commands, the same in the terminal and in line mode. */
public final class Commands {

    /** The platform's service, by name: the terminal keys {@code /bundles}, {@code /install} and {@code /remove} on it. */
    public static final String PLATFORM_SERVICE = "dev.quiver.api.host.Platform";

    private static final Pattern SLASH = Pattern.compile("^/([A-Za-z][\\w-]*)(?:\\s+(.*))?$", Pattern.DOTALL);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneId.systemDefault());

    /**
     * A command and what it does, for {@code /help} and completion.
     *
     * @param name the name without the slash
     * @param usage the arguments it takes
     * @param help one line
     */
    public record Command(String name, String usage, String help) {
    }

    /** Every command, in the order {@code /help} lists them. */
    public static final List<Command> ALL = List.of(
            new Command("tools", "", "the tools offered this turn, of those registered, with their set or origin"),
            new Command("bash", "[stop ID|all]", "background commands; stop one or all"),
            new Command("bundles", "", "the installed bundles: state, origin, tools"),
            new Command("install", "NAME", "install a bundle a catalogue offers; its tools come with the next step"),
            new Command("remove", "NAME", "remove a bundle installed from a catalogue"),
            new Command("model", "[PROVIDER/NAME]", "show the model, or switch it for the following turns"),
            new Command("agent", "[NAME]", "list the agent variants (the current one marked), or switch to one: "
                    + "its tools, step cap and thinking level from the next turn on"),
            new Command("think", "[LEVEL]", "show the thinking level, or set it (off, low, medium, high, max) over "
                    + "the variant's from the next request on"),
            new Command("output", "[N]", "the session's last calls; with N, the whole output of the Nth newest"),
            new Command("compact", "", "compact the conversation now"),
            new Command("init", "[FOCUS]", "ask the model to look through the repository and write a first AGENTS.md "
                    + "(the write asks as any other does)"),
            new Command("undo", "[N] [--force]", "restore the files the last N turns (default 1) changed, and rewind "
                    + "the conversation by as many; asks first"),
            new Command("clear", "", "forget the conversation; the next prompt starts a new session"),
            new Command("sessions", "", "the workspace's stored sessions (quiver --resume ID continues one)"),
            new Command("help", "", "keys and commands"),
            new Command("exit", "", "quit"));

    /**
     * A parsed slash command.
     *
     * @param name the name without the slash, lower case
     * @param argument the rest of the line, stripped; empty for none
     */
    public record Parsed(String name, String argument) {
    }

    /**
     * What {@code /init} sends: a turn of its own, so the model reads the repository with its tools and
     * writes the file with {@code write_file} through the ordinary permission chain and approval.
     */
    static final String INIT_PROMPT = "Write a first AGENTS.md at the workspace root: the instructions for coding "
            + "agents working in this repository, which Quiver puts into the system prompt of every session here. "
            + "First look through the repository with your read tools: the README, the build files (pom.xml, "
            + "package.json, Cargo.toml, Makefile, ...), the CI configuration, the layout of the source and test "
            + "folders, and any CLAUDE.md, .cursorrules or .github/copilot-instructions.md. Then write, briefly "
            + "(under 100 lines): how to build, how to run the tests and one test alone, how to lint; the layout and "
            + "architecture that take several files to understand; the conventions the code actually follows. Write "
            + "only what you found evidence of: no invented commands, no generic advice, no secrets or values from "
            + ".env files. If AGENTS.md already exists, read it and improve it with edit_file instead of replacing "
            + "it. Write the file with write_file (or edit_file); the user approves the change.";

    private final Kernel kernel;
    private final Session session;
    private final Services services;
    private final Sink sink;
    private final Approver approver;
    private final Runnable exit;
    private final CallHistory history = new CallHistory();

    public Commands(Kernel kernel, Session session, Services services, Sink sink, Approver approver, Runnable exit) {
        this.kernel = kernel;
        this.session = session;
        this.services = services;
        this.sink = sink;
        this.approver = approver;
        this.exit = exit;
    }

    /**
     * The command a line gives, if it is one: {@code /name} and its argument. A line whose first word
     * has another slash ({@code /etc/hosts is wrong}) is a prompt, not a command.
     */
    public static Optional<Parsed> parse(String line) {
        Matcher m = SLASH.matcher(line.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new Parsed(m.group(1).toLowerCase(java.util.Locale.ROOT),
                m.group(2) == null ? "" : m.group(2).strip()));
    }

    /**
     * The prompt a command sends to the model as a turn instead of running here: {@code /init}'s, with
     * the user's focus added; empty for every other command.
     */
    public static Optional<String> prompt(Parsed command) {
        if (!command.name().equals("init")) {
            return Optional.empty();
        }
        return Optional.of(command.argument().isEmpty() ? INIT_PROMPT
                : INIT_PROMPT + "\n\nThe user adds: " + command.argument());
    }

    /** Runs a command; the output goes to the sink. */
    public void run(Parsed command) {
        try {
            switch (command.name()) {
                case "tools" -> lines(ToolsReport.lines(session.tools(), session.registered()));
                case "bash" -> bash(command.argument());
                case "bundles", "install", "remove" -> platform(command);
                case "model" -> model(command.argument());
                case "agent" -> agent(command.argument());
                case "think" -> think(command.argument());
                case "output" -> output(command.argument());
                case "compact" -> sink.notice(session.compact());
                case "clear" -> {
                    session.clear();
                    sink.notice("conversation cleared; the next prompt starts session " + session.id());
                }
                case "sessions" -> sessions();
                case "undo" -> undo(command.argument());
                case "help" -> help();
                case "exit", "quit" -> exit.run();
                default -> sink.error("unknown command /" + command.name() + "; /help lists them");
            }
        } catch (HostException e) {
            sink.error(e.getMessage());
        } catch (RuntimeException e) {
            sink.error("/" + command.name() + " failed: " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()));
        }
    }

    /** The calls this session's turns finished, newest first: what {@code /output} shows. */
    CallHistory history() {
        return history;
    }

    private void output(String argument) {
        List<CallHistory.Entry> recent = history.recent();
        if (argument.isEmpty()) {
            if (recent.isEmpty()) {
                sink.notice("no call has finished yet");
                return;
            }
            for (int i = 0; i < Math.min(10, recent.size()); i++) {
                CallHistory.Entry entry = recent.get(i);
                sink.line((i + 1) + "  " + entry.outcome().tool() + "  " + CallView.oneLine(entry.summary()) + "  ("
                        + entry.outcome().output().lines().count() + " lines, " + entry.outcome().status().name()
                        .toLowerCase(java.util.Locale.ROOT) + ")");
            }
            sink.notice("/output N shows the Nth call's whole output");
            return;
        }
        int n;
        try {
            n = Integer.parseInt(argument);
        } catch (NumberFormatException e) {
            sink.error("usage: /output, or /output N (1 is the last call)");
            return;
        }
        Optional<CallHistory.Entry> entry = history.get(n);
        if (entry.isEmpty()) {
            sink.error("no call " + n + ": " + recent.size() + " finished call" + (recent.size() == 1 ? " is" : "s are")
                    + " kept (the last " + CallHistory.KEPT + " at most)");
            return;
        }
        sink.line(new AttributedString(entry.get().outcome().tool() + "  " + CallView.oneLine(entry.get().summary()),
                AttributedStyle.BOLD));
        for (String line : entry.get().outcome().output().split("\n", -1)) {
            sink.line("  " + Printable.visible(line));
        }
    }

    private void lines(List<String> lines) {
        for (String line : lines) {
            sink.line(line);
        }
    }

    private void bash(String argument) {
        Optional<Shell> shell = services.shell();
        if (shell.isEmpty()) {
            sink.error("the shell bundle is not running, so there are no background commands");
            return;
        }
        if (argument.isEmpty() || argument.equals("list")) {
            lines(JobsReport.lines(shell.get().jobs()));
            return;
        }
        String[] words = argument.split("\\s+");
        if (!words[0].equals("stop") || words.length != 2) {
            sink.error("usage: /bash, or /bash stop ID|all");
            return;
        }
        List<String> handles = words[1].equals("all")
                ? JobsReport.running(shell.get().jobs()).stream().map(Shell.Job::handle).toList() : List.of(words[1]);
        if (handles.isEmpty()) {
            sink.notice("no background command is running");
        }
        for (String handle : handles) {
            stop(shell.get(), handle);
        }
    }

    /** Stops a background command and says how it ended. */
    void stop(Shell shell, String handle) {
        try {
            Shell.Poll poll = shell.stop(handle);
            Shell.Job job = poll.job();
            sink.notice("stopped " + job.handle() + " (" + CallView.oneLine(job.line()) + ")"
                    + (job.state() == Shell.Job.State.EXITED ? ", which had already exited with " + job.exitCode() : ""));
        } catch (ToolException e) {
            sink.error(e.getMessage());
        }
    }

    private void platform(Parsed command) {
        Optional<Platform> service = services.platform();
        if (service.isEmpty()) {
            sink.error("the platform bundle is not installed: /" + command.name() + " needs its service ("
                    + PLATFORM_SERVICE + ")");
            return;
        }
        Platform platform = service.get();
        String name = command.argument();
        switch (command.name()) {
            case "bundles" -> lines(BundlesReport.lines(platform.bundles()));
            case "install" -> {
                if (name.isEmpty()) {
                    sink.error("usage: /install NAME (a bundle a catalogue offers)");
                    return;
                }
                sink.notice("installing " + name + " ...");
                Platform.BundleInfo installed = platform.install(name);
                sink.notice("installed " + installed.name() + " " + installed.version()
                        + (installed.tools().isEmpty() ? "" : "; tools " + String.join(", ", installed.tools())
                                + " from the next step"));
            }
            default -> {
                if (name.isEmpty()) {
                    sink.error("usage: /remove NAME");
                    return;
                }
                platform.remove(name);
                sink.notice("removed " + name);
            }
        }
    }

    private void model(String argument) {
        if (argument.isEmpty()) {
            sink.line("model " + session.model().orElse("none") + " (/model PROVIDER/NAME switches it)");
            return;
        }
        session.switchModel(argument);
        sink.notice("model " + session.model().orElse(argument) + " from the next turn on");
    }

    private void agent(String argument) {
        if (argument.isEmpty()) {
            for (String name : dev.quiver.api.host.RunOptions.AGENTS) {
                sink.line((name.equals(session.agent()) ? "* " : "  ") + name);
            }
            sink.line("(/agent NAME switches; thinking " + session.thinking() + ")");
            return;
        }
        session.switchAgent(argument);
        sink.notice("agent " + session.agent() + " (thinking " + session.thinking() + ") from the next turn on");
    }

    private void think(String argument) {
        if (argument.isEmpty()) {
            sink.line("thinking " + session.thinking() + " (/think LEVEL sets it: "
                    + String.join(", ", dev.quiver.api.host.RunOptions.THINKING) + ")");
            return;
        }
        session.switchThinking(argument);
        sink.notice("thinking " + session.thinking() + " from the next request on");
    }

    /** Shows what undoing would restore, asks, then undoes and shows what it did. */
    private void undo(String argument) {
        int turns = 1;
        boolean force = false;
        for (String word : argument.split("\\s+")) {
            if (word.equals("--force")) {
                force = true;
            } else if (word.matches("[1-9][0-9]{0,3}")) {
                turns = Integer.parseInt(word);
            } else if (!word.isEmpty()) {
                sink.error("usage: /undo [N] [--force] (N turns, 1 by default)");
                return;
            }
        }
        lines(UndoText.lines(session.previewUndo(turns, force)));
        if (!approver.confirm("Undo " + (turns == 1 ? "the last turn" : "the last " + turns + " turns") + "?")) {
            sink.notice("nothing was undone");
            return;
        }
        lines(UndoText.lines(session.undo(turns, force)));
    }

    private void sessions() {
        List<SessionSummary> sessions = kernel.sessions(session.workspace());
        if (sessions.isEmpty()) {
            sink.line("No stored sessions yet in " + session.workspace() + ".");
            return;
        }
        for (SessionSummary stored : sessions) {
            boolean current = stored.id().equals(session.id());
            sink.line(String.format("%s %-22s %s  %3d prompts  %s", current ? "*" : " ", stored.id(),
                    TIME.format(stored.updated()), stored.prompts(), Printable.line(stored.title())));
        }
        sink.notice("quiver --resume ID continues one; * is this session");
    }

    private void help() {
        sink.line(new AttributedString("Commands", AttributedStyle.BOLD));
        for (Command command : ALL) {
            String name = "/" + command.name() + (command.usage().isEmpty() ? "" : " " + command.usage());
            sink.line(String.format("  %-22s %s", name, command.help()));
        }
        sink.line(new AttributedString("Keys", AttributedStyle.BOLD));
        for (String[] key : KEYS) {
            sink.line(String.format("  %-22s %s", key[0], key[1]));
        }
    }

    /** The keys {@code /help} explains. */
    static final String[][] KEYS = {
        {"enter", "send (while a turn runs: queue it for when the turn ends)"},
        {"alt-enter, \\ enter", "a new line in the prompt (alt-enter, or a backslash at the end)"},
        {"@ + tab", "complete a workspace path"},
        {"up, down, ctrl-r", "history of this workspace"},
        {"esc", "abort the turn and drop the queued prompts"},
        {"ctrl-c", "stop the running command; else the newest background command; else quit"},
        {"ctrl-d", "quit (on an empty line)"},
    };
}
