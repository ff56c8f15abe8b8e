package dev.quiver.langchain4j;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RetryingHttpClient} retries.
 *
 * <p>The wait before retry {@code n} (1 for the first retry) is the server's {@code retry-after-ms}
 * or {@code Retry-After} when it sent one (plus at most 10%, and never more than one second, of
 * jitter), otherwise {@code min(maxBackoff, initialBackoff * 2^(n-1))} plus up to a quarter of that
 * as jitter. A retry whose wait would take the total past {@code maxTotalWait} is not made: the
 * failure is reported at once, saying how long the server asked to wait.
 *
 * @param maxAttempts attempts in all, the first included; 1 means no retry
 * @param initialBackoff the wait before the first retry when the server names none
 * @param maxBackoff the longest computed wait (a server's {@code Retry-After} may be longer)
 * @param maxTotalWait the most time spent waiting between attempts of one request
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxTotalWait) {

    /** Five attempts, 1 s doubling to at most 30 s, at most two minutes of waiting in all. */
    public static final RetryPolicy DEFAULT =
            new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(2));

    /** One attempt. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(maxTotalWait, "maxTotalWait");
        if (initialBackoff.isNegative() || maxBackoff.isNegative() || maxTotalWait.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative");
        }
    }

    /**
     * The longest one request can go without delivering anything under this policy: every attempt
     * connecting for the whole connect timeout and then silent for the whole read timeout, plus every
     * wait between attempts. Whoever waits for a request longer than this waits for one that
     * {@link RetryingHttpClient} no longer runs.
     */
    public Duration longestSilence(Duration connectTimeout, Duration readTimeout) {
        return connectTimeout.plus(readTimeout).multipliedBy(maxAttempts).plus(maxTotalWait);
    }

    /** The computed wait before retry {@code retry} (1-based), before jitter. */
    Duration backoff(int retry) {
        long base = initialBackoff.toMillis();
        long cap = maxBackoff.toMillis();
        long delay = base;
        for (int i = 1; i < retry && delay < cap; i++) {
            delay = delay * 2;
        }
        return Duration.ofMillis(Math.min(delay, cap));
    }
}
