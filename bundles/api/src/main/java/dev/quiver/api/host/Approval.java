package dev.quiver.api.host;

import java.util.Objects;

/**
 * A person's answer to an approval prompt.
 *
 * @param choice run it once, run it and grant the shown pattern for the rest of the session, or not
 * @param instead with {@link Choice#DENY}: what the user wants done instead, passed to the model; may be empty
 */
public record Approval(Choice choice, String instead) {

    /** The three answers of an approval prompt: {@code y}, {@code a}, {@code n}. */
    public enum Choice {
        /** Run this call. */
        ONCE,
        /** Run this call and allow the pattern of the request for the rest of the session. */
        ALWAYS,
        /** Do not run it. */
        DENY
    }

    public Approval {
        Objects.requireNonNull(choice, "choice");
        instead = instead == null ? "" : instead;
    }

    /** Run once. */
    public static Approval once() {
        return new Approval(Choice.ONCE, "");
    }

    /** Run, and allow the pattern for the session. */
    public static Approval always() {
        return new Approval(Choice.ALWAYS, "");
    }

    /** Do not run; optionally say what to do instead. */
    public static Approval deny(String instead) {
        return new Approval(Choice.DENY, instead);
    }
}
