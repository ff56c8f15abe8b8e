package dev.quiver.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.sse.DefaultServerSentEventParser;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.quiver.langchain4j.ModelException.Kind;
import dev.quiver.langchain4j.RetryingHttpClientTest.Recording;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An answer past {@link ResponseLimit#MAX_BYTES}, and a listener that throws an Error, against a real
 * loopback server that streams server-sent events in large pieces (so the test moves 70 MB in moments).
 */
class ResponseLimitTest {

    private static final int PIECE = 1024 * 1024;
    private final AtomicInteger requests = new AtomicInteger();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A server whose every answer is {@code pieces} events of 1 MiB of data each, then [DONE]. */
    private String serve(int pieces, boolean stream) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        byte[] filler = new byte[PIECE];
        Arrays.fill(filler, (byte) 'x');
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Content-Type", stream ? "text/event-stream" : "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write((stream ? "data: " : "{\"a\":\"").getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < pieces; i++) {
                    out.write(filler);
                    if (stream) {
                        out.write("\n\ndata: ".getBytes(StandardCharsets.US_ASCII));
                    }
                }
                out.write((stream ? "[DONE]\n\n" : "\"}").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // the client stopped reading: that is what the limit does
            }
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static RetryingHttpClient client() {
        return new QuiverHttpClientBuilder().service("OpenAI").model("gpt-test").keyVariable("OPENAI_API_KEY")
                .retryPolicy(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(5)))
                .readTimeout(Duration.ofSeconds(30)).streamEnd(event -> "[DONE]".equals(event.data())).build();
    }

    private static HttpRequest request(String baseUrl) {
        return HttpRequest.builder().method(HttpMethod.POST).url(baseUrl, "chat/completions")
                .addHeader("Content-Type", "application/json").body("{}").build();
    }

    @Test
    void aStreamPastTheLimitEndsWithOneErrorAndIsNotAskedAgain() throws Exception {
        String url = serve(70, true);
        Recording recording = new Recording();
        client().execute(request(url), new DefaultServerSentEventParser(), recording);
        assertTrue(recording.done.await(60, TimeUnit.SECONDS), "the stream never ended");
        assertFalse(recording.closed);
        assertEquals(1, recording.errors.size(), recording.errors.toString());
        ModelException error = (ModelException) recording.errors.get(0);
        assertEquals(Kind.BAD_RESPONSE, error.kind());
        assertTrue(error.getMessage().startsWith("The answer from OpenAI passed 64 MiB after "), error.getMessage());
        assertTrue(recording.events.size() <= 64, "stopped at the limit: " + recording.events.size());
        assertEquals(1, requests.get(), "the same request would get the same answer");
    }

    @Test
    void aStreamUnderTheLimitIsDeliveredWhole() throws Exception {
        String url = serve(40, true);
        Recording recording = new Recording();
        client().execute(request(url), new DefaultServerSentEventParser(), recording);
        assertTrue(recording.done.await(60, TimeUnit.SECONDS), "the stream never ended");
        assertTrue(recording.closed, recording.toString());
        assertEquals(41, recording.events.size());
    }

    @Test
    void aPlainAnswerPastTheLimitIsAnErrorAndNotAskedAgain() throws Exception {
        String url = serve(70, false);
        ModelException error = assertThrows(ModelException.class, () -> client().execute(request(url)));
        assertEquals("The answer from OpenAI passed 64 MiB, more than any model's answer; Quiver stopped reading it ("
                + url + "/chat/completions).", error.getMessage());
        assertEquals(1, requests.get());
    }

    @Test
    void anErrorThrownByTheListenerEndsTheStreamWithOneReportInsteadOfAHang() throws Exception {
        String url = serve(2, true);
        Recording recording = new Recording() {
            @Override
            public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
                super.onEvent(event, context);
                throw new OutOfMemoryError("Java heap space (thrown by the test)");
            }
        };
        client().execute(request(url), new DefaultServerSentEventParser(), recording);
        assertTrue(recording.done.await(60, TimeUnit.SECONDS), "whoever waits for the answer would wait forever");
        assertEquals(1, recording.errors.size(), recording.errors.toString());
        assertTrue(recording.errors.get(0).getMessage().contains("OutOfMemoryError"), recording.errors.get(0).getMessage());
        assertEquals(1, recording.events.size());
    }
}
