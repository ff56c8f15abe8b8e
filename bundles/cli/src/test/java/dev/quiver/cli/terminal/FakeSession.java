package dev.quiver.cli.terminal;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/** A session whose turns are scripted by the test: each prompt takes the next behaviour. */
final class FakeSession implements Session {

    /** What one turn does with its listener; the answer text is the result. */
    interface Turn extends BiFunction<FakeSession, TurnListener, String> {
    }

    final Path workspace;
    final BlockingQueue<Turn> turns = new LinkedBlockingQueue<>();
    final List<String> prompts = new CopyOnWriteArrayList<>();
    final AtomicInteger interrupts = new AtomicInteger();
    final AtomicInteger cancels = new AtomicInteger();
    final List<Runnable> toolListeners = new CopyOnWriteArrayList<>();
    final List<ToolInfo> registered = new CopyOnWriteArrayList<>();
    volatile CountDownLatch cancelled = new CountDownLatch(1);
    /** What interrupting the running call does; null while no call runs. */
    volatile Runnable onInterrupt;
    volatile String model = "openai/test";
    volatile boolean closed;

    FakeSession(Path workspace) {
        this.workspace = workspace;
        for (String name : List.of("bash", "edit_file", "glob", "grep", "read_file", "write_file")) {
            registered.add(tool(name, Optional.of("core"), "dev.quiver.tools.core", true));
        }
        registered.add(tool("git_diff", Optional.of("git"), "dev.quiver.tools.git", true));
        registered.add(tool("remember", Optional.empty(), "org.example.memory", true));
        registered.add(tool("web_fetch", Optional.of("net"), "dev.quiver.tools.net", false));
    }

    static ToolInfo tool(String name, Optional<String> set, String bundle, boolean offered) {
        return new ToolInfo(name, set, "read", Decision.ALLOW, bundle, 100, name, "{}", Optional.empty(), offered);
    }

    /** Removes the tools of a bundle, as when it stops, and tells the listeners. */
    void stopBundle(String bundle) {
        registered.removeIf(tool -> tool.bundle().equals(bundle));
        toolListeners.forEach(Runnable::run);
    }

    static CallOutcome outcome(String tool, CallOutcome.Status status, String output) {
        return new CallOutcome(tool, status, output, 12, new Verdict(Decision.ALLOW, "user", "approved"));
    }

    @Override
    public String id() {
        return "s-test";
    }

    @Override
    public Path workspace() {
        return workspace;
    }

    @Override
    public Optional<String> model() {
        return Optional.ofNullable(model);
    }

    @Override
    public Optional<Object> config(String key) {
        return Optional.empty();
    }

    @Override
    public List<String> warnings() {
        return List.of("Unknown tool sets in 'toolSets' of /w/.quiver/config.json: nope");
    }

    @Override
    public List<String> toolSets() {
        return List.of("core", "git");
    }

    @Override
    public List<ToolInfo> tools() {
        return registered.stream().filter(ToolInfo::offered).toList();
    }

    @Override
    public List<ToolInfo> registered() {
        return new ArrayList<>(registered);
    }

    @Override
    public AutoCloseable onToolsChanged(Runnable listener) {
        toolListeners.add(listener);
        return () -> toolListeners.remove(listener);
    }

    @Override
    public Verdict check(String tool, String argumentsJson) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CallOutcome call(String tool, String argumentsJson, TurnListener listener) {
        calls.add(tool + " " + argumentsJson);
        // read_file as the kernel runs it: a file under the workspace is read, .env is refused
        String path = argumentsJson.replaceAll(".*\"path\":\"([^\"]*)\".*", "$1");
        if (!tool.equals("read_file")) {
            return outcome(tool, CallOutcome.Status.ERROR, "No tool named '" + tool + "' is offered.");
        }
        if (path.equals(".env")) {
            return new CallOutcome(tool, CallOutcome.Status.DENIED, "Refused (secret): .env holds secrets.", 1,
                    new Verdict(Decision.DENY, "secret", ".env holds secrets"));
        }
        try {
            java.util.List<String> lines = java.nio.file.Files.readAllLines(workspace.resolve(path));
            StringBuilder numbered = new StringBuilder();
            for (int i = 0; i < lines.size(); i++) {
                numbered.append(i + 1).append('\t').append(lines.get(i)).append('\n');
            }
            return outcome(tool, CallOutcome.Status.OK, numbered.toString());
        } catch (java.io.IOException e) {
            return outcome(tool, CallOutcome.Status.ERROR, "No such file: " + path);
        }
    }

    /** The direct calls made, as {@code tool arguments}. */
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public TurnResult send(String prompt, TurnListener listener) {
        prompts.add(prompt);
        Turn turn = turns.poll();
        String answer = turn == null ? "" : turn.apply(this, listener);
        return new TurnResult(TurnResult.Status.DONE, answer, List.of(), 1, new Usage(10, 5, Optional.empty()));
    }

    /** Waits until the turn is cancelled (esc), then fails the way the kernel does. */
    String awaitCancel() {
        try {
            cancelled.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new HostException("The turn was cancelled.");
    }

    @Override
    public boolean interruptCalls() {
        interrupts.incrementAndGet();
        Runnable action = onInterrupt;
        if (action == null) {
            return false;
        }
        onInterrupt = null;
        action.run();
        return true;
    }

    @Override
    public void cancelTurn() {
        cancels.incrementAndGet();
        cancelled.countDown();
    }

    @Override
    public void switchModel(String spec) {
        model = spec;
    }

    /** The variant and level /agent and /think set. */
    volatile String agent = "default";
    volatile String thinking = "medium";

    @Override
    public String agent() {
        return agent;
    }

    @Override
    public void switchAgent(String name) {
        if (!dev.quiver.api.host.RunOptions.AGENTS.contains(name)) {
            throw new dev.quiver.api.host.HostException("Unknown agent \"" + name + "\". Available: "
                    + String.join(", ", dev.quiver.api.host.RunOptions.AGENTS) + ".");
        }
        agent = name;
    }

    @Override
    public String thinking() {
        return thinking;
    }

    @Override
    public void switchThinking(String level) {
        if (!dev.quiver.api.host.RunOptions.THINKING.contains(level)) {
            throw new dev.quiver.api.host.HostException("Unknown thinking level \"" + level + "\".");
        }
        thinking = level;
    }

    @Override
    public String compact() {
        return "Nothing to compact.";
    }

    @Override
    public void clear() {
    }

    /** What the undo of the test would restore; each undo records how many turns it was asked for. */
    volatile UndoReport undoReport = new UndoReport(List.of(), List.of(), List.of(), false, 1);
    final List<Integer> undone = new CopyOnWriteArrayList<>();

    @Override
    public UndoReport previewUndo(int turns, boolean force) {
        return undoReport;
    }

    @Override
    public UndoReport undo(int turns, boolean force) {
        undone.add(turns);
        UndoReport report = undoReport;
        return new UndoReport(report.turns(), report.changes(), report.notes(), true, turns);
    }

    @Override
    public void close() {
        closed = true;
        cancelTurn();
    }

    /** A kernel that opens this session. */
    Kernel kernel() {
        FakeSession self = this;
        return new Kernel() {
            @Override
            public Session open(SessionOptions options) {
                return self;
            }

            @Override
            public List<SessionSummary> sessions(Path workspace) {
                return List.of(new SessionSummary("s-test", java.time.Instant.EPOCH, java.time.Instant.EPOCH, 2, "hello"));
            }

            @Override
            public dev.quiver.api.host.WorkspaceTrust workspaceTrust(Path workspace) {
                return new dev.quiver.api.host.WorkspaceTrust(workspace, trusted.contains(workspace) || held.isEmpty(),
                        held);
            }

            @Override
            public Path trust(Path workspace) {
                trusted.add(workspace);
                return workspace;
            }

            @Override
            public boolean revokeTrust(Path workspace) {
                return trusted.remove(workspace);
            }

            @Override
            public List<dev.quiver.api.host.Checkpoint> checkpoints(Path workspace) {
                throw new UnsupportedOperationException();
            }

            @Override
            public UndoReport undo(Path workspace, int turns, boolean force) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<dev.quiver.api.host.TrustedWorkspace> trustedWorkspaces() {
                return trusted.stream().map(p -> new dev.quiver.api.host.TrustedWorkspace(p, java.time.Instant.EPOCH, true))
                        .toList();
            }
        };
    }

    /** What the fake workspace's files ask for while untrusted; empty: nothing to trust. */
    List<String> held = List.of();
    /** The workspaces the fake kernel was told to trust. */
    final List<Path> trusted = new java.util.concurrent.CopyOnWriteArrayList<>();
}
