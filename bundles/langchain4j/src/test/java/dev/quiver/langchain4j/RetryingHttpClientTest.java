package dev.quiver.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.DefaultServerSentEventParser;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.internal.ExceptionMapper;
import dev.quiver.langchain4j.ModelException.Kind;
import dev.quiver.testing.OpenAiStub;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * RetryingHttpClient against a real loopback server (OpenAiStub), plain requests and server-sent
 * event streams. Times are asserted only from below, with slack: a retry waited at least what the
 * server asked.
 */
class RetryingHttpClientTest {

    private static final String KEY = "sk-test-0123456789abcdef";
    /** Fast backoff, so tests of retries that name no wait take milliseconds. */
    private static final RetryPolicy FAST = new RetryPolicy(4, Duration.ofMillis(20), Duration.ofMillis(100),
            Duration.ofSeconds(30));

    private static QuiverHttpClientBuilder builder() {
        return new QuiverHttpClientBuilder().service("OpenAI").model("gpt-test").keyVariable("OPENAI_API_KEY")
                .retryPolicy(FAST).streamEnd(event -> "[DONE]".equals(event.data()));
    }

    private static HttpRequest request(String baseUrl, boolean stream) {
        return HttpRequest.builder()
                .method(HttpMethod.POST)
                .url(baseUrl, "chat/completions")
                .addHeader("Content-Type", "application/json")
                .addHeader("Authorization", "Bearer " + KEY)
                .body("{\"model\":\"gpt-test\",\"stream\":" + stream + ",\"messages\":[]}")
                .build();
    }

    private static long millisBetweenArrivals(OpenAiStub stub, int first, int second) {
        List<Long> arrivals = stub.arrivals();
        return TimeUnit.NANOSECONDS.toMillis(arrivals.get(second) - arrivals.get(first));
    }

    // ---- plain requests

    @Test
    void a429IsRetriedAfterTheSecondsOfItsRetryAfterHeader() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(429, "Rate limit reached", Map.of("Retry-After", "1")),
                OpenAiStub.text("after the wait"))) {
            SuccessfulHttpResponse response = builder().build().execute(request(stub.baseUrl(), false));
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("after the wait"), response.body());
            assertEquals(2, stub.requests().size());
            long waited = millisBetweenArrivals(stub, 0, 1);
            assertTrue(waited >= 950, "waited only " + waited + " ms");
        }
    }

    @Test
    void eachRetryIsToldInOneLineBeforeItsWait() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(503, "Busy", Map.of("retry-after-ms", "300")),
                OpenAiStub.failure(429, "Slow down", Map.of("retry-after-ms", "300")), OpenAiStub.text("ok"))) {
            List<String> notices = new CopyOnWriteArrayList<>();
            SuccessfulHttpResponse response = builder().retryNotices(notices::add).build()
                    .execute(request(stub.baseUrl(), false));
            assertTrue(response.body().contains("ok"));
            assertEquals(2, notices.size(), notices.toString());
            assertTrue(notices.get(0).matches("OpenAI answered HTTP 503; retrying in 0\\.[34] s \\(attempt 2 of 4\\)"),
                    notices.get(0));
            assertTrue(notices.get(1).startsWith("OpenAI answered HTTP 429; retrying in 0."), notices.get(1));
            assertTrue(notices.get(1).endsWith("(attempt 3 of 4)"), notices.get(1));
        }
    }

    @Test
    void retryAfterMsWinsOverRetryAfter() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(429, "slow down", Map.of("retry-after-ms", "1500", "Retry-After", "1")),
                OpenAiStub.text("ok"))) {
            builder().build().execute(request(stub.baseUrl(), false));
            long waited = millisBetweenArrivals(stub, 0, 1);
            assertTrue(waited >= 1450, "waited only " + waited + " ms");
        }
    }

    @Test
    void retryAfterAsAnHttpDateIsHonoured() throws Exception {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(3));
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(503, "maintenance", Map.of("Retry-After", date)),
                OpenAiStub.text("ok"))) {
            builder().build().execute(request(stub.baseUrl(), false));
            long waited = millisBetweenArrivals(stub, 0, 1);
            // the date has whole seconds, so the wait is between two and three seconds
            assertTrue(waited >= 1900, "waited only " + waited + " ms");
        }
    }

    @Test
    void serverErrorsAndOverloadAreRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(500, "boom"), OpenAiStub.failure(503, "unavailable"),
                OpenAiStub.failure(529, "Overloaded"), OpenAiStub.text("third time lucky"))) {
            SuccessfulHttpResponse response = builder().build().execute(request(stub.baseUrl(), false));
            assertTrue(response.body().contains("third time lucky"));
            assertEquals(4, stub.requests().size());
        }
    }

    @Test
    void aPersistentRateLimitGivesUpAfterTheLastAttemptWithOneLine() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(429, "Rate limit reached for gpt-test"), OpenAiStub.failure(429, "again"),
                OpenAiStub.failure(429, "again"), OpenAiStub.failure(429, "Rate limit reached, still"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.RATE_LIMITED, error.kind());
            assertEquals(429, error.status());
            assertEquals(4, stub.requests().size());
            assertTrue(error.getMessage().startsWith("OpenAI is rate-limiting requests (HTTP 429 from " + stub.baseUrl()
                    + "/chat/completions): Rate limit reached, still. Gave up after 4 attempts in "), error.getMessage());
            assertFalse(error.getMessage().contains("\n"));
        }
    }

    @Test
    void aRetryAfterLongerThanTheBudgetFailsAtOnceAndSaysSo() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(429, "quota window", Map.of("Retry-After", "600")))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(1, stub.requests().size());
            assertTrue(error.getMessage().endsWith(
                    "The server asks to wait 600 s, longer than Quiver waits (30 s); try again later."), error.getMessage());
        }
    }

    @Test
    void xShouldRetryFalseStopsARetry() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(503, "do not retry", Map.of("x-should-retry", "false")), OpenAiStub.text("ok"))) {
            assertThrows(ModelException.class, () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void insufficientQuotaIsNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(429,
                "You exceeded your current quota. insufficient_quota"), OpenAiStub.text("ok"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.RATE_LIMITED, error.kind());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void a401IsNotRetriedAndNamesTheKeyVariableWithoutTheKey() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(401, "Incorrect API key provided: " + KEY + "."), OpenAiStub.text("never"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.AUTHENTICATION, error.kind());
            assertEquals(1, stub.requests().size());
            assertEquals("OpenAI refused the API key (HTTP 401 from " + stub.baseUrl()
                    + "/chat/completions): Incorrect API key provided: [redacted]. Check OPENAI_API_KEY.", error.getMessage());
        }
    }

    @Test
    void a404IsNotRetriedAndNamesTheModel() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(404,
                "The model `gpt-test` does not exist or you do not have access to it."), OpenAiStub.text("never"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.NOT_FOUND, error.kind());
            assertEquals(1, stub.requests().size());
            assertEquals("Model 'gpt-test' was not found (HTTP 404 from " + stub.baseUrl() + "/chat/completions): "
                    + "The model `gpt-test` does not exist or you do not have access to it. "
                    + "Check the model name and the base URL.", error.getMessage());
        }
    }

    @Test
    void a400IsNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(400,
                "This model's maximum context length is 128000 tokens."), OpenAiStub.text("never"))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.BAD_REQUEST, error.kind());
            assertEquals(1, stub.requests().size());
            assertTrue(error.getMessage().startsWith("OpenAI rejected the request (HTTP 400"), error.getMessage());
        }
    }

    @Test
    void aRedirectIsReportedWithItsTarget() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(301, "moved",
                Map.of("Location", "https://api.example.com/v1/chat/completions?x=1")))) {
            ModelException error = assertThrows(ModelException.class,
                    () -> builder().build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.BAD_RESPONSE, error.kind());
            assertTrue(error.getMessage().contains("to https://api.example.com/v1/chat/completions);"), error.getMessage());
        }
    }

    @Test
    void anUnreachableServerNamesTheUrlAndIsNotRetried() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        ModelException error = assertThrows(ModelException.class,
                () -> builder().build().execute(request("http://127.0.0.1:" + port + "/v1", false)));
        assertEquals(Kind.UNREACHABLE, error.kind());
        assertEquals("Cannot connect to OpenAI at http://127.0.0.1:" + port
                + ": connection refused. Is the server running, and is the base URL right?", error.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 10_000, "refused connections are not retried");
    }

    @Test
    void aSlowAnswerTimesOutAndIsRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.delayed(Duration.ofSeconds(2), OpenAiStub.text("too late")), OpenAiStub.text("in time"))) {
            SuccessfulHttpResponse response = builder().readTimeout(Duration.ofMillis(400)).build()
                    .execute(request(stub.baseUrl(), false));
            assertTrue(response.body().contains("in time"));
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void aTimeoutThatPersistsSaysHowLongItWaited() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.delayed(Duration.ofSeconds(2), OpenAiStub.text("late")),
                OpenAiStub.delayed(Duration.ofSeconds(2), OpenAiStub.text("late")))) {
            ModelException error = assertThrows(ModelException.class, () -> builder()
                    .retryPolicy(new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(5)))
                    .readTimeout(Duration.ofMillis(300)).build().execute(request(stub.baseUrl(), false)));
            assertEquals(Kind.TIMEOUT, error.kind());
            assertTrue(error.getMessage().startsWith("OpenAI did not answer within 0.3 s (" + stub.baseUrl()
                    + "/chat/completions). Gave up after 2 attempts"), error.getMessage());
        }
    }

    @Test
    void aPlainAnswerCutHalfwayIsRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.cut(OpenAiStub.text("half"), 0), OpenAiStub.text("whole"))) {
            SuccessfulHttpResponse response = builder().build().execute(request(stub.baseUrl(), false));
            assertTrue(response.body().contains("whole"));
            assertEquals(2, stub.requests().size());
        }
    }

    // ---- streams

    @Test
    void aStreamDeliversEveryEventAndCloses() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("Hello, streaming world"))) {
            Recording recording = stream(builder(), stub);
            assertTrue(recording.closed, recording.toString());
            assertEquals(List.of(), recording.errors);
            assertEquals("[DONE]", recording.events.get(recording.events.size() - 1).data());
            assertEquals(1, recording.opens);
        }
    }

    @Test
    void aStreamIsRetriedAfterA429BeforeItsFirstEvent() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.failure(429, "Rate limit", Map.of("Retry-After", "1")), OpenAiStub.text("streamed"))) {
            Recording recording = stream(builder(), stub);
            assertTrue(recording.closed, recording.toString());
            assertEquals(List.of(), recording.errors);
            assertEquals(2, stub.requests().size());
            long waited = millisBetweenArrivals(stub, 0, 1);
            assertTrue(waited >= 950, "waited only " + waited + " ms");
        }
    }

    @Test
    void aStreamCutBeforeItsFirstEventIsRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.cut(OpenAiStub.text("lost"), 0), OpenAiStub.text("kept"))) {
            Recording recording = stream(builder(), stub);
            assertTrue(recording.closed, recording.toString());
            assertEquals(2, stub.requests().size());
        }
    }

    @Test
    void aStreamCutAfterEventsIsAnErrorAndNotRetried() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.cut(OpenAiStub.text("a long answer that breaks"), 3),
                OpenAiStub.text("must not be asked for"))) {
            Recording recording = stream(builder(), stub);
            assertFalse(recording.closed);
            assertEquals(3, recording.events.size());
            ModelException error = (ModelException) recording.errors.get(0);
            assertEquals(Kind.BAD_RESPONSE, error.kind());
            assertTrue(error.getMessage().startsWith("The stream from OpenAI was cut after 3 events ("
                    + stub.baseUrl() + "/chat/completions): "), error.getMessage());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aStreamThatEndsWithoutItsEndEventIsAnError() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.truncated(OpenAiStub.text("an answer that stops short"), 4))) {
            Recording recording = stream(builder(), stub);
            assertFalse(recording.closed);
            ModelException error = (ModelException) recording.errors.get(0);
            assertEquals("The stream from OpenAI ended before the answer was complete, after 4 events ("
                    + stub.baseUrl() + "/chat/completions).", error.getMessage());
        }
    }

    @Test
    void aStalledStreamTimesOut() throws Exception {
        // the stall outlasts stream()'s 30 s wait: the test ends only if the timeout wakes the blocked reader
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.stall(OpenAiStub.text("a stream that stalls"), 2,
                Duration.ofSeconds(120)))) {
            Recording recording = stream(builder().readTimeout(Duration.ofMillis(500)), stub);
            ModelException error = (ModelException) recording.errors.get(0);
            assertEquals(Kind.TIMEOUT, error.kind());
            assertEquals(2, recording.events.size());
            assertEquals("The stream from OpenAI stalled: no data for 0.5 s (" + stub.baseUrl() + "/chat/completions).",
                    error.getMessage());
        }
    }

    @Test
    void aStreamThatKeepsSendingIsNotCutHoweverLongTheWholeAnswerTakes() throws Exception {
        // 11 events 200 ms apart: the answer takes some 2.2 s, over four times the 0.5 s timeout
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.paced(OpenAiStub.text("a slow model that keeps sending, never stopping"),
                Duration.ofMillis(200)))) {
            Recording recording = stream(builder().readTimeout(Duration.ofMillis(500)), stub);
            assertEquals(List.of(), recording.errors);
            assertTrue(recording.closed, recording.toString());
            assertEquals("[DONE]", recording.events.get(recording.events.size() - 1).data());
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aStreamFailingWith500IsTriedFiveTimesAndTheMessageSaysSo() throws Exception {
        RetryPolicy fiveFast = new RetryPolicy(RetryPolicy.DEFAULT.maxAttempts(), Duration.ofMillis(20),
                Duration.ofMillis(100), Duration.ofSeconds(30));
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(500, "boom"), OpenAiStub.failure(500, "boom"),
                OpenAiStub.failure(500, "boom"), OpenAiStub.failure(500, "boom"), OpenAiStub.failure(500, "still boom"),
                OpenAiStub.text("never asked for"))) {
            Recording recording = stream(builder().retryPolicy(fiveFast), stub);
            assertEquals(5, stub.requests().size());
            assertEquals(1, recording.errors.size());
            ModelException error = (ModelException) recording.errors.get(0);
            assertEquals(Kind.SERVER, error.kind());
            assertTrue(error.getMessage().startsWith("OpenAI failed (HTTP 500 from " + stub.baseUrl()
                    + "/chat/completions): still boom. Gave up after 5 attempts in "), error.getMessage());
        }
    }

    @Test
    void theLongestSilenceCoversEveryAttemptAndEveryWait() {
        assertEquals(Duration.ofSeconds(5 * (10 + 300) + 120),
                RetryPolicy.DEFAULT.longestSilence(Duration.ofSeconds(10), Duration.ofSeconds(300)));
        assertEquals(Duration.ofSeconds(3), RetryPolicy.NONE.longestSilence(Duration.ofSeconds(1), Duration.ofSeconds(2)));
    }

    @Test
    void aStreamRefusedWith401ReportsTheOneLineErrorOnce() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.failure(401, "Incorrect API key provided"))) {
            Recording recording = stream(builder(), stub);
            assertEquals(1, recording.errors.size());
            assertEquals(Kind.AUTHENTICATION, ((ModelException) recording.errors.get(0)).kind());
            assertEquals(0, recording.opens);
            assertEquals(1, stub.requests().size());
        }
    }

    @Test
    void aStreamCancelledByItsListenerClosesQuietly() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.stall(OpenAiStub.text("cancel me please, soon"), 2,
                Duration.ofSeconds(3)))) {
            Recording recording = new Recording() {
                @Override
                public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
                    super.onEvent(event, context);
                    context.parsingHandle().cancel();
                }
            };
            builder().build().execute(request(stub.baseUrl(), true), new DefaultServerSentEventParser(), recording);
            assertTrue(recording.done.await(10, TimeUnit.SECONDS));
            assertEquals(List.of(), recording.errors);
            assertEquals(1, recording.events.size());
        }
    }

    @Test
    void anErrorEventBeforeAnyOtherIsRetriedAndOneAfterIsReported() throws Exception {
        QuiverHttpClientBuilder builder = builder().streamError(event -> event.data().contains("\"role\"")
                ? new ModelException(Kind.SERVER, 0, "The stream reported overload.") : null);
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("first"), OpenAiStub.text("second"))) {
            // every stream's first chunk carries the role: both attempts fail, nothing was delivered
            Recording recording = stream(builder.retryPolicy(new RetryPolicy(2, Duration.ofMillis(10),
                    Duration.ofMillis(10), Duration.ofSeconds(5))), stub);
            assertEquals(2, stub.requests().size());
            assertEquals(0, recording.events.size());
            assertTrue(recording.errors.get(0).getMessage().startsWith("The stream reported overload. Gave up after 2"),
                    recording.errors.get(0).getMessage());
        }
    }

    // ---- how LangChain4j treats the exception

    @Test
    void langChain4jsExceptionMapperPassesTheExceptionThroughUnchanged() {
        ModelException error = Failure.of(Kind.UNREACHABLE, false, "Cannot connect.", new java.net.ConnectException(
                "refused")).toException("");
        error.addSuppressed(new UnresolvedAddressException());
        RuntimeException mapped = ExceptionMapper.DEFAULT.mapException(error);
        assertSame(error, mapped);
        assertFalse(mapped instanceof UnresolvedModelServerException);
    }

    @Test
    void findWalksTheCauseChain() {
        ModelException error = new ModelException(Kind.SERVER, 500, "down");
        RuntimeException wrapped = new RuntimeException("outer", new IllegalStateException("middle", error));
        assertSame(error, ModelException.find(wrapped).orElseThrow());
        assertTrue(ModelException.find(new RuntimeException("other")).isEmpty());
        assertTrue(ModelException.find(null).isEmpty());
    }

    // ---- helpers

    private static Recording stream(QuiverHttpClientBuilder builder, OpenAiStub stub) throws InterruptedException {
        Recording recording = new Recording();
        builder.build().execute(request(stub.baseUrl(), true), new DefaultServerSentEventParser(), recording);
        assertTrue(recording.done.await(30, TimeUnit.SECONDS), "the stream never ended");
        return recording;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A listener that records what it was told and counts down when the stream is over. */
    static class Recording implements ServerSentEventListener {
        final List<ServerSentEvent> events = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final CountDownLatch done = new CountDownLatch(1);
        volatile boolean closed;
        volatile int opens;

        @Override
        public void onOpen(SuccessfulHttpResponse response) {
            opens++;
        }

        @Override
        public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
            events.add(event);
        }

        @Override
        public void onError(Throwable error) {
            errors.add(error);
            done.countDown();
        }

        @Override
        public void onClose() {
            closed = true;
            done.countDown();
        }

        @Override
        public String toString() {
            return "events=" + events.size() + " errors=" + errors + " closed=" + closed;
        }
    }
}
