package dev.quiver.workspace;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the kernel would hand a tool, for the tool bundles' tests: a real workspace over a folder, a
 * stream collected into a list, a cancel flag and config keys. Shipped in this bundle's test jar.
 */
public final class ToolTestContext implements ToolContext {

    /** Configuration keys as a config file would set them. */
    public final java.util.Map<String, Object> config = new java.util.concurrent.ConcurrentHashMap<>();

    private final Workspace workspace;
    public final List<String> streamed = Collections.synchronizedList(new ArrayList<>());
    public final AtomicBoolean cancelled = new AtomicBoolean();

    public ToolTestContext(Path root) throws IOException {
        this.workspace = new WorkspaceFactoryComponent().open(root);
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public void stream(String text) {
        streamed.add(text);
    }

    @Override
    public java.util.Optional<Object> config(String key) {
        return java.util.Optional.ofNullable(config.get(key));
    }

    /**
     * This process's environment with an empty folder as {@code HOME}: the developer's own login
     * profile, which commands run with, must not decide whether or how fast a test runs.
     */
    private static final java.util.Map<String, String> ENVIRONMENT = hermetic();

    private static java.util.Map<String, String> hermetic() {
        java.util.Map<String, String> environment = new java.util.HashMap<>(System.getenv());
        try {
            Path home = java.nio.file.Files.createTempDirectory("quiver-test-home-");
            home.toFile().deleteOnExit();
            environment.put("HOME", home.toString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return java.util.Map.copyOf(environment);
    }

    @Override
    public java.util.Map<String, String> environment() {
        return ENVIRONMENT;
    }

    /** How {@link #permission} decides: every subject allowed unless a test says otherwise. */
    public volatile java.util.function.Function<List<dev.quiver.api.Subject>, Permission> permissions =
            subjects -> Permission.ALLOWED;

    /** The subjects {@link #permission} was asked about, in order. */
    public final List<List<dev.quiver.api.Subject>> permissionsAsked = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Permission permission(List<dev.quiver.api.Subject> subjects) {
        permissionsAsked.add(List.copyOf(subjects));
        return permissions.apply(subjects);
    }

    /** What {@link #askModel} answers, from the instructions and the input; null: no model, as in a batch. */
    public volatile java.util.function.BinaryOperator<String> model;

    @Override
    public String askModel(String instructions, String input) throws dev.quiver.api.ToolException {
        java.util.function.BinaryOperator<String> answering = model;
        return answering == null ? ToolContext.super.askModel(instructions, input) : answering.apply(instructions, input);
    }

    @Override
    public boolean isCancelled() {
        return cancelled.get();
    }

    /** Records a file as read by the model, as read_file would. */
    public void read(String path) throws dev.quiver.api.ToolException {
        workspace.reads().read(workspace.resolve(path));
    }

    public String streamedText() {
        synchronized (streamed) {
            return String.join("", streamed);
        }
    }
}
