package dev.quiver.api;

import org.osgi.annotation.versioning.ProviderType;

/** What the kernel hands a tool for one call. Valid only while the call runs. */
@ProviderType
public interface ToolContext {

    /** The workspace of the session: the jail every path goes through. */
    Workspace workspace();

    /**
     * A top-level key of the user's configuration (such as {@code "shell"}), parsed from JSON into
     * maps, lists, strings, numbers and booleans; empty when no config file sets it. A tool reads its
     * own settings here and reports a bad value in its result rather than failing silently.
     */
    java.util.Optional<Object> config(String key);

    /**
     * The environment for a process this call starts: Quiver's own with its secrets removed — the
     * model providers' keys and, by default, every variable whose name contains {@code KEY},
     * {@code SECRET}, {@code TOKEN}, {@code PASSWORD}, {@code PASSWD} or {@code CREDENTIAL} — except
     * the names the user's or the installation's configuration passes through
     * ({@code "shell": {"env": [...]}}). The kernel decides it, once, for every tool; a tool that starts
     * a process passes exactly this map and nothing of its own process's environment.
     */
    java.util.Map<String, String> environment();

    /**
     * A folder outside the working tree, Quiver's own, where a tool keeps what it knows about this
     * workspace across sessions (the agent's notes, say): never in the user's repository, never
     * written by a cloned repository, not visible in the shell's sandbox. It may not exist yet; the
     * tool creates it. Empty where the front end keeps no state (a test, a throw-away context).
     */
    default java.util.Optional<java.nio.file.Path> stateFolder() {
        return java.util.Optional.empty();
    }

    /**
     * Whether the user trusts this workspace ({@code quiver trust}): only then do files the repository
     * brings (its {@code .quiver/notes.md}, its skills) count as the user's. A tool that shows such text
     * to the model frames it as the repository's, untrusted, when this is false.
     *
     * @return false, the default, where the context cannot tell
     * @since 1.7
     */
    default boolean workspaceTrusted() {
        return false;
    }

    /**
     * Streams output to the front end while the call runs (the terminal shows it live;
     * headless and MCP front ends ignore it). It is not part of the result.
     */
    void stream(String text);

    /**
     * Sets a named section of the system prompt for the rest of the session, or removes it when the
     * text is empty. The prompt is rebuilt at every step, so a section set now is seen by the next
     * request — a todo list, for one, survives compaction this way. Sections are shown in name order
     * under their name; each is cut at 4,000 characters. Front ends without a prompt ignore this.
     *
     * @param name a short lower-case name, such as {@code todo}
     * @param text the section's content; empty to remove it
     */
    default void promptSection(String name, String text) {
    }

    /**
     * One answer of the session's model, asked without tools, for a tool whose result the model writes
     * (a commit message from a diff, say). {@code instructions} go as the system message and {@code input}
     * as the user's, both with known secret values replaced as a tool's result is; the session's model
     * answers, and its tokens count in the turn's and the session's usage. Blocks until the answer comes,
     * the call is cancelled or the model fails. The tool keeps {@code input} to what the model needs: it
     * is sent whole.
     *
     * @return the answer's text, stripped, never empty
     * @throws ToolException where the session has no model (a direct call, a batch or an MCP client's
     *     session without {@code --model}), or the model failed or answered nothing; the message says which
     * @since 1.6
     */
    default String askModel(String instructions, String input) throws ToolException {
        throw new ToolException("No model is available to this call.");
    }

    /**
     * What a subagent may hold ({@link ToolContext#runSubagent}).
     *
     * @since 1.7
     */
    enum SubagentKind {
        /** Finds things out: offered the parent's read tools only, so it cannot change or run anything. */
        EXPLORE,
        /** Reviews work and reports findings: offered the parent's read tools only, as {@link #EXPLORE}. */
        REVIEW,
        /**
         * Does work: offered the parent's tools (less those that change the agent's own state), and every
         * call it makes is decided as the parent's own would be.
         */
        WORKER
    }

    /**
     * Runs a subagent to the end and returns its report: a child conversation of its own, started with
     * {@code prompt} alone, on the session's model, with a step cap of its own. The child is offered
     * only what its {@code kind} allows out of what this session offers now — an {@link
     * SubagentKind#EXPLORE explore} or {@link SubagentKind#REVIEW review} child no tool that writes,
     * executes or reaches the network, whatever the configuration — and never a tool that starts
     * another subagent. Each call the child makes goes through this session's own guard, rules, mode and
     * approval, and is audited with {@code label}; its model requests count in the turn's and the
     * session's usage. The kernel streams each child call and its outcome through {@link #stream}.
     * Blocks until the child answers, fails or this call is cancelled (which cancels the child).
     *
     * @param label a short name for the child, shown with its calls and in the audit log
     * @return the child's final answer, capped, after one line saying how it went
     * @throws ToolException where the session has no model, this call is itself a subagent's, or the child
     *     failed, was cancelled or reached its step cap without an answer; the message says which
     * @since 1.7
     */
    default String runSubagent(String label, SubagentKind kind, String prompt) throws ToolException {
        throw new ToolException("Subagents are not available to this call.");
    }

    /**
     * Asks the person at the front end a question and waits for the answer: a picker in the terminal, an
     * elicitation for an MCP client that answers them. Only sessions someone can answer offer the tool
     * that asks; a subagent's call cannot ask. Blocks until the person answers or dismisses it, or the
     * call is cancelled; the call's time limit does not run meanwhile.
     *
     * @return the labels chosen (one unless the question allows several), or the text typed when the
     *     question has no options; empty when the person dismissed the question
     * @throws ToolException where no one can answer (a headless session, a subagent's call, a front end
     *     that cannot ask) or the call was cancelled; the message says which
     * @since 1.8
     */
    default java.util.Optional<java.util.List<String>> askUser(UserQuestion question) throws ToolException {
        throw new ToolException("No one can answer questions in this session. Decide yourself and state the "
                + "assumption you made.");
    }

    /**
     * Runs a {@link SubagentKind#WORKER worker} subagent in a git checkout of its own and returns its
     * report: the kernel makes a branch {@code quiver/<label>-<n>} at the repository's HEAD and a checkout
     * of it outside the user's working tree, and the child's file tools and commands work there. Its
     * calls are decided, asked about and audited as {@link #runSubagent}'s are. When the child ends, what
     * it left is committed on the branch, which stays in the user's repository; the report names the
     * branch and the files changed. The user's HEAD, index and working tree are never touched; their
     * uncommitted changes are not in the checkout. The checkout is removed when the session ends unless
     * {@code keep}.
     *
     * @param label a short name for the child; the branch and folder take its letters and digits only
     * @param keep whether the checkout stays after the session ends
     * @throws ToolException where the workspace is not in a git repository or has no commit, the session
     *     is read-only or has no model, this call is itself a subagent's, or the child failed
     * @since 1.8
     */
    default String runWorkerInWorktree(String label, String prompt, boolean keep) throws ToolException {
        throw new ToolException("Workers in checkouts of their own are not available to this call.");
    }

    /** How the session would decide a call: {@link ToolContext#permission}. */
    enum Permission {
        /** It would run without asking anyone. */
        ALLOWED,
        /** It would need the user's approval. */
        ASKS,
        /** It would be refused. */
        DENIED
    }

    /**
     * How the session would decide this same tool's call if its subjects were {@code subjects}: the
     * permission rules, guards, grants and mode decide as for a call, and the decision is recorded in
     * the audit log. A tool that follows where a call leads (a redirect to another URL) asks this
     * before it goes there, and reports what it may not follow instead of following it.
     *
     * @return the decision; {@link Permission#DENIED} where the context cannot tell (a test's stand-in)
     * @since 1.6
     */
    default Permission permission(java.util.List<Subject> subjects) {
        return Permission.DENIED;
    }

    /**
     * Whether the user or the kernel cancelled this call (an interrupt, a timeout, the end of the
     * session). A long-running tool checks this and stops; the kernel also interrupts its thread.
     */
    boolean isCancelled();
}
