package dev.quiver.api.host;

import java.util.Optional;

/**
 * Tokens a model request or a turn used, as the provider reported them.
 *
 * @param inputTokens tokens sent
 * @param outputTokens tokens generated
 * @param costUsd an estimate in US dollars where the model's price is known; empty otherwise
 */
public record Usage(long inputTokens, long outputTokens, Optional<Double> costUsd) {

    /** Nothing used. */
    public static final Usage NONE = new Usage(0, 0, Optional.of(0.0));

    /** The sum of two usages; the cost is known only when both are. */
    public Usage plus(Usage other) {
        Optional<Double> cost = costUsd.isPresent() && other.costUsd.isPresent()
                ? Optional.of(costUsd.get() + other.costUsd.get()) : Optional.empty();
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens, cost);
    }
}
