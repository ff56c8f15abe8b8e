package dev.quiver.tools.git;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** What the kernel would hand a tool: a real workspace, a stream collected into a list, a cancel flag. */
final class TestContext implements ToolContext {

    /** Configuration keys as a config file would set them. */
    final java.util.Map<String, Object> config = new java.util.concurrent.ConcurrentHashMap<>();

    private final Workspace workspace;
    final List<String> streamed = Collections.synchronizedList(new ArrayList<>());
    final AtomicBoolean cancelled = new AtomicBoolean();

    TestContext(Path root) throws IOException {
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

    @Override
    public boolean isCancelled() {
        return cancelled.get();
    }

    String streamedText() {
        synchronized (streamed) {
            return String.join("", streamed);
        }
    }
}
