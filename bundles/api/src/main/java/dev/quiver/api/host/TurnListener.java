package dev.quiver.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/** What a front end hears while the agent works on one prompt. Every method has a quiet default. */
@ConsumerType
public interface TurnListener {

    /** Text of the model's answer as it arrives: pieces to append, in order. */
    default void text(String text) {
    }

    /** A remark about the turn for the user, such as "history compacted". */
    default void notice(String text) {
    }

    /**
     * The model request failed and will be retried after a wait, such as {@code OpenAI answered HTTP 429;
     * retrying in 4 s (attempt 2 of 5)}. May come from another thread. The default hands it to
     * {@link #notice(String)}.
     *
     * @since 1.3
     */
    default void retrying(String text) {
        notice(text);
    }

    /** What one model request used. */
    default void usage(Usage step) {
    }

    /** A call the model asked for, before the permission chain sees it. */
    default void callStarted(String tool, String arguments) {
    }

    /**
     * A call the model asked for, before the permission chain sees it, with the id the model gave it
     * (which its result is paired with). The default hands it to {@link #callStarted(String, String)}.
     *
     * @since 1.3
     */
    default void callStarted(String callId, String tool, String arguments) {
        callStarted(tool, arguments);
    }

    /**
     * The permission chain's last word on a call, after any approval and before the tool runs (a
     * denied call then ends at once). A call that fails before it is judged (no such tool, invalid
     * arguments) is not decided; its outcome still carries a verdict.
     *
     * @since 1.3
     */
    default void callDecided(String tool, Verdict verdict) {
    }

    /**
     * What a call changed in the workspace, as the unified diff an approval question shows (without
     * colour, known secret values replaced), once it is made: heard for every call of a file tool that
     * shows its changes (see {@code ApprovalRequest.diff}), whether it was asked about or allowed.
     *
     * @since 1.3
     */
    default void callChanged(String tool, String diff) {
    }

    /** Output the running tool streams (such as a command's stdout). */
    default void callOutput(String tool, String text) {
    }

    /** How a call ended. */
    default void callEnded(CallOutcome outcome) {
    }

    /**
     * Asks the person at the front end a question a tool put ({@code ask}, through
     * {@link dev.quiver.api.ToolContext#askUser}). Only called in interactive sessions, from the call's
     * thread; blocks until the person answers or dismisses it.
     *
     * @return the labels chosen, or the text typed when the question has no options; empty when the
     *     person dismissed it
     * @throws UnsupportedOperationException the default: this front end cannot ask (the tool is told no
     *     one can answer)
     * @since 1.4
     */
    default java.util.Optional<java.util.List<String>> ask(dev.quiver.api.UserQuestion question) {
        throw new UnsupportedOperationException("This front end cannot ask questions.");
    }

    /**
     * Asks the person at the front end whether a call may run. Only called in interactive sessions.
     *
     * @param request the tool, the subject in full, why it asks, and what "always" would grant
     * @return the answer; the default denies
     */
    default Approval approve(ApprovalRequest request) {
        return Approval.deny("");
    }
}
