package dev.quiver.api.host;

import java.nio.file.Path;
import java.util.List;
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
 * @param trustWorkspace trust the workspace's configuration for this session only, without recording it
 *     ({@code --trust-workspace}, for a CI job running on its own repository)
 * @param inspectOnly the session only lists tools and checks calls ({@code tools}, {@code check}): it
 *     starts nothing — session listeners hear of it as {@link SessionContext#inspectOnly()}, so the
 *     MCP client starts no server while the catalogues still decide trust as for any session
 * @param mcpConfig files of MCP servers for this session only, in the shape of Claude Code's
 *     {@code .mcp.json} ({@code {"mcpServers": {...}}}), named on the command line
 *     ({@code --mcp-config}): the user's own, so their servers start whether or not the workspace is
 *     trusted; a file that cannot be read stops the session from opening. Since 1.3.
 * @param run what the command line sets for this run: the step cap, allow and deny rules, text added
 *     to the system prompt (since 1.3)
 */
public record SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive,
        boolean readOnly, Optional<String> model, Optional<String> baseUrl, Optional<String> resume,
        boolean trustWorkspace, boolean inspectOnly, List<Path> mcpConfig, RunOptions run) {

    /** {@link #resume()} value that picks the workspace's newest session. */
    public static final String LATEST = "latest";

    public SessionOptions {
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(resume, "resume");
        mcpConfig = List.copyOf(mcpConfig);
        Objects.requireNonNull(run, "run");
    }

    /** Options with {@code --mcp-config} files and nothing else set for the run ({@link RunOptions#DEFAULT}). */
    public SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive, boolean readOnly,
            Optional<String> model, Optional<String> baseUrl, Optional<String> resume, boolean trustWorkspace,
            boolean inspectOnly, List<Path> mcpConfig) {
        this(workspace, config, yolo, interactive, readOnly, model, baseUrl, resume, trustWorkspace, inspectOnly,
                mcpConfig, RunOptions.DEFAULT);
    }

    /** Options with the run's settings and no {@code --mcp-config} files. */
    public SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive, boolean readOnly,
            Optional<String> model, Optional<String> baseUrl, Optional<String> resume, boolean trustWorkspace,
            boolean inspectOnly, RunOptions run) {
        this(workspace, config, yolo, interactive, readOnly, model, baseUrl, resume, trustWorkspace, inspectOnly,
                List.of(), run);
    }

    /** Options without {@code --mcp-config} files or run settings (the canonical constructor of 1.1 and 1.2). */
    public SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive, boolean readOnly,
            Optional<String> model, Optional<String> baseUrl, Optional<String> resume, boolean trustWorkspace,
            boolean inspectOnly) {
        this(workspace, config, yolo, interactive, readOnly, model, baseUrl, resume, trustWorkspace, inspectOnly,
                List.of(), RunOptions.DEFAULT);
    }

    /**
     * These options with another run's settings.
     *
     * @since 1.3
     */
    public SessionOptions withRun(RunOptions replacement) {
        return new SessionOptions(workspace, config, yolo, interactive, readOnly, model, baseUrl, resume, trustWorkspace,
                inspectOnly, mcpConfig, replacement);
    }

    /**
     * These options for a session whose front end can, or cannot, ask the user: everything else kept, so
     * a front end that opens sessions of its own (an MCP client's) loses none of the command line's.
     *
     * @since 1.3
     */
    public SessionOptions withInteractive(boolean asks) {
        return new SessionOptions(workspace, config, yolo, asks, readOnly, model, baseUrl, resume, trustWorkspace,
                inspectOnly, mcpConfig, run);
    }

    /** Options of a session that neither trusts its workspace beyond what is recorded nor only inspects. */
    public SessionOptions(Path workspace, Optional<Path> config, boolean yolo, boolean interactive, boolean readOnly,
            Optional<String> model, Optional<String> baseUrl, Optional<String> resume) {
        this(workspace, config, yolo, interactive, readOnly, model, baseUrl, resume, false, false);
    }

    /** A headless session on a workspace with the configured model and no overrides. */
    public static SessionOptions headless(Path workspace) {
        return new SessionOptions(workspace, Optional.empty(), false, false, false, Optional.empty(), Optional.empty(),
                Optional.empty());
    }
}
