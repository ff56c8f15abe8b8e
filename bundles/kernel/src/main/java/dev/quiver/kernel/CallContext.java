package dev.quiver.kernel;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import java.util.function.Consumer;

/** The {@link ToolContext} of one call. */
final class CallContext implements ToolContext {

    private final Workspace workspace;
    private final java.util.function.Function<String, java.util.Optional<Object>> config;
    private final java.util.function.Supplier<java.util.Map<String, String>> environment;
    private final Consumer<String> output;
    private java.util.function.Supplier<java.util.Optional<java.nio.file.Path>> stateFolder = java.util.Optional::empty;
    private final java.util.function.BiConsumer<String, String> sections;
    private volatile boolean cancelled;
    private final java.util.concurrent.atomic.AtomicInteger subagents = new java.util.concurrent.atomic.AtomicInteger();
    private java.util.function.BooleanSupplier trusted = () -> false;
    private Question asker = (instructions, input) -> {
        throw new dev.quiver.api.ToolException("No model is available to this call.");
    };

    private java.util.function.Function<java.util.List<dev.quiver.api.Subject>, Permission> permissions =
            subjects -> Permission.DENIED;
    private Child child = (label, kind, prompt) -> {
        throw new dev.quiver.api.ToolException("Subagents are not available to this call.");
    };
    private User user = question -> {
        throw new dev.quiver.api.ToolException("No one can answer questions in this session. Decide yourself and "
                + "state the assumption you made.");
    };
    /** Whether the call waits for the person at the front end now. */
    private volatile boolean waitsForUser;
    private Isolated isolated = (label, prompt, keep) -> {
        throw new dev.quiver.api.ToolException("Workers in checkouts of their own are not available to this call.");
    };
    /** What a cancel stops besides the tool: a subagent the call runs. */
    private final java.util.List<Runnable> onCancel = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** How this call's subagent is run. */
    interface Child {
        String run(String label, SubagentKind kind, String prompt) throws dev.quiver.api.ToolException;
    }

    /** How this call's question reaches the person at the front end. */
    interface User {
        java.util.Optional<java.util.List<String>> ask(dev.quiver.api.UserQuestion question)
                throws dev.quiver.api.ToolException;
    }

    /** How this call's worker in a checkout of its own is run. */
    interface Isolated {
        String run(String label, String prompt, boolean keep) throws dev.quiver.api.ToolException;
    }

    /** How this call's question reaches the model. */
    interface Question {
        String ask(String instructions, String input) throws dev.quiver.api.ToolException;
    }

    CallContext(Workspace workspace, java.util.function.Function<String, java.util.Optional<Object>> config,
            java.util.function.Supplier<java.util.Map<String, String>> environment,
            java.util.function.BiConsumer<String, String> sections, Consumer<String> output) {
        this.environment = environment;
        this.sections = sections;
        this.workspace = workspace;
        this.config = config;
        this.output = output;
    }

    @Override
    public java.util.Optional<Object> config(String key) {
        return config.apply(key);
    }

    @Override
    public java.util.Map<String, String> environment() {
        return environment.get();
    }

    @Override
    public java.util.Optional<java.nio.file.Path> stateFolder() {
        return stateFolder.get();
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public void stream(String text) {
        if (text != null && !text.isEmpty()) {
            try {
                output.accept(text);
            } catch (RuntimeException ignored) {
                // a front end that cannot show output must not fail the tool
            }
        }
    }

    @Override
    public void promptSection(String name, String text) {
        sections.accept(name, text);
    }

    @Override
    public String askModel(String instructions, String input) throws dev.quiver.api.ToolException {
        return asker.ask(instructions, input);
    }

    @Override
    public String runSubagent(String label, SubagentKind kind, String prompt) throws dev.quiver.api.ToolException {
        subagents.incrementAndGet();
        try {
            return child.run(label, kind, prompt);
        } finally {
            subagents.decrementAndGet();
        }
    }

    @Override
    public java.util.Optional<java.util.List<String>> askUser(dev.quiver.api.UserQuestion question)
            throws dev.quiver.api.ToolException {
        waitsForUser = true;
        try {
            return user.ask(question);
        } finally {
            waitsForUser = false;
        }
    }

    @Override
    public String runWorkerInWorktree(String label, String prompt, boolean keep) throws dev.quiver.api.ToolException {
        subagents.incrementAndGet();
        try {
            return isolated.run(label, prompt, keep);
        } finally {
            subagents.decrementAndGet();
        }
    }

    /**
     * Whether the call waits on something that takes as long as it takes: a subagent it runs, or the
     * person answering its question. The call's time limit does not cut it off meanwhile.
     */
    boolean waitsBeyondTimeout() {
        return subagents.get() > 0 || waitsForUser;
    }

    @Override
    public Permission permission(java.util.List<dev.quiver.api.Subject> subjects) {
        return permissions.apply(java.util.List.copyOf(subjects));
    }

    @Override
    public boolean workspaceTrusted() {
        return trusted.getAsBoolean();
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    /** The workspace's state folder, for the tools that keep state across sessions. */
    CallContext withStateFolder(java.util.function.Supplier<java.util.Optional<java.nio.file.Path>> folder) {
        this.stateFolder = folder;
        return this;
    }

    /** Whether the user trusts the workspace, asked when a tool asks. */
    CallContext withTrust(java.util.function.BooleanSupplier workspaceTrusted) {
        this.trusted = workspaceTrusted;
        return this;
    }

    /** Where {@link #askModel} goes: the session's model. */
    CallContext withAsker(Question model) {
        this.asker = model;
        return this;
    }

    /** How the session decides this tool's call on other subjects. */
    CallContext withPermissions(java.util.function.Function<java.util.List<dev.quiver.api.Subject>, Permission> decide) {
        this.permissions = decide;
        return this;
    }

    /** Where {@link #askUser} goes. */
    CallContext withUser(User front) {
        this.user = front;
        return this;
    }

    /** Where {@link #runSubagent} goes. */
    CallContext withSubagents(Child runner) {
        this.child = runner;
        return this;
    }

    /** Where {@link #runWorkerInWorktree} goes. */
    CallContext withIsolatedWorkers(Isolated runner) {
        this.isolated = runner;
        return this;
    }

    /** Runs {@code stop} when this call is cancelled, at once if it already is. */
    void onCancel(Runnable stop) {
        onCancel.add(stop);
        if (cancelled) {
            stop.run();
        }
    }

    void cancel() {
        cancelled = true;
        onCancel.forEach(Runnable::run);
    }
}
