package dev.quiver.tools.net;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** What the kernel would hand a tool: a real workspace, configuration, the streamed text and a cancel flag. */
final class TestContext implements ToolContext {

    final Map<String, Object> config = new ConcurrentHashMap<>();
    final AtomicBoolean cancelled = new AtomicBoolean();
    private final Workspace workspace;
    private final StringBuilder streamed = new StringBuilder();

    TestContext(Path root) throws IOException {
        this.workspace = new WorkspaceFactoryComponent().open(root);
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public Optional<Object> config(String key) {
        return Optional.ofNullable(config.get(key));
    }

    @Override
    public void stream(String text) {
        synchronized (streamed) {
            streamed.append(text);
        }
    }

    @Override
    public boolean isCancelled() {
        return cancelled.get();
    }

    String streamed() {
        synchronized (streamed) {
            return streamed.toString();
        }
    }
}
