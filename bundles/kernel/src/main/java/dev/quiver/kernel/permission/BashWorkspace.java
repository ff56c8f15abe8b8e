package dev.quiver.kernel.permission;

import dev.quiver.api.Workspace;
import dev.quiver.bash.ShellWorkspace;
import java.nio.file.Path;
import java.util.Optional;

/** The session's workspace as the bash bundle's judges need it: the bash bundle imports nothing of Quiver. */
final class BashWorkspace implements ShellWorkspace {

    private final Workspace workspace;
    private final Optional<Path> home;

    BashWorkspace(Workspace workspace, String home) {
        this.workspace = workspace;
        this.home = home == null || home.isEmpty() ? Optional.empty() : Optional.of(Path.of(home));
    }

    @Override
    public Path root() {
        return workspace.root();
    }

    @Override
    public Optional<Path> home() {
        return home;
    }

    @Override
    public boolean isIgnored(Path path) {
        return workspace.isIgnored(path);
    }

    @Override
    public boolean isSecret(Path path) {
        return workspace.isSecret(path);
    }

    @Override
    public Optional<Path> gitDir() {
        return workspace.gitDir();
    }
}
