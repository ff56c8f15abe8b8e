package dev.quiver.cli;

import dev.quiver.api.Shell;
import dev.quiver.api.WorkspaceFactory;
import dev.quiver.api.host.Platform;
import dev.quiver.cli.terminal.Services;
import java.util.Optional;
import java.util.function.Supplier;

/** The terminal's services from the OSGi registry, as the component's dynamic references hold them now. */
final class OsgiServices implements Services {

    private final Supplier<Shell> shell;
    private final Supplier<WorkspaceFactory> workspaces;
    private final Supplier<Platform> platform;

    OsgiServices(Supplier<Shell> shell, Supplier<WorkspaceFactory> workspaces, Supplier<Platform> platform) {
        this.shell = shell;
        this.workspaces = workspaces;
        this.platform = platform;
    }

    @Override
    public Optional<Shell> shell() {
        return Optional.ofNullable(shell.get());
    }

    @Override
    public Optional<WorkspaceFactory> workspaces() {
        return Optional.ofNullable(workspaces.get());
    }

    @Override
    public Optional<Platform> platform() {
        return Optional.ofNullable(platform.get());
    }
}
