package dev.quiver.langchain4j;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The wait a server asks for: {@code retry-after-ms} (OpenAI and Anthropic send it, in
 * milliseconds) wins over {@code Retry-After} (RFC 9110: delay-seconds or an HTTP date).
 */
final class RetryAfter {

    private RetryAfter() {
    }

    static Optional<Duration> parse(Map<String, List<String>> headers) {
        return parse(headers, Clock.systemUTC());
    }

    static Optional<Duration> parse(Map<String, List<String>> headers, Clock clock) {
        Optional<Duration> millis = Failure.first(headers, "retry-after-ms").flatMap(RetryAfter::millis);
        if (millis.isPresent()) {
            return millis;
        }
        return Failure.first(headers, "retry-after").flatMap(value -> seconds(value, clock));
    }

    private static Optional<Duration> millis(String value) {
        try {
            double ms = Double.parseDouble(value.trim());
            return ms >= 0 && Double.isFinite(ms) ? Optional.of(Duration.ofMillis((long) Math.ceil(ms))) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> seconds(String value, Clock clock) {
        String text = value.trim();
        try {
            double seconds = Double.parseDouble(text);
            if (seconds >= 0 && Double.isFinite(seconds)) {
                return Optional.of(Duration.ofMillis((long) Math.ceil(seconds * 1000)));
            }
            return Optional.empty();
        } catch (NumberFormatException e) {
            // not a number: an HTTP date
        }
        try {
            ZonedDateTime when = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
            Duration wait = Duration.between(clock.instant(), when.toInstant());
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
