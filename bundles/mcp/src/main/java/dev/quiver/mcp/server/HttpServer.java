package dev.quiver.mcp.server;

import com.sun.net.httpserver.HttpExchange;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The streamable HTTP transport on the JDK's HTTP server, bound to {@code 127.0.0.1} only, at
 * {@code /mcp}. Every request must carry {@code Authorization: Bearer TOKEN}, the random token made
 * at start; a browser page cannot send it, and a request from another origin is refused as well.
 *
 * <ul>
 *   <li>{@code POST} a request: the answer, and any request the server makes meanwhile (an
 *       elicitation), come as a server-sent event stream; {@code initialize} is answered with JSON
 *       and an {@code Mcp-Session-Id}.</li>
 *   <li>{@code POST} a notification or a response: 202.</li>
 *   <li>{@code GET}: the session's listening stream, where {@code tools/list_changed} arrives.</li>
 *   <li>{@code DELETE}: ends the session.</li>
 * </ul>
 *
 * <p>The SDK's {@link McpStreamableServerSession} does the protocol; each session has its own
 * {@link ToolService} and so its own Quiver session.
 */
final class HttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    static final String PATH = "/mcp";
    static final int MAX_SESSIONS = 32;
    private static final Duration IDLE = Duration.ofHours(1);
    private static final long KEEP_ALIVE_MILLIS = 15_000;

    private final com.sun.net.httpserver.HttpServer server;
    private final Supplier<ToolService> services;
    private final Duration requestTimeout;
    private final byte[] expected;
    private final String token;
    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();
    private final ExecutorService executor;
    private final ScheduledExecutorService sweeper;
    private final AtomicInteger eventIds = new AtomicInteger();
    private volatile boolean closed;

    /** One MCP session: the SDK's session, Quiver's service behind it, and when it was last used. */
    private static final class Entry {
        final McpStreamableServerSession session;
        final ToolService service;
        volatile long lastUsed = System.nanoTime();
        final AtomicInteger open = new AtomicInteger();

        Entry(McpStreamableServerSession session, ToolService service) {
            this.session = session;
            this.service = service;
        }
    }

    HttpServer(Supplier<ToolService> services, int port, Duration requestTimeout) throws IOException {
        this.services = services;
        this.requestTimeout = requestTimeout;
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        this.expected = ("Bearer " + token).getBytes(StandardCharsets.US_ASCII);
        this.server = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 50);
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "quiver-mcp-http-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "quiver-mcp-http-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, 1, 1, TimeUnit.MINUTES);
        server.start();
    }

    /** The endpoint, such as {@code http://127.0.0.1:8123/mcp}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + PATH;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** The bearer token every request must carry. */
    String token() {
        return token;
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            if (!authorized(exchange)) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"quiver\"");
                plain(exchange, 401, "{\"error\":\"unauthorized: send Authorization: Bearer TOKEN, the token quiver "
                        + "mcp --http printed at start\"}");
                return;
            }
            if (!allowedOrigin(exchange)) {
                plain(exchange, 403, "{\"error\":\"forbidden: requests from other origins are refused\"}");
                return;
            }
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                plain(exchange, 404, "{\"error\":\"not found: the MCP endpoint is " + PATH + "\"}");
                return;
            }
            if (closed) {
                plain(exchange, 503, "{\"error\":\"the server is stopping\"}");
                return;
            }
            String version = exchange.getRequestHeaders().getFirst("MCP-Protocol-Version");
            if (version != null && !ToolService.PROTOCOL_VERSIONS.contains(version)) {
                jsonError(exchange, 400, null, ErrorCodes.INVALID_REQUEST, "Unsupported MCP-Protocol-Version " + version
                        + "; this server speaks " + String.join(", ", ToolService.PROTOCOL_VERSIONS) + ".");
                return;
            }
            switch (exchange.getRequestMethod()) {
                case "POST" -> post(exchange);
                case "GET" -> get(exchange);
                case "DELETE" -> delete(exchange);
                default -> {
                    exchange.getResponseHeaders().set("Allow", "GET, POST, DELETE");
                    plain(exchange, 405, "{\"error\":\"method not allowed\"}");
                }
            }
        } catch (IOException e) {
            LOG.debug("An MCP HTTP exchange failed", e);
        } catch (RuntimeException e) {
            LOG.warn("An MCP HTTP exchange failed", e);
        }
    }

    private boolean authorized(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        return header != null && MessageDigest.isEqual(expected, header.trim().getBytes(StandardCharsets.US_ASCII));
    }

    /** Browsers send Origin; only pages of this very server would be allowed (there are none). */
    private boolean allowedOrigin(HttpExchange exchange) {
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin == null) {
            return true;
        }
        int port = port();
        return origin.equals("http://127.0.0.1:" + port) || origin.equals("http://localhost:" + port);
    }

    private void post(HttpExchange exchange) throws IOException {
        String accept = Objects.toString(exchange.getRequestHeaders().getFirst("Accept"), "");
        byte[] body = readBody(exchange);
        if (body == null) {
            jsonError(exchange, 413, null, ErrorCodes.INVALID_REQUEST, "Invalid request: the message is larger than "
                    + (JsonRpcErrors.MAX_MESSAGE_BYTES / (1024 * 1024)) + " MiB.");
            return;
        }
        JsonRpcErrors.Checked checked = JsonRpcErrors.check(new String(body, StandardCharsets.UTF_8));
        if (checked.error() != null) {
            send(exchange, 400, "application/json", checked.error());
            return;
        }
        McpSchema.JSONRPCMessage message = checked.message();
        if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initialize(exchange, request);
            return;
        }
        Entry entry = entry(exchange, message instanceof McpSchema.JSONRPCRequest r ? r.id() : null);
        if (entry == null) {
            return;
        }
        entry.lastUsed = System.nanoTime();
        if (message instanceof McpSchema.JSONRPCNotification notification) {
            entry.session.accept(notification).block(requestTimeout);
            send(exchange, 202, null, "");
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            entry.session.accept(response).block(requestTimeout);
            send(exchange, 202, null, "");
        } else if (message instanceof McpSchema.JSONRPCRequest request) {
            if (!accept.contains("text/event-stream") && !accept.contains("*/*")) {
                jsonError(exchange, 406, request.id(), ErrorCodes.INVALID_REQUEST,
                        "Not acceptable: requests are answered with text/event-stream; list it in Accept.");
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            EventStream stream = new EventStream(exchange, request.id());
            entry.open.incrementAndGet();
            try {
                entry.session.responseStream(request, stream).subscribe(null, e -> {
                    LOG.warn("An MCP request failed", e);
                    stream.close();
                });
                stream.awaitClosed(Long.MAX_VALUE);
            } finally {
                entry.open.decrementAndGet();
                entry.lastUsed = System.nanoTime();
                stream.close();
            }
        }
    }

    private void initialize(HttpExchange exchange, McpSchema.JSONRPCRequest request) throws IOException {
        if (sessions.size() >= MAX_SESSIONS) {
            sweep();
            if (sessions.size() >= MAX_SESSIONS) {
                jsonError(exchange, 503, request.id(), ErrorCodes.INTERNAL_ERROR, "Too many sessions (" + MAX_SESSIONS
                        + "); end one with DELETE first.");
                return;
            }
        }
        McpSchema.InitializeRequest init;
        try {
            init = Json.MCP.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() { });
        } catch (RuntimeException e) {
            jsonError(exchange, 400, request.id(), ErrorCodes.INVALID_PARAMS, "Invalid params for initialize: "
                    + e.getMessage());
            return;
        }
        ToolService service = services.get();
        McpSchema.InitializeResult result;
        try {
            result = service.initialize(init).block(requestTimeout);
        } catch (RuntimeException e) {
            service.close();
            int code = e instanceof io.modelcontextprotocol.spec.McpError m && m.getJsonRpcError() != null
                    ? m.getJsonRpcError().code() : ErrorCodes.INTERNAL_ERROR;
            jsonError(exchange, 200, request.id(), code, e.getMessage());
            return;
        }
        String id = UUID.randomUUID().toString();
        McpStreamableServerSession session = new McpStreamableServerSession(id, init.capabilities(), init.clientInfo(),
                requestTimeout, service.requestHandlers(), service.notificationHandlers());
        service.notifier(method -> session.sendNotification(method, null).subscribe(null,
                e -> LOG.debug("Could not send {} to session {}", method, id, e)));
        sessions.put(id, new Entry(session, service));
        exchange.getResponseHeaders().set("Mcp-Session-Id", id);
        send(exchange, 200, "application/json", Json.write(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION,
                request.id(), result, null)));
    }

    private void get(HttpExchange exchange) throws IOException {
        String accept = Objects.toString(exchange.getRequestHeaders().getFirst("Accept"), "");
        if (!accept.contains("text/event-stream")) {
            jsonError(exchange, 406, null, ErrorCodes.INVALID_REQUEST, "Not acceptable: GET opens a text/event-stream.");
            return;
        }
        Entry entry = entry(exchange, null);
        if (entry == null) {
            return;
        }
        if (entry.session.hasListeningStream()) {
            jsonError(exchange, 409, null, ErrorCodes.INVALID_REQUEST, "This session already has a listening stream.");
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        EventStream stream = new EventStream(exchange, null);
        McpStreamableServerSession.McpStreamableServerSessionStream listening = entry.session.listeningStream(stream);
        entry.open.incrementAndGet();
        try {
            while (!stream.awaitClosed(KEEP_ALIVE_MILLIS)) {
                stream.comment("keep-alive"); // finds a client that went away
            }
        } finally {
            entry.open.decrementAndGet();
            listening.close();
            entry.session.releaseListeningStream();
        }
    }

    private void delete(HttpExchange exchange) throws IOException {
        Entry entry = entry(exchange, null);
        if (entry == null) {
            return;
        }
        String id = exchange.getRequestHeaders().getFirst("Mcp-Session-Id");
        end(id, entry);
        send(exchange, 200, null, "");
    }

    /** The session a request names, or null after answering 400 (no id) or 404 (unknown id). */
    private Entry entry(HttpExchange exchange, Object requestId) throws IOException {
        String id = exchange.getRequestHeaders().getFirst("Mcp-Session-Id");
        if (id == null || id.isBlank()) {
            jsonError(exchange, 400, requestId, ErrorCodes.INVALID_REQUEST,
                    "Missing Mcp-Session-Id header: send initialize first and echo the id it returns.");
            return null;
        }
        Entry entry = sessions.get(id.trim());
        if (entry == null) {
            jsonError(exchange, 404, requestId, ErrorCodes.INVALID_REQUEST, "Unknown or ended session " + id.trim()
                    + "; send initialize again.");
            return null;
        }
        return entry;
    }

    private void end(String id, Entry entry) {
        if (id != null && sessions.remove(id, entry)) {
            try {
                entry.session.delete().block(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.debug("Ending MCP session {} failed", id, e);
            }
            entry.service.close();
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        sessions.forEach((id, entry) -> {
            if (entry.open.get() == 0 && now - entry.lastUsed > IDLE.toNanos()) {
                LOG.info("Ending MCP session {}: idle for {}", id, IDLE);
                end(id, entry);
            }
        });
    }

    /**
     * The body, or null when it is larger than the limit. An oversized body is still read (up to a
     * bound) and dropped, so the client gets to read the 413 instead of a reset connection.
     */
    private static byte[] readBody(HttpExchange exchange) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        try (InputStream in = exchange.getRequestBody()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                total += n;
                if (total <= JsonRpcErrors.MAX_MESSAGE_BYTES) {
                    body.write(buffer, 0, n);
                } else if (total > 16L * JsonRpcErrors.MAX_MESSAGE_BYTES) {
                    break; // stop reading; the connection closes after the answer
                }
            }
        }
        return total > JsonRpcErrors.MAX_MESSAGE_BYTES ? null : body.toByteArray();
    }

    private static void jsonError(HttpExchange exchange, int status, Object id, int code, String message)
            throws IOException {
        send(exchange, status, "application/json", JsonRpcErrors.error(id == null ? null : Json.MAPPER.valueToTree(id),
                code, message));
    }

    private static void plain(HttpExchange exchange, int status, String json) throws IOException {
        send(exchange, status, "application/json", json);
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (type != null) {
            exchange.getResponseHeaders().set("Content-Type", type);
        }
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sessions.forEach(this::end);
        sweeper.shutdownNow();
        server.stop(0);
        executor.shutdownNow();
    }

    /**
     * One server-sent event stream: a POST's answer stream (closed once the answer to its request is
     * written) or a session's listening stream (closed when the client goes away).
     */
    private final class EventStream implements McpStreamableServerTransport {

        private final HttpExchange exchange;
        private final Object answers;
        private final OutputStream out;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile boolean closed;

        EventStream(HttpExchange exchange, Object answers) {
            this.exchange = exchange;
            this.answers = answers;
            this.out = exchange.getResponseBody();
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromRunnable(() -> {
                String id = messageId != null ? messageId : Integer.toString(eventIds.incrementAndGet());
                write("id: " + id + "\nevent: message\ndata: " + Json.write(message) + "\n\n");
                if (answers != null && message instanceof McpSchema.JSONRPCResponse response
                        && answers.equals(response.id())) {
                    close();
                }
            });
        }

        void comment(String text) {
            write(": " + text + "\n\n");
        }

        private synchronized void write(String event) {
            if (closed) {
                return;
            }
            try {
                out.write(event.getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                LOG.debug("An MCP event stream closed", e);
                close();
            }
        }

        /** Waits until the stream is closed; whether it is. */
        boolean awaitClosed(long millis) {
            try {
                return done.await(millis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return Json.MCP.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(this::close);
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                try {
                    out.close();
                } catch (IOException ignored) {
                    // the client went away
                }
            }
            done.countDown();
        }
    }

    /** For tests and logs: the sessions open now. */
    List<String> sessionIds() {
        return List.copyOf(sessions.keySet());
    }
}
