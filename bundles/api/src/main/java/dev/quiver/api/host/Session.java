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

    /** The session's id; its events are stored under it and {@code --resume ID} continues it. */
    String id();

    /** The workspace root. */
    Path workspace();

    /** The model this session will talk to, as {@code PROVIDER/NAME}; empty when none is configured. */
    Optional<String> model();

    /**
     * A top-level key of the session's configuration, parsed from JSON into maps, lists, strings,
     * numbers and booleans; empty when no config file sets it. Front ends read settings of their own
     * here (the shell's sandbox state for the header, for one).
     */
    Optional<Object> config(String key);

    /** Problems found while opening, such as a config file that could not be parsed; for the start-up header. */
    List<String> warnings();

    /** The tool sets that have tools in the registry now, sorted. */
    List<String> toolSets();

    /** The tools offered now — what the next step sends the model — sorted by name. */
    List<ToolInfo> tools();

    /** Every registered tool, including those the mode or the tool sets withhold, sorted by name. */
    List<ToolInfo> registered();

    /**
     * Calls the listener whenever a tool service comes or goes (a bundle installed, updated or
     * removed). Close the returned handle to stop.
     */
    AutoCloseable onToolsChanged(Runnable listener);

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

    /**
     * Interrupts the tool calls running now (a terminal's ctrl-c): their processes are killed and
     * each call fails saying it did not finish. The turn goes on.
     *
     * @return whether any call was running
     */
    boolean interruptCalls();

    /**
     * Aborts the turn in progress (a terminal's esc): running calls are interrupted and
     * {@link #send} returns as soon as it can, throwing a {@link HostException} that says so.
     */
    void cancelTurn();

    /**
     * Switches the model for the following turns.
     *
     * @param spec {@code PROVIDER/NAME}
     * @throws HostException when the spec is malformed or the provider is not installed
     */
    void switchModel(String spec);

    /**
     * The agent variant the following turns use: one of {@link RunOptions#AGENTS}.
     *
     * @since 1.4
     */
    String agent();

    /**
     * Switches the agent variant for the following turns: its tools, step cap, prompt section and, unless a
     * level was chosen ({@link #switchThinking}, {@code --think}), its thinking level.
     *
     * @throws HostException when the name is none of {@link RunOptions#AGENTS}
     * @since 1.4
     */
    void switchAgent(String name);

    /**
     * The thinking level the following requests ask for: one of {@link RunOptions#THINKING}.
     *
     * @since 1.4
     */
    String thinking();

    /**
     * Sets the thinking level from the next model request on, over the variant's own.
     *
     * @throws HostException when the level is none of {@link RunOptions#THINKING}
     * @since 1.4
     */
    void switchThinking(String level);

    /** Compacts the conversation now, as it would be when it no longer fits; returns what was done. */
    String compact();

    /** Forgets the conversation: the next prompt starts a new stored session. */
    void clear();

    /**
     * What undoing this session's last {@code turns} turns would do, changing nothing: the files they
     * changed and whether each would be restored, and what no undo brings back.
     *
     * @param force restore files changed since by someone else too (they are skipped otherwise)
     * @throws HostException when the session has fewer turns, or its checkpoints are missing or damaged
     * @since 1.2
     */
    UndoReport previewUndo(int turns, boolean force);

    /**
     * Undoes this session's last {@code turns} turns: restores the files any tool or command changed,
     * created or deleted in them as they were before (a file changed since by someone else is skipped
     * and named, unless {@code force}), and rewinds the conversation by as many turns. Checks every
     * stored file it needs before changing any; a damaged store changes nothing.
     *
     * @throws HostException when the session has fewer turns, or its checkpoints are missing or damaged
     * @since 1.2
     */
    UndoReport undo(int turns, boolean force);

    /**
     * Says the session is long-lived and idle: the kernel may now do, in the background, what the first
     * search would otherwise pay for (the workspace's first walk, the first look for secret files,
     * compiling the search's code). A front end calls it when it waits for its first request (a batch,
     * a terminal, an MCP client), never in a one-shot command. Returns at once; calling it again does
     * nothing; a call that arrives meanwhile never waits for it; closing the session stops it.
     * {@code QUIVER_WARMUP=off} turns it off.
     *
     * @since 1.5
     */
    default void warmUp() {
    }

    /** Ends the session: cancels running calls. */
    @Override
    void close();
}
