package dev.quiver.api.host;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One workspace opened by a front end: its configuration, its permission state and its
 * conversation. Not for use by several threads at once, except {@link #tools()}.
 */
@ProviderType
public interface Session extends AutoCloseable {

    /** The workspace root. */
    Path workspace();

    /** The model this session will talk to, as {@code PROVIDER/NAME}; empty when none is configured. */
    Optional<String> model();

    /** Problems found while opening, such as a config file that could not be parsed; for the start-up header. */
    List<String> warnings();

    /** The tool sets that have tools in the registry now, sorted. */
    List<String> toolSets();

    /** The live registry, sorted by name. */
    List<ToolInfo> tools();

    /** The decision for a call, without running anything. */
    Verdict check(String tool, String argumentsJson);

    /**
     * Runs one call through the whole chain. In a session that is not interactive, ask means deny
     * unless the session is in yolo mode.
     */
    CallOutcome call(String tool, String argumentsJson, TurnListener listener);

    /**
     * Sends a prompt to the agent loop and works until the model answers without calls or the
     * step cap is reached.
     *
     * @throws HostException when no model is configured or the model cannot be reached
     */
    TurnResult send(String prompt, TurnListener listener);

    /** Ends the session: cancels running calls. */
    @Override
    void close();
}
