package dev.quiver.langchain4j;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import dev.quiver.langchain4j.ModelException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LangChain4j's HTTP SPI on {@code java.net.http}, with the retries LangChain4j 1.19 lacks: it sees
 * the status and headers of every answer, so it can honour {@code Retry-After}, and it retries
 * streams too. Build it with {@link QuiverHttpClientBuilder}.
 *
 * <h2>What is retried</h2>
 * <ul>
 *   <li>HTTP 408, 429, 500, 502, 503, 504, 520 to 524 and 529 (overloaded); a server's
 *       {@code x-should-retry: true|false} overrides that, and OpenAI's {@code insufficient_quota}
 *       429 is not retried;</li>
 *   <li>connect and read timeouts, and connections dropped before an answer arrived;</li>
 *   <li>not: 400, 401, 403, 404 and other 4xx, refused connections, unknown hosts, TLS failures.</li>
 * </ul>
 * The wait is the server's {@code retry-after-ms} or {@code Retry-After} (seconds or an HTTP date)
 * when given, otherwise exponential backoff with jitter, within the {@link RetryPolicy}'s attempts and
 * total wait. A stream is retried only while none of its events has been delivered to the listener:
 * after that, a retry would repeat text the user has already seen.
 *
 * <h2>What is reported</h2>
 * Every final failure is a {@link ModelException} with a one-line message: thrown by
 * {@link #execute(HttpRequest)}, passed to {@code onError} for streams (exactly once, and never after
 * {@code onClose}). A stream that breaks off, stalls for the read timeout, or ends without the
 * builder's {@linkplain QuiverHttpClientBuilder#streamEnd end event} is a failure too, not a quietly
 * truncated answer.
 *
 * <h2>Threads and logging</h2>
 * Plain requests run on the caller's thread; an interrupt cancels the request and surfaces as a
 * {@link CancellationException} with the interrupt flag set. Streams run on a new daemon thread each,
 * as LangChain4j expects {@code execute} to return at once; cancelling through the parsing handle
 * closes the connection. Retries are logged at debug level through SLF4J (which Quiver routes to its
 * log file), without headers or bodies, so no key is ever logged.
 */
public final class RetryingHttpClient implements HttpClient {

    private static final Logger LOG = LoggerFactory.getLogger(RetryingHttpClient.class);
    /** Headers java.net.http sets itself and refuses from callers. */
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");
    private static final int ERROR_BODY_LIMIT = 64 * 1024;

    private final java.net.http.HttpClient delegate;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final RetryPolicy policy;
    private final String service;
    private final String model;
    private final String keyVariable;
    private final String notFoundHint;
    private final Predicate<ServerSentEvent> streamEnd;
    private final Function<ServerSentEvent, ModelException> streamError;
    private final java.util.function.Consumer<String> retryNotices;

    RetryingHttpClient(QuiverHttpClientBuilder builder) {
        this.connectTimeout = builder.connectTimeout();
        this.readTimeout = builder.readTimeout();
        this.policy = builder.retryPolicy();
        this.service = builder.service();
        this.model = builder.model();
        this.keyVariable = builder.keyVariable();
        this.notFoundHint = builder.notFoundHint();
        this.streamEnd = builder.streamEnd();
        this.streamError = builder.streamError();
        this.retryNotices = builder.retryNotices();
        this.delegate = java.net.http.HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
                .build();
    }

    /** A builder with the defaults. */
    public static QuiverHttpClientBuilder builder() {
        return new QuiverHttpClientBuilder();
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        java.net.http.HttpRequest jdkRequest = toJdkRequest(request);
        Failure.Texts texts = texts(request, jdkRequest.uri());
        Attempts attempts = new Attempts();
        while (true) {
            attempts.begin();
            Failure failure;
            CompletableFuture<HttpResponse<String>> future = delegate.sendAsync(jdkRequest, ResponseLimit.string());
            try {
                HttpResponse<String> response = future.get(readTimeout.toMillis(), TimeUnit.MILLISECONDS);
                if (successful(response.statusCode())) {
                    return SuccessfulHttpResponse.builder()
                            .statusCode(response.statusCode())
                            .headers(response.headers().map())
                            .body(response.body())
                            .build();
                }
                failure = Failure.ofStatus(texts, response.statusCode(), response.headers().map(), response.body());
            } catch (TimeoutException e) {
                future.cancel(true);
                failure = Failure.ofException(texts, new java.net.http.HttpTimeoutException("request timed out"),
                        connectTimeout, readTimeout);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                failure = tooLarge(cause) ? tooLarge(texts, 0)
                        : Failure.ofException(texts, cause, connectTimeout, readTimeout);
            } catch (InterruptedException e) {
                future.cancel(true);
                Thread.currentThread().interrupt();
                throw new CancellationException("The model request was interrupted.");
            }
            Duration wait = attempts.next(failure, jdkRequest);
            if (wait == null) {
                throw attempts.exception(failure);
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("The model request was interrupted.");
            }
        }
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        java.net.http.HttpRequest jdkRequest = toJdkRequest(request);
        Failure.Texts texts = texts(request, jdkRequest.uri());
        ServerSentEventListener once = new TellOnce(listener);
        Thread thread = new Thread(() -> {
            try {
                stream(jdkRequest, texts, parser, once);
            } catch (Throwable e) {
                // an Error (out of memory in a listener, a linkage error) must not end the thread silently:
                // whoever waits for the answer would wait forever
                LOG.debug("The model stream failed", e);
                once.onError(new ModelException(Kind.BAD_RESPONSE, 0, "Reading the answer from " + texts.service()
                        + " failed (" + texts.url() + "): " + e + "."));
            }
        }, "quiver-model-stream");
        thread.setDaemon(true);
        thread.start();
    }

    private void stream(java.net.http.HttpRequest jdkRequest, Failure.Texts texts, ServerSentEventParser parser,
            ServerSentEventListener listener) {
        Attempts attempts = new Attempts();
        while (true) {
            attempts.begin();
            Failure failure;
            try {
                HttpResponse<InputStream> response = delegate.send(jdkRequest, BodyHandlers.ofInputStream());
                if (!successful(response.statusCode())) {
                    failure = Failure.ofStatus(texts, response.statusCode(), response.headers().map(),
                            readLimited(response.body()));
                } else {
                    SuccessfulHttpResponse open = SuccessfulHttpResponse.builder()
                            .statusCode(response.statusCode())
                            .headers(response.headers().map())
                            .build();
                    quietly(() -> listener.onOpen(open));
                    failure = parse(response.body(), texts, parser, listener);
                    if (failure == null) {
                        return; // completed, cancelled, or failed after delivering events: listener told
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                quietly(() -> listener.onError(new CancellationException("The model request was interrupted.")));
                return;
            } catch (IOException | RuntimeException e) {
                failure = Failure.ofException(texts, e, connectTimeout, readTimeout);
            }
            Duration wait = attempts.next(failure, jdkRequest);
            if (wait == null) {
                ModelException exception = attempts.exception(failure);
                quietly(() -> listener.onError(exception));
                return;
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                quietly(() -> listener.onError(new CancellationException("The model request was interrupted.")));
                return;
            }
        }
    }

    /**
     * Parses one streamed body.
     *
     * @return null when the listener has been told how it ended (closed, cancelled, or an error after
     *     events were delivered); otherwise the failure of an attempt that delivered nothing, to retry
     */
    private Failure parse(InputStream body, Failure.Texts texts, ServerSentEventParser parser,
            ServerSentEventListener listener) {
        Tracking tracking = new Tracking(listener);
        IdleTimeoutStream in = new IdleTimeoutStream(ResponseLimit.stream(body), readTimeout);
        try (in) {
            parser.parse(in, tracking);
        } catch (IOException | RuntimeException e) {
            if (tracking.ioError == null) {
                tracking.ioError = e;
            }
        }
        if (tracking.cancelled()) {
            quietly(listener::onClose);
            return null;
        }
        Failure failure;
        if (tracking.errorEvent != null) {
            if (tracking.delivered == 0 && Failure.retryableKind(tracking.errorEvent.kind())) {
                return Failure.of(tracking.errorEvent.kind(), true, tracking.errorEvent.getMessage(), null);
            }
            ModelException error = tracking.errorEvent;
            quietly(() -> listener.onError(error));
            return null;
        } else if (tooLarge(tracking.ioError)) {
            failure = tooLarge(texts, tracking.delivered);
        } else if (in.timedOut()) {
            failure = Failure.of(Kind.TIMEOUT, true, "The stream from " + texts.service() + " stalled: no data for "
                    + Failure.Texts.seconds(readTimeout) + " (" + texts.url() + ").", null);
        } else if (tracking.ioError != null) {
            failure = Failure.of(Kind.BAD_RESPONSE, true, "The stream from " + texts.service() + " was cut after "
                    + tracking.delivered + " events (" + texts.url() + "): " + Failure.reason(tracking.ioError) + ".",
                    tracking.ioError);
        } else if (streamEnd != null && !tracking.ended) {
            failure = Failure.of(Kind.BAD_RESPONSE, true, "The stream from " + texts.service()
                    + " ended before the answer was complete, after " + tracking.delivered + " events ("
                    + texts.url() + ").", null);
        } else {
            quietly(listener::onClose);
            return null;
        }
        if (tracking.delivered == 0) {
            return failure;
        }
        ModelException error = failure.toException("");
        quietly(() -> listener.onError(error));
        return null;
    }

    /** Counts delivered events, notes the end event, and holds back errors so they can be retried. */
    private final class Tracking implements ServerSentEventListener {

        private final ServerSentEventListener target;
        int delivered;
        boolean ended;
        Throwable ioError;
        ModelException errorEvent;
        private ServerSentEventContext context;

        Tracking(ServerSentEventListener target) {
            this.target = target;
        }

        boolean cancelled() {
            return errorEvent == null && context != null && context.parsingHandle().isCancelled();
        }

        @Override
        public void onEvent(ServerSentEvent event) {
            onEvent(event, null);
        }

        @Override
        public void onEvent(ServerSentEvent event, ServerSentEventContext eventContext) {
            if (eventContext != null) {
                this.context = eventContext;
            }
            if (ended || errorEvent != null) {
                return;
            }
            ModelException error = streamError == null ? null : streamError.apply(event);
            if (error != null) {
                errorEvent = error;
                if (eventContext != null) {
                    eventContext.parsingHandle().cancel(); // stop reading: the answer is lost
                }
                return;
            }
            if (streamEnd != null && streamEnd.test(event)) {
                ended = true;
            }
            delivered++;
            if (eventContext == null) {
                target.onEvent(event);
            } else {
                target.onEvent(event, eventContext);
            }
        }

        @Override
        public void onError(Throwable error) {
            if (ioError == null) {
                ioError = error;
            }
        }

        @Override
        public void onClose() {
            // RetryingHttpClient decides how the stream ended
        }
    }

    /** One request's attempts and waits. */
    private final class Attempts {

        private final long start = System.nanoTime();
        private int made;
        private long waitedMillis;
        private String gaveUp = "";

        void begin() {
            made++;
        }

        /** The wait before the next attempt, or null to report the failure now. */
        Duration next(Failure failure, java.net.http.HttpRequest request) {
            if (!failure.retryable) {
                return null;
            }
            if (made >= policy.maxAttempts()) {
                gaveUp = made > 1 ? "Gave up after " + made + " attempts in " + elapsed() + "." : "";
                return null;
            }
            Duration wait;
            if (failure.retryAfter != null && !failure.retryAfter.isZero()) {
                long asked = failure.retryAfter.toMillis();
                wait = Duration.ofMillis(asked + jitter(Math.min(asked / 10, 1000)));
            } else {
                Duration backoff = policy.backoff(made);
                wait = backoff.plusMillis(jitter(backoff.toMillis() / 4));
            }
            long remaining = policy.maxTotalWait().toMillis() - waitedMillis;
            if (wait.toMillis() > remaining) {
                if (failure.retryAfter != null && failure.retryAfter.toMillis() > remaining) {
                    gaveUp = "The server asks to wait " + Failure.Texts.seconds(roundUp(failure.retryAfter))
                            + ", longer than Quiver waits (" + Failure.Texts.seconds(policy.maxTotalWait())
                            + "); try again later.";
                } else {
                    gaveUp = "Gave up after " + made + " attempts in " + elapsed() + ".";
                }
                return null;
            }
            waitedMillis += wait.toMillis();
            try {
                retryNotices.accept(Character.toUpperCase(service.charAt(0)) + service.substring(1)
                        + (failure.status > 0 ? " answered HTTP " + failure.status
                        : " failed (" + failure.kind.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")")
                        + "; retrying in " + Failure.Texts.seconds(Duration.ofMillis(Math.max(100, Math.round(wait.toMillis()
                        / 100.0) * 100))) + " (attempt " + (made + 1) + " of "
                        + policy.maxAttempts() + ")");
            } catch (RuntimeException e) {
                LOG.debug("A retry notice's receiver threw", e);
            }
            LOG.debug("Retrying {} {} in {} ms after attempt {} of {} failed: {} (HTTP {})", request.method(),
                    request.uri().getPath(), wait.toMillis(), made, policy.maxAttempts(), failure.kind, failure.status);
            return wait;
        }

        ModelException exception(Failure failure) {
            return failure.toException(gaveUp);
        }

        private String elapsed() {
            return Failure.Texts.seconds(roundUp(Duration.ofNanos(System.nanoTime() - start)));
        }
    }

    private static Duration roundUp(Duration duration) {
        long millis = duration.toMillis();
        return Duration.ofMillis(millis < 1000 ? Math.max(100, (millis + 99) / 100 * 100) : (millis + 999) / 1000 * 1000);
    }

    private static long jitter(long bound) {
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
    }

    private java.net.http.HttpRequest toJdkRequest(HttpRequest request) {
        if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
            throw new IllegalArgumentException("RetryingHttpClient does not send multipart form data");
        }
        URI uri = URI.create(request.url());
        java.net.http.HttpRequest.Builder builder = java.net.http.HttpRequest.newBuilder(uri).timeout(readTimeout);
        if ("http".equalsIgnoreCase(uri.getScheme())) {
            // no h2c upgrade dance with local servers; https negotiates HTTP/2 by ALPN
            builder.version(java.net.http.HttpClient.Version.HTTP_1_1);
        }
        request.headers().forEach((name, values) -> {
            if (name != null && values != null && !RESTRICTED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        java.net.http.HttpRequest.BodyPublisher body = request.body() == null
                ? java.net.http.HttpRequest.BodyPublishers.noBody()
                : java.net.http.HttpRequest.BodyPublishers.ofString(request.body(), StandardCharsets.UTF_8);
        builder.method(request.method().name(), body);
        return builder.build();
    }

    private Failure.Texts texts(HttpRequest request, URI uri) {
        List<String> secrets = new ArrayList<>();
        for (Map.Entry<String, List<String>> header : request.headers().entrySet()) {
            String name = header.getKey() == null ? "" : header.getKey().toLowerCase(Locale.ROOT);
            if (name.contains("key") || name.contains("auth") || name.contains("token")) {
                for (String value : header.getValue()) {
                    if (value != null) {
                        secrets.add(value);
                        if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
                            secrets.add(value.substring(7).trim());
                        }
                    }
                }
            }
        }
        return new Failure.Texts(service, model, keyVariable, notFoundHint, uri, List.copyOf(secrets));
    }

    private static String readLimited(InputStream body) {
        try (body) {
            byte[] bytes = body.readNBytes(ERROR_BODY_LIMIT);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean tooLarge(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ResponseLimit.TooLarge) {
                return true;
            }
        }
        return false;
    }

    private static Failure tooLarge(Failure.Texts texts, int delivered) {
        return Failure.of(Kind.BAD_RESPONSE, false, "The answer from " + texts.service() + " passed "
                + (ResponseLimit.MAX_BYTES >> 20) + " MiB" + (delivered > 0 ? " after " + delivered + " events" : "")
                + ", more than any model's answer; Quiver stopped reading it (" + texts.url() + ").", null);
    }

    /** Passes on events, and only the first of {@code onError} and {@code onClose}: a stream ends once. */
    private static final class TellOnce implements ServerSentEventListener {
        private final ServerSentEventListener target;
        private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

        TellOnce(ServerSentEventListener target) {
            this.target = target;
        }

        @Override
        public void onOpen(SuccessfulHttpResponse response) {
            target.onOpen(response);
        }

        @Override
        public void onEvent(ServerSentEvent event) {
            target.onEvent(event);
        }

        @Override
        public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
            target.onEvent(event, context);
        }

        @Override
        public void onError(Throwable error) {
            if (ended.compareAndSet(false, true)) {
                target.onError(error);
            }
        }

        @Override
        public void onClose() {
            if (ended.compareAndSet(false, true)) {
                target.onClose();
            }
        }
    }

    private static boolean successful(int status) {
        return status >= 200 && status < 300;
    }

    /** Listener callbacks must not end the stream thread; their failures are theirs to log. */
    private static void quietly(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.debug("A stream listener threw", e);
        }
    }
}
