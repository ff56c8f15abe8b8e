package dev.quiver.api.host;

import java.util.Objects;

/**
 * A decision with where it came from.
 *
 * @param decision allow, ask or deny
 * @param by what decided: {@code guard}, {@code rule}, {@code default}, {@code secret},
 *     {@code repeat} or {@code mode}
 * @param reason a sentence naming the rule, the guard or the default that decided
 */
public record Verdict(Decision decision, String by, String reason) {

    public Verdict {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(reason, "reason");
    }
}
