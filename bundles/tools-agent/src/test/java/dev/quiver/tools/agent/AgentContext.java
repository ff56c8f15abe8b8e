package dev.quiver.tools.agent;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** A call's context over a real workspace and state folder, trusted or not, as the kernel gives one. */
class AgentContext implements ToolContext {

    private final Workspace workspace;
    private final Path state;
    private final boolean trusted;

    AgentContext(Path root, Path state, boolean trusted) throws Exception {
        this.workspace = new WorkspaceFactoryComponent().open(root);
        this.state = state;
        this.trusted = trusted;
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public Optional<Object> config(String key) {
        return Optional.empty();
    }

    @Override
    public Map<String, String> environment() {
        return Map.of();
    }

    @Override
    public Optional<Path> stateFolder() {
        return Optional.of(state);
    }

    @Override
    public boolean workspaceTrusted() {
        return trusted;
    }

    @Override
    public void stream(String text) {
    }

    @Override
    public boolean isCancelled() {
        return false;
    }
}
