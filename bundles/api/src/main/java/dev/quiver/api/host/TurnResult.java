package dev.quiver.api.host;

import java.util.List;
import java.util.Objects;

/**
 * How the agent's work on one prompt ended.
 *
 * @param status why the loop stopped
 * @param answer the model's final text (empty when it gave none)
 * @param calls every call of the turn, in order
 * @param steps how many model requests the turn made
 * @param usage tokens and estimated cost of the turn
 */
public record TurnResult(Status status, String answer, List<CallOutcome> calls, int steps, Usage usage) {

    /** Why a turn's loop stopped. */
    public enum Status {
        /** The model answered without asking for more calls. */
        DONE,
        /** The step cap was reached while the model still asked for calls. */
        STEP_LIMIT
    }

    public TurnResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(answer, "answer");
        Objects.requireNonNull(usage, "usage");
        calls = List.copyOf(calls);
    }
}
