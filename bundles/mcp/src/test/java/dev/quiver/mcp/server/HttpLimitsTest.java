package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.SessionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP transport on a real loopback port: stalled and oversized requests cost no thread, are
 * closed after their timeout, and do not keep a well-behaved client from its answer; a request
 * without the token is refused on its headers alone and cannot crowd out one with it; a body's
 * buffer holds what arrived, not what was announced.
 */
class HttpLimitsTest {

    @TempDir
    Path workspace;

    private final FileToolsKernel kernel = new FileToolsKernel();
    private final java.util.concurrent.ExecutorService workers = CallQueue.workers("test-call", 4);
    private HttpServer server;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = new HttpServer(() -> new ToolService(kernel, SessionOptions.headless(workspace),
                new PrintStream(new ByteArrayOutputStream(), true), "test", Duration.ofSeconds(5), workers), 0,
                Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        server.close();
        workers.shutdownNow();
    }

    private Socket open() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        sockets.add(socket);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Everything the server sends until it closes the connection (bounded wait, so a bug cannot hang the test). */
    private static String readToEnd(Socket socket) throws IOException {
        socket.setSoTimeout(60_000);
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    private String post(HttpClient http, String session, String body) throws Exception {
        java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(URI.create(server.url()))
                .header("Authorization", "Bearer " + server.token())
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(BodyPublishers.ofString(body));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        HttpResponse<String> response = http.send(request.build(), BodyHandlers.ofString());
        assertTrue(response.statusCode() < 300, response.statusCode() + " " + response.body());
        return response.headers().firstValue("Mcp-Session-Id").orElse(session) + "\n" + response.body();
    }

    @Test
    void twoHundredStalledConnectionsHoldNoThreadDoNotStopAClientAndAreClosedAfterTheTimeout() throws Exception {
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Socket socket = open();
            send(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthori"); // headers half-sent
            stalled.add(socket);
        }
        for (int i = 0; i < 100; i++) {
            Socket socket = open();
            send(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + server.token()
                    + "\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n{\"jsonrpc\""); // body never sent
            stalled.add(socket);
        }
        HttpClient http = HttpClient.newBuilder().executor(Executors.newSingleThreadExecutor()).build();
        String initialized = post(http, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        String session = initialized.substring(0, initialized.indexOf('\n'));
        post(http, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        String answer = post(http, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                + "\"name\":\"write\",\"arguments\":{\"text\":\"served\"}}}");
        assertTrue(answer.contains("\"id\":2") && answer.contains("written"), answer);
        assertEquals("served", Files.readString(workspace.resolve("note.txt")));
        int during = ManagementFactory.getThreadMXBean().getThreadCount();
        assertTrue(during - before < 50, "threads grew from " + before + " to " + during + " with 200 stalled");
        for (int i = 0; i < stalled.size(); i++) {
            String rest = readToEnd(stalled.get(i));
            assertTrue(rest.isEmpty() || rest.startsWith("HTTP/1.1 408"), "stalled connection " + i + " got " + rest);
        }
    }

    @Test
    void anUnauthenticatedRequestWithAHugeDeclaredBodyIsRefusedBeforeTheBodyIsRead() throws Exception {
        Socket socket = open();
        send(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 1000000000\r\n\r\n");
        String response = readToEnd(socket);
        assertTrue(response.startsWith("HTTP/1.1 401 "), response);
        assertTrue(response.contains("WWW-Authenticate: Bearer") && response.contains("Authorization: Bearer TOKEN"),
                response);
        Socket wrongToken = open();
        send(wrongToken, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer nope\r\nContent-Length: 10\r\n\r\n");
        assertTrue(readToEnd(wrongToken).startsWith("HTTP/1.1 401 "));
    }

    @Test
    void oversizedHeadersAndBodiesAndChunkedBodiesGetClearStatuses() throws Exception {
        Socket big = open();
        send(big, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + server.token() + "\r\nContent-Length: "
                + (5 * 1024 * 1024) + "\r\n\r\n");
        String tooLarge = readToEnd(big);
        assertTrue(tooLarge.startsWith("HTTP/1.1 413 ") && tooLarge.contains("larger than 4 MiB"), tooLarge);
        Socket headers = open();
        send(headers, "GET /mcp HTTP/1.1\r\nX-Filler: " + "x".repeat(20 * 1024) + "\r\n\r\n");
        String headersTooLarge = readToEnd(headers);
        assertTrue(headersTooLarge.startsWith("HTTP/1.1 431 ") && headersTooLarge.contains("16 KiB"), headersTooLarge);
        Socket chunked = open();
        send(chunked, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + server.token()
                + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        String lengthRequired = readToEnd(chunked);
        assertTrue(lengthRequired.startsWith("HTTP/1.1 411 ") && lengthRequired.contains("Content-Length"),
                lengthRequired);
    }

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    /**
     * Keeps {@code count} connections open that each sent one byte, opening a new one whenever the
     * server closes one, until stopped; counts the closes it saw.
     */
    private final class OneByteFlood implements AutoCloseable {
        final AtomicInteger closedByServer = new AtomicInteger();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private final Selector selector;

        OneByteFlood(int count) throws IOException {
            selector = Selector.open();
            for (int i = 0; i < count; i++) {
                openOne();
            }
            thread = new Thread(this::run, "one-byte-flood");
            thread.start();
        }

        private void openOne() throws IOException {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    server.port()));
            channel.write(ByteBuffer.wrap(new byte[] {'P'}));
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
        }

        private void run() {
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            try {
                while (!stop.get()) {
                    selector.select(100);
                    for (SelectionKey key : selector.selectedKeys()) {
                        buffer.clear();
                        int n;
                        try {
                            n = ((SocketChannel) key.channel()).read(buffer);
                        } catch (IOException e) {
                            n = -1;
                        }
                        if (n < 0) {
                            key.cancel();
                            key.channel().close();
                            closedByServer.incrementAndGet();
                            openOne();
                        }
                    }
                    selector.selectedKeys().clear();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            thread.join(30_000);
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            selector.close();
        }
    }

    @Test
    void sixHundredOneByteConnectionsWithoutATokenDoNotLockOutAClientWithIt() throws Exception {
        int flooding = 600;
        try (OneByteFlood flood = new OneByteFlood(flooding)) {
            long deadline = System.currentTimeMillis() + 60_000;
            // more than the server reads at once: it has closed the oldest to make room
            while (flood.closedByServer.get() < flooding - HttpListener.MAX_READING
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(flood.closedByServer.get() >= flooding - HttpListener.MAX_READING,
                    "the server closed " + flood.closedByServer.get() + " of the flood");
            HttpClient http = HttpClient.newBuilder().executor(Executors.newSingleThreadExecutor()).build();
            String initialized = post(http, null, INITIALIZE);
            String session = initialized.substring(0, initialized.indexOf('\n'));
            post(http, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            String pong = post(http, session, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
            assertTrue(pong.contains("\"id\":\"p\"") && pong.contains("\"result\":{}"), pong);
        }
    }

    @Test
    void aBodyBufferHoldsWhatArrivedNotWhatContentLengthAnnounced() throws Exception {
        int announced = JsonRpcErrors.MAX_MESSAGE_BYTES;
        try (HttpListener listener = new HttpListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                head -> null, (request, reply) -> reply.send(200, "text/plain",
                        request.body().length + " " + Arrays.hashCode(request.body())))) {
            List<Socket> waiting = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
                sockets.add(socket);
                send(socket, "POST /mcp HTTP/1.1\r\nContent-Length: " + announced + "\r\n\r\n" + "x".repeat(i));
                waiting.add(socket);
            }
            long deadline = System.currentTimeMillis() + 30_000;
            while (listener.readingBodies() < 20 && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(20, listener.readingBodies());
            // allocated by the announcement, it would be 20 x 4 MiB; by what arrived, under 200 bytes
            assertTrue(listener.bodyBytes() < 1024, listener.bodyBytes() + " bytes held for 190 bytes of bodies");
            byte[] body = new byte[announced];
            Arrays.fill(body, (byte) 'x');
            Socket last = waiting.get(19);
            for (int offset = 19; offset < announced; offset += 100_000) {
                last.getOutputStream().write(body, offset, Math.min(100_000, announced - offset));
            }
            last.getOutputStream().flush();
            String response = readToEnd(last);
            assertTrue(response.startsWith("HTTP/1.1 200 ") && response.endsWith("\r\n\r\n" + announced + " "
                    + Arrays.hashCode(body)), response.substring(0, Math.min(300, response.length())));
        }
    }

    @Test
    void aRequestWithBareLineFeedsIsServedLikeOneWithCarriageReturns() throws Exception {
        Socket socket = open();
        send(socket, "POST /mcp HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer " + server.token()
                + "\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: "
                + INITIALIZE.length() + "\n\n" + INITIALIZE);
        String response = readToEnd(socket);
        assertTrue(response.startsWith("HTTP/1.1 200 ") && response.contains("Mcp-Session-Id: ")
                && response.contains("\"protocolVersion\":\"2025-06-18\""), response);
    }

    @Test
    void aBodyWithGarbageAfterTheJsonIsAParseErrorNotAPing() throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}garbage";
        Socket socket = open();
        send(socket, "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + server.token()
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + "Mcp-Session-Id: none\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        String response = readToEnd(socket);
        assertTrue(response.startsWith("HTTP/1.1 400 ") && response.contains("\"code\":-32700"), response);
    }

    /** A POST of one JSON-RPC message on a connection of its own, answered on it, as an MCP client sends each. */
    private Socket postRaw(String session, String body) throws IOException {
        Socket socket = open();
        send(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + server.token()
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + "Mcp-Session-Id: " + session + "\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                + "\r\n\r\n" + body);
        return socket;
    }

    /** What arrived on each socket so far, read without waiting: a call's event stream starts with its headers. */
    private final java.util.Map<Socket, StringBuilder> arrived = new java.util.HashMap<>();

    private String arrived(Socket socket) throws IOException {
        StringBuilder text = arrived.computeIfAbsent(socket, key -> new StringBuilder());
        InputStream in = socket.getInputStream();
        for (int n; (n = in.available()) > 0; ) {
            text.append(new String(in.readNBytes(n), StandardCharsets.ISO_8859_1));
        }
        return text.toString();
    }

    /** The sockets whose text so far holds {@code answer}, waiting up to {@code within} for {@code count} of them. */
    private List<Socket> answered(List<Socket> sockets, String answer, int count, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            List<Socket> answered = new ArrayList<>();
            for (Socket socket : sockets) {
                if (arrived(socket).contains(answer)) {
                    answered.add(socket);
                }
            }
            if (answered.size() >= count || System.nanoTime() >= deadline) {
                return answered;
            }
            Thread.sleep(10);
        }
    }

    /** All a socket's text: what arrived so far and the rest, until the server closes it. */
    private String whole(Socket socket) throws IOException {
        return arrived(socket) + readToEnd(socket);
    }

    @Test
    void callsPastTheBoundOfOneSessionAreAnsweredServerBusyAndTheQueuedOnesAllRunOneAtATime() throws Exception {
        HttpClient http = HttpClient.newBuilder().executor(Executors.newSingleThreadExecutor()).build();
        String initialized = post(http, null, INITIALIZE);
        String session = initialized.substring(0, initialized.indexOf('\n'));
        post(http, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        Socket blocked = postRaw(session, "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"block\",\"arguments\":{}}}");
        for (long end = System.nanoTime() + Duration.ofSeconds(30).toNanos(); kernel.running.get() == 0
                && System.nanoTime() < end; ) {
            Thread.sleep(5);
        }
        assertEquals(1, kernel.running.get(), "the blocking call did not start");
        // one more than may wait behind the running call, each on its own connection as clients send them
        List<Socket> calls = new ArrayList<>();
        for (int i = 0; i <= CallQueue.LIMIT; i++) {
            calls.add(postRaw(session, "{\"jsonrpc\":\"2.0\",\"id\":" + (100 + i) + ",\"method\":\"tools/call\","
                    + "\"params\":{\"name\":\"append\",\"arguments\":{\"text\":\"call " + i + "\"}}}"));
        }
        // an answer holds its request's id; the headers of the event stream come at once for every call
        List<Socket> refused = answered(calls, "\"id\":", 1, Duration.ofSeconds(30));
        assertEquals(1, refused.size(), "calls answered while the first still runs");
        String busy = whole(refused.get(0));
        assertTrue(busy.startsWith("HTTP/1.1 200 ") && busy.contains("\"code\":-32000")
                && busy.contains("Server busy: " + CallQueue.LIMIT + " calls are queued on this connection"), busy);
        Thread.sleep(200);
        assertEquals(1, answered(calls, "\"id\":", 2, Duration.ZERO).size(), "a queued call was answered before it ran");

        post(http, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"b\"}}");
        assertTrue(whole(blocked).contains("interrupted"));
        int appended = 0;
        for (Socket call : calls) {
            if (call != refused.get(0)) {
                String answer = whole(call);
                assertTrue(answer.contains("appended"), answer);
                appended++;
            }
        }
        assertEquals(CallQueue.LIMIT, appended);
        assertEquals(CallQueue.LIMIT, Files.readAllLines(workspace.resolve("log.txt")).size());
        assertEquals(0, kernel.overlaps.get(), "calls of one session overlapped");
    }

    @Test
    void requestsPastTheHandlerQueueAreAnswered503WhileTheHandlersAreBusy() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger handling = new AtomicInteger();
        try (HttpListener listener = new HttpListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                head -> null, (request, reply) -> {
                    handling.incrementAndGet();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply.send(200, "text/plain", "handled");
                })) {
            int accepted = HttpListener.HANDLER_THREADS + HttpListener.HANDLER_QUEUE;
            List<Socket> requests = new ArrayList<>();
            for (int i = 0; i < accepted + 8; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
                sockets.add(socket);
                send(socket, "POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
                requests.add(socket);
            }
            List<Socket> refused = answered(requests, "HTTP/1.1 ", 8, Duration.ofSeconds(30));
            assertEquals(8, refused.size(), "requests answered while every handler is busy");
            for (Socket socket : refused) {
                String response = whole(socket);
                assertTrue(response.startsWith("HTTP/1.1 503 ") && response.contains("server busy: "
                        + HttpListener.HANDLER_QUEUE + " requests are waiting for a handler"), response);
            }
            // every handler thread has taken a request (the queue behind them is full), but one may not have
            // reached the handler's first line yet when the refusals arrive
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (handling.get() < HttpListener.HANDLER_THREADS && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertEquals(HttpListener.HANDLER_THREADS, handling.get(), "handlers running");
            release.countDown();
            for (Socket socket : requests) {
                if (!refused.contains(socket)) {
                    String response = whole(socket);
                    assertTrue(response.startsWith("HTTP/1.1 200 ") && response.endsWith("handled"), response);
                }
            }
            assertEquals(accepted, handling.get());
        }
    }
}
