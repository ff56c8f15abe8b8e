package dev.quiver.api.host;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How a front end wants a session.
 *
 * @param workspace the workspace root
 * @param config a configuration file given on the command line, read before the workspace's and
 *     the user's files; empty for none
 * @param yolo asks become allows (guards and deny rules still refuse)
 * @param interactive whether a person can answer approvals; without one, ask means deny
 * @param readOnly only read and state tools are offered (absent from the request and the prompt alike)
 * @param model the model chosen on the command line as {@code PROVIDER/NAME}; empty to use the
 *     configuration's
 * @param baseUrl the model server chosen on the command line; empty to use the configuration's or
 *     the provider's default
 * @param resume a stored session to continue: its id (or a unique prefix of it), or {@link #LATEST}
 *     for the newest session of the workspace; empty to start a new one
 */
public record SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive,
        boolean readOnly, Optional<String> model, Optional<String> baseUrl, Optional<String> resume) {

    /** {@link #resume()} value that picks the workspace's newest session. */
    public static final String LATEST = "latest";

    public SessionOptions {
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(resume, "resume");
    }

    /** A headless session on a workspace with the configured model and no overrides. */
    public static SessionOptions headless(Path workspace) {
        return new SessionOptions(workspace, Optional.empty(), false, false, false, Optional.empty(), Optional.empty(),
                Optional.empty());
    }
}
