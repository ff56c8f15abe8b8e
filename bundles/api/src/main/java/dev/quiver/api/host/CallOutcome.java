package dev.quiver.api.host;

import java.util.Objects;

/**
 * How one call through the permission chain ended.
 *
 * @param tool the tool's name
 * @param status whether it ran and succeeded, failed, or was refused
 * @param output what the model reads back: the result, the error, or the refusal's reason
 * @param elapsedMillis time spent in the chain and the tool
 * @param verdict the decision that let it run or refused it
 */
public record CallOutcome(String tool, Status status, String output, long elapsedMillis, Verdict verdict) {

    /** How a call ended. */
    public enum Status {
        /** The tool ran and returned a result. */
        OK,
        /** The tool ran, or tried to, and failed. */
        ERROR,
        /** The permission chain refused it; the tool was never reached. */
        DENIED;

        /** The lower-case name used in JSON output. */
        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public CallOutcome {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(verdict, "verdict");
    }
}
