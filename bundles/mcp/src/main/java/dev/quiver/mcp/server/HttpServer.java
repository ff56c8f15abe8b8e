package dev.quiver.mcp.server;

import dev.quiver.mcp.Json;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import java.io.IOException;
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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The streamable HTTP transport, bound to {@code 127.0.0.1} only, at {@code /mcp}. Every request
 * must carry {@code Authorization: Bearer TOKEN}, the random token made at start; a browser page
 * cannot send it, and a request from another origin is refused as well. Both are checked on the
 * headers, before any byte of the body is read ({@link HttpListener} reads requests within size
 * and time limits, without a thread per connection).
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
 * {@link ToolService} and so its own Quiver session. A {@code tools/call} waits in its session's
 * queue without a thread; its event stream is written by the call's worker and closed after the
 * answer. Listening streams get a keep-alive comment every {@link #KEEP_ALIVE_MILLIS}, which also
 * finds clients that went away.
 */
final class HttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    static final String PATH = "/mcp";
    static final int MAX_SESSIONS = 32;
    private static final Duration IDLE = Duration.ofHours(1);
    private static final long KEEP_ALIVE_MILLIS = 15_000;

    private final HttpListener listener;
    private final Supplier<ToolService> services;
    private final Duration requestTimeout;
    private final byte[] expected;
    private final String token;
    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();
    private final Set<EventStream> listening = ConcurrentHashMap.newKeySet();
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

        /** Counts an open stream until it closes, so the idle sweep leaves the session alone meanwhile. */
        Runnable opened() {
            open.incrementAndGet();
            return () -> {
                lastUsed = System.nanoTime();
                open.decrementAndGet();
            };
        }
    }

    HttpServer(Supplier<ToolService> services, int port, Duration requestTimeout) throws IOException {
        this.services = services;
        this.requestTimeout = requestTimeout;
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        this.expected = ("Bearer " + token).getBytes(StandardCharsets.US_ASCII);
        this.listener = new HttpListener(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), this::gate,
                this::handle);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "quiver-mcp-http-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, 1, 1, TimeUnit.MINUTES);
        sweeper.scheduleWithFixedDelay(() -> listening.forEach(stream -> stream.comment("keep-alive")),
                KEEP_ALIVE_MILLIS, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The endpoint, such as {@code http://127.0.0.1:8123/mcp}. */
    String url() {
        return "http://127.0.0.1:" + port() + PATH;
    }

    int port() {
        return listener.port();
    }

    /** The bearer token every request must carry. */
    String token() {
        return token;
    }

    /** What is refused on the headers alone: no token, another origin, another path, a stopping server. */
    private HttpListener.Gate.Refusal gate(HttpRequest request) {
        if (!authorized(request)) {
            return refusal(401, Map.of("WWW-Authenticate", "Bearer realm=\"quiver\""), "{\"error\":\"unauthorized: send "
                    + "Authorization: Bearer TOKEN, the token quiver mcp --http printed at start\"}");
        }
        if (!allowedOrigin(request)) {
            return refusal(403, Map.of(), "{\"error\":\"forbidden: requests from other origins are refused\"}");
        }
        if (!PATH.equals(request.path())) {
            return refusal(404, Map.of(), "{\"error\":\"not found: the MCP endpoint is " + PATH + "\"}");
        }
        if (closed) {
            return refusal(503, Map.of(), "{\"error\":\"the server is stopping\"}");
        }
        return null;
    }

    private static HttpListener.Gate.Refusal refusal(int status, Map<String, String> headers, String json) {
        return new HttpListener.Gate.Refusal(HttpReply.json(status, headers, json));
    }

    private void handle(HttpRequest request, HttpReply reply) throws IOException {
        String version = request.header("MCP-Protocol-Version");
        if (version != null && !ToolService.PROTOCOL_VERSIONS.contains(version)) {
            jsonError(reply, 400, null, ErrorCodes.INVALID_REQUEST, "Unsupported MCP-Protocol-Version " + version
                    + "; this server speaks " + String.join(", ", ToolService.PROTOCOL_VERSIONS) + ".");
            return;
        }
        switch (request.method()) {
            case "POST" -> post(request, reply);
            case "GET" -> get(request, reply);
            case "DELETE" -> delete(request, reply);
            default -> {
                reply.header("Allow", "GET, POST, DELETE");
                reply.send(405, "application/json", "{\"error\":\"method not allowed\"}");
            }
        }
    }

    private boolean authorized(HttpRequest request) {
        String header = request.header("Authorization");
        return header != null && MessageDigest.isEqual(expected, header.trim().getBytes(StandardCharsets.US_ASCII));
    }

    /** Browsers send Origin; only pages of this very server would be allowed (there are none). */
    private boolean allowedOrigin(HttpRequest request) {
        String origin = request.header("Origin");
        if (origin == null) {
            return true;
        }
        int port = port();
        return origin.equals("http://127.0.0.1:" + port) || origin.equals("http://localhost:" + port);
    }

    private void post(HttpRequest http, HttpReply reply) throws IOException {
        String accept = Objects.toString(http.header("Accept"), "");
        JsonRpcErrors.Checked checked = JsonRpcErrors.check(new String(http.body(), StandardCharsets.UTF_8));
        if (checked.error() != null) {
            reply.send(400, "application/json", checked.error());
            return;
        }
        McpSchema.JSONRPCMessage message = checked.message();
        if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initialize(http, reply, request);
            return;
        }
        Entry entry = entry(http, reply, message instanceof McpSchema.JSONRPCRequest r ? r.id() : null);
        if (entry == null) {
            return;
        }
        entry.lastUsed = System.nanoTime();
        if (message instanceof McpSchema.JSONRPCNotification notification) {
            entry.session.accept(notification).block(requestTimeout);
            reply.send(202, null, "");
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            entry.session.accept(response).block(requestTimeout);
            reply.send(202, null, "");
        } else if (message instanceof McpSchema.JSONRPCRequest request) {
            if (!accept.contains("text/event-stream") && !accept.contains("*/*")) {
                jsonError(reply, 406, request.id(), ErrorCodes.INVALID_REQUEST,
                        "Not acceptable: requests are answered with text/event-stream; list it in Accept.");
                return;
            }
            reply.startEvents();
            EventStream stream = new EventStream(reply, request.id(), entry.opened());
            if (McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
                entry.service.queue(request.id(), new CallOnStream(entry, request, stream));
            } else {
                entry.session.responseStream(request, stream).subscribe(null, e -> {
                    LOG.warn("An MCP request failed", e);
                    stream.close();
                });
            }
            // the stream closes itself once the answer is written; no thread waits for it
        }
    }

    /** A {@code tools/call} in its session's queue, answered on its POST's event stream. */
    private record CallOnStream(Entry entry, McpSchema.JSONRPCRequest request, EventStream stream)
            implements CallQueue.Call {

        @Override
        public void run() {
            try {
                entry.session.responseStream(request, stream).block();
            } finally {
                stream.close();
            }
        }

        @Override
        public void refuse(int code, String message) {
            stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), null,
                    new McpSchema.JSONRPCResponse.JSONRPCError(code, message, null))).block();
            stream.close();
        }
    }

    private void initialize(HttpRequest http, HttpReply reply, McpSchema.JSONRPCRequest request) throws IOException {
        if (sessions.size() >= MAX_SESSIONS) {
            sweep();
            if (sessions.size() >= MAX_SESSIONS) {
                jsonError(reply, 503, request.id(), ErrorCodes.INTERNAL_ERROR, "Too many sessions (" + MAX_SESSIONS
                        + "); end one with DELETE first.");
                return;
            }
        }
        McpSchema.InitializeRequest init;
        try {
            init = Json.MCP.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() { });
        } catch (RuntimeException e) {
            jsonError(reply, 400, request.id(), ErrorCodes.INVALID_PARAMS, "Invalid params for initialize: "
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
            jsonError(reply, 200, request.id(), code, e.getMessage());
            return;
        }
        String id = UUID.randomUUID().toString();
        McpStreamableServerSession session = new McpStreamableServerSession(id, init.capabilities(), init.clientInfo(),
                requestTimeout, service.requestHandlers(), service.notificationHandlers());
        service.notifier(method -> session.sendNotification(method, null).subscribe(null,
                e -> LOG.debug("Could not send {} to session {}", method, id, e)));
        sessions.put(id, new Entry(session, service));
        reply.header("Mcp-Session-Id", id);
        reply.send(200, "application/json", Json.write(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION,
                request.id(), result, null)));
    }

    private void get(HttpRequest http, HttpReply reply) throws IOException {
        String accept = Objects.toString(http.header("Accept"), "");
        if (!accept.contains("text/event-stream")) {
            jsonError(reply, 406, null, ErrorCodes.INVALID_REQUEST, "Not acceptable: GET opens a text/event-stream.");
            return;
        }
        Entry entry = entry(http, reply, null);
        if (entry == null) {
            return;
        }
        if (entry.session.hasListeningStream()) {
            jsonError(reply, 409, null, ErrorCodes.INVALID_REQUEST, "This session already has a listening stream.");
            return;
        }
        reply.startEvents();
        Runnable closed = entry.opened();
        EventStream[] stream = new EventStream[1];
        stream[0] = new EventStream(reply, null, () -> {
            listening.remove(stream[0]);
            entry.session.releaseListeningStream();
            closed.run();
        });
        entry.session.listeningStream(stream[0]);
        listening.add(stream[0]);
    }

    private void delete(HttpRequest http, HttpReply reply) throws IOException {
        Entry entry = entry(http, reply, null);
        if (entry == null) {
            return;
        }
        end(http.header("Mcp-Session-Id").trim(), entry);
        reply.send(200, null, "");
    }

    /** The session a request names, or null after answering 400 (no id) or 404 (unknown id). */
    private Entry entry(HttpRequest http, HttpReply reply, Object requestId) throws IOException {
        String id = http.header("Mcp-Session-Id");
        if (id == null || id.isBlank()) {
            jsonError(reply, 400, requestId, ErrorCodes.INVALID_REQUEST,
                    "Missing Mcp-Session-Id header: send initialize first and echo the id it returns.");
            return null;
        }
        Entry entry = sessions.get(id.trim());
        if (entry == null) {
            jsonError(reply, 404, requestId, ErrorCodes.INVALID_REQUEST, "Unknown or ended session " + id.trim()
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

    private static void jsonError(HttpReply reply, int status, Object id, int code, String message)
            throws IOException {
        reply.send(status, "application/json", JsonRpcErrors.error(id == null ? null : Json.MAPPER.valueToTree(id),
                code, message));
    }

    @Override
    public void close() {
        closed = true;
        sessions.forEach(this::end);
        sweeper.shutdownNow();
        listener.close();
    }

    /**
     * One server-sent event stream: a POST's answer stream (closed once the answer to its request is
     * written) or a session's listening stream (closed when the client goes away).
     */
    private final class EventStream implements McpStreamableServerTransport {

        private final HttpReply reply;
        private final Object answers;
        private final Runnable onClose;
        private boolean closed;

        EventStream(HttpReply reply, Object answers, Runnable onClose) {
            this.reply = reply;
            this.answers = answers;
            this.onClose = onClose;
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

        private void write(String event) {
            try {
                reply.write(event.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                LOG.debug("An MCP event stream closed", e);
                close();
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
            }
            reply.close();
            onClose.run();
        }
    }

    /** For tests and logs: the sessions open now. */
    List<String> sessionIds() {
        return List.copyOf(sessions.keySet());
    }
}
