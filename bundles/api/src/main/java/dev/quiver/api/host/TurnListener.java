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

    /** What one model request used. */
    default void usage(Usage step) {
    }

    /** A call the model asked for, before the permission chain sees it. */
    default void callStarted(String tool, String arguments) {
    }

    /** Output the running tool streams (such as a command's stdout). */
    default void callOutput(String tool, String text) {
    }

    /** How a call ended. */
    default void callEnded(CallOutcome outcome) {
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
