package dev.quiver.cli.terminal;

import dev.quiver.api.Shell;
import dev.quiver.api.WorkspaceFactory;
import dev.quiver.api.host.Platform;
import java.util.Optional;

/**
 * The services the terminal uses besides the kernel, looked up when used: any of them may come and
 * go while Quiver runs (a bundle stopped, updated or installed).
 */
public interface Services {

    /** The shell service: background commands for {@code /bash} and {@code ctrl-c}, the sandbox state. */
    Optional<Shell> shell();

    /** The workspace service: the files {@code @path} completes. */
    Optional<WorkspaceFactory> workspaces();

    /** The platform's service: {@code /bundles}, {@code /install} and {@code /remove}. */
    Optional<Platform> platform();

    /** No services at all. */
    static Services none() {
        return new Services() {
            @Override
            public Optional<Shell> shell() {
                return Optional.empty();
            }

            @Override
            public Optional<WorkspaceFactory> workspaces() {
                return Optional.empty();
            }

            @Override
            public Optional<Platform> platform() {
                return Optional.empty();
            }
        };
    }
}
