package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.SessionOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP transport on a real loopback port: stalled and oversized requests cost no thread, are
 * closed after their timeout, and do not keep a well-behaved client from its answer; a request
 * without the token is refused on its headers alone.
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
}
