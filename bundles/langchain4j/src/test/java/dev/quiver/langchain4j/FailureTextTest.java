package dev.quiver.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.langchain4j.ModelException.Kind;
import java.net.ConnectException;
import java.net.URI;
import java.nio.channels.UnresolvedAddressException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parts of the retry layer that need no server: header parsing, error bodies, messages. */
class FailureTextTest {

    private static final Failure.Texts OLLAMA = new Failure.Texts("Ollama", "llama3.2", null, "Check the model name and the base URL.",
            URI.create("http://127.0.0.1:11434/api/chat"), List.of());

    @Test
    void retryAfterIsSecondsOrAnHttpDateAndRetryAfterMsWins() {
        Clock clock = Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC);
        assertEquals(Duration.ofSeconds(7), RetryAfter.parse(Map.of("Retry-After", List.of("7")), clock).orElseThrow());
        assertEquals(Duration.ofMillis(1500), RetryAfter.parse(Map.of("retry-after", List.of("1.5")), clock).orElseThrow());
        assertEquals(Duration.ofSeconds(30), RetryAfter.parse(
                Map.of("Retry-After", List.of("Sun, 01 Mar 2026 10:00:30 GMT")), clock).orElseThrow());
        assertEquals(Duration.ZERO, RetryAfter.parse(
                Map.of("Retry-After", List.of("Sun, 01 Mar 2026 09:00:00 GMT")), clock).orElseThrow());
        assertEquals(Duration.ofMillis(250), RetryAfter.parse(
                Map.of("retry-after-ms", List.of("250"), "retry-after", List.of("3")), clock).orElseThrow());
        assertTrue(RetryAfter.parse(Map.of("Retry-After", List.of("soon")), clock).isEmpty());
        assertTrue(RetryAfter.parse(Map.of(), clock).isEmpty());
    }

    @Test
    void backoffDoublesUpToItsCap() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofMinutes(1));
        assertEquals(Duration.ofSeconds(1), policy.backoff(1));
        assertEquals(Duration.ofSeconds(2), policy.backoff(2));
        assertEquals(Duration.ofSeconds(4), policy.backoff(3));
        assertEquals(Duration.ofSeconds(5), policy.backoff(4));
        assertEquals(Duration.ofSeconds(5), policy.backoff(9));
    }

    @Test
    void theServersExplanationIsTakenFromEachProvidersErrorBody() {
        assertEquals("Incorrect API key provided",
                Failure.detail("{\"error\":{\"message\":\"Incorrect API key provided.\",\"type\":\"invalid_request_error\"}}"));
        assertEquals("model: claude-nope", Failure.detail(
                "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-nope\"}}"));
        assertEquals("model \"llama9\" not found, try pulling it first",
                Failure.detail("{\"error\":\"model \\\"llama9\\\" not found, try pulling it first\"}"));
        assertEquals("", Failure.detail("<html><body>Bad gateway</body></html>"));
        assertEquals("upstream connect error", Failure.detail("upstream connect error\nor disconnect"));
        assertEquals("", Failure.detail(null));
    }

    @Test
    void ollamaMessagesNameTheModelAndNoKey() {
        Failure notFound = Failure.ofStatus(OLLAMA, 404, Map.of(), "{\"error\":\"model 'llama3.2' not found\"}");
        assertEquals("Model 'llama3.2' was not found (HTTP 404 from http://127.0.0.1:11434/api/chat): "
                + "model 'llama3.2' not found. Check the model name and the base URL.", notFound.toException("").getMessage());
        Failure unauthorized = Failure.ofStatus(OLLAMA, 401, Map.of(), "");
        assertEquals("Ollama refused the API key (HTTP 401 from http://127.0.0.1:11434/api/chat).",
                unauthorized.toException("").getMessage());
    }

    @Test
    void connectionFailuresAreNamedAndOnlyTimeoutsRetried() {
        Failure unknownHost = Failure.ofException(OLLAMA,
                new ConnectException("x").initCause(new UnresolvedAddressException()), Duration.ofSeconds(10),
                Duration.ofSeconds(300));
        assertEquals(Kind.UNREACHABLE, unknownHost.kind);
        assertEquals("Cannot connect to Ollama at http://127.0.0.1:11434: unknown host 127.0.0.1. Check the base URL.",
                unknownHost.message);
        Failure refused = Failure.ofException(OLLAMA, new ConnectException(), Duration.ofSeconds(10), Duration.ofSeconds(300));
        assertEquals(false, refused.retryable);
        Failure connectTimeout = Failure.ofException(OLLAMA, new java.net.http.HttpConnectTimeoutException("t"),
                Duration.ofSeconds(10), Duration.ofSeconds(300));
        assertEquals(Kind.TIMEOUT, connectTimeout.kind);
        assertEquals(true, connectTimeout.retryable);
        assertEquals("Cannot connect to Ollama at http://127.0.0.1:11434: no connection within 10 s.", connectTimeout.message);
    }

    @Test
    void fixedTimeoutsSurviveLangChain4jsSetters() {
        QuiverHttpClientBuilder builder = new QuiverHttpClientBuilder()
                .timeouts(Duration.ofSeconds(3), Duration.ofSeconds(42));
        // what OpenAiChatModel does when its own timeout is unset
        builder.connectTimeout(Duration.ofSeconds(15)).readTimeout(Duration.ofSeconds(60));
        assertEquals(Duration.ofSeconds(3), builder.connectTimeout());
        assertEquals(Duration.ofSeconds(42), builder.readTimeout());
        QuiverHttpClientBuilder open = new QuiverHttpClientBuilder().readTimeout(Duration.ofSeconds(60));
        assertEquals(Duration.ofSeconds(60), open.readTimeout());
    }

    @Test
    void theReasonIsTheMostSpecificMessageInTheChain() {
        java.io.IOException wrapped = new java.io.IOException("closed", new java.io.EOFException("EOF reached while reading"));
        assertEquals("EOF reached while reading", Failure.reason(wrapped));
        assertEquals("ConnectException", Failure.reason(new ConnectException()));
    }

    @Test
    void aMessageIsAlwaysOneLine() {
        assertEquals("a b c", new ModelException(Kind.SERVER, 500, "a\nb\r\n  c ").getMessage());
    }
}
