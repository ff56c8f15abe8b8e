package dev.quiver.langchain4j;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Builds a {@link RetryingHttpClient}. Pass it to a LangChain4j model builder's
 * {@code httpClientBuilder(..)}, set the model's own {@code maxRetries(0)} so retries are not
 * doubled, and set the timeouts here with {@link #timeouts(Duration, Duration)}, not with the
 * model's {@code timeout(..)}.
 *
 * <p>Why: LangChain4j's model builders call this builder's {@code connectTimeout(..)} and
 * {@code readTimeout(..)} themselves, with the model's {@code timeout} or, when that is unset, their
 * own defaults (OpenAI: 15 s and 60 s), so whatever was set through those two methods is overwritten.
 * The model's {@code timeout} would set both to one value, a five-minute connect timeout included.
 * {@link #timeouts(Duration, Duration)} fixes both: later calls of the two setters are ignored.
 *
 * <pre>{@code
 * OpenAiStreamingChatModel.builder()
 *         .httpClientBuilder(new QuiverHttpClientBuilder()
 *                 .service("OpenAI").model(name).keyVariable("OPENAI_API_KEY")
 *                 .timeouts(QuiverHttpClientBuilder.DEFAULT_CONNECT_TIMEOUT, settings.timeout())
 *                 .streamEnd(event -> "[DONE]".equals(event.data())))
 *         ...
 * }</pre>
 *
 * The service name, model and key variable only shape the one-line error messages of
 * {@link ModelException}.
 */
public final class QuiverHttpClientBuilder implements HttpClientBuilder {

    /** The default connect timeout. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The default read timeout. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(5);

    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private boolean timeoutsFixed;
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
    private java.util.function.Consumer<String> retryNotices = notice -> { };
    private String service = "The model server";
    private String model;
    private String keyVariable;
    private String notFoundHint = "Check the model name and the base URL.";
    private Predicate<ServerSentEvent> streamEnd;
    private Function<ServerSentEvent, ModelException> streamError;

    @Override
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How long opening a connection may take; ten seconds by default. Null keeps the current value,
     * and so does any call after {@link #timeouts(Duration, Duration)}.
     */
    @Override
    public QuiverHttpClientBuilder connectTimeout(Duration timeout) {
        if (timeout != null && !timeoutsFixed) {
            this.connectTimeout = positive(timeout, "connectTimeout");
        }
        return this;
    }

    @Override
    public Duration readTimeout() {
        return readTimeout;
    }

    /**
     * How long one attempt may take: for a plain request, until the whole answer has arrived; for a
     * stream, until its headers arrive and then between any two reads (a stalled stream fails, a long
     * one that keeps sending does not). Five minutes by default. Null keeps the current value, and so
     * does any call after {@link #timeouts(Duration, Duration)}.
     */
    @Override
    public QuiverHttpClientBuilder readTimeout(Duration timeout) {
        if (timeout != null && !timeoutsFixed) {
            this.readTimeout = positive(timeout, "readTimeout");
        }
        return this;
    }

    /**
     * Sets both timeouts (see {@link #connectTimeout(Duration)} and {@link #readTimeout(Duration)})
     * for good: the values LangChain4j's model builders pass to those two methods afterwards are
     * ignored.
     */
    public QuiverHttpClientBuilder timeouts(Duration connect, Duration read) {
        this.connectTimeout = positive(java.util.Objects.requireNonNull(connect, "connect"), "connectTimeout");
        this.readTimeout = positive(java.util.Objects.requireNonNull(read, "read"), "readTimeout");
        this.timeoutsFixed = true;
        return this;
    }

    /** The retry policy; {@link RetryPolicy#DEFAULT} unless set. */
    public QuiverHttpClientBuilder retryPolicy(RetryPolicy policy) {
        this.retryPolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** The service as the user knows it ({@code OpenAI}, {@code Anthropic}, {@code Ollama}), for messages. */
    public QuiverHttpClientBuilder service(String name) {
        this.service = Objects.requireNonNull(name, "name");
        return this;
    }

    /** The model name, so a 404 can name it. */
    public QuiverHttpClientBuilder model(String name) {
        this.model = name;
        return this;
    }

    /** The environment variable that holds the key, so a 401 can name it; null when there is none. */
    public QuiverHttpClientBuilder keyVariable(String name) {
        this.keyVariable = name;
        return this;
    }

    /**
     * The advice that ends a 404 message; "Check the model name and the base URL." by default
     * (Ollama's provider says how to pull the model).
     */
    public QuiverHttpClientBuilder notFoundHint(String hint) {
        this.notFoundHint = Objects.requireNonNull(hint, "hint");
        return this;
    }

    /**
     * The event that completes a stream ({@code data: [DONE]}, {@code event: message_stop}, a line with
     * {@code "done":true}). A stream that ends without it fails with {@link ModelException.Kind#BAD_RESPONSE}
     * instead of completing with a truncated answer or never completing at all (LangChain4j's Anthropic
     * and Ollama listeners ignore the end of the body). Without it, the end of the body completes the
     * stream.
     */
    public QuiverHttpClientBuilder streamEnd(Predicate<ServerSentEvent> end) {
        this.streamEnd = end;
        return this;
    }

    /**
     * Recognises an error reported inside a stream (Anthropic's {@code event: error}, Ollama's
     * {@code {"error": ..}} line): the function returns the exception to report, or null for an
     * ordinary event. The error event is not passed on; the stream stops and the listener's
     * {@code onError} gets the exception. When nothing had been delivered yet and the kind is one that
     * is retried ({@code RATE_LIMITED}, {@code SERVER}, {@code TIMEOUT}), the request is retried.
     */
    public QuiverHttpClientBuilder streamError(Function<ServerSentEvent, ModelException> error) {
        this.streamError = error;
        return this;
    }

    @Override
    public RetryingHttpClient build() {
        return new RetryingHttpClient(this);
    }

    /** Who is told, in one line, of each retry before its wait (see {@link ModelSettings#retries()}). */
    public QuiverHttpClientBuilder retryNotices(java.util.function.Consumer<String> notices) {
        this.retryNotices = Objects.requireNonNull(notices, "notices");
        return this;
    }

    java.util.function.Consumer<String> retryNotices() {
        return retryNotices;
    }

    RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    String service() {
        return service;
    }

    String model() {
        return model;
    }

    String keyVariable() {
        return keyVariable;
    }

    String notFoundHint() {
        return notFoundHint;
    }

    Predicate<ServerSentEvent> streamEnd() {
        return streamEnd;
    }

    Function<ServerSentEvent, ModelException> streamError() {
        return streamError;
    }

    private static Duration positive(Duration timeout, String what) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + timeout);
        }
        return timeout;
    }
}
