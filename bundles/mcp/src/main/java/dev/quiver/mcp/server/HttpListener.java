package dev.quiver.mcp.server;

import dev.quiver.mcp.Json;
import dev.quiver.mcp.server.HttpListener.Gate.Refusal;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 front of the MCP server. One thread reads every request without blocking, within
 * limits, and only a complete request reaches a handler thread of a small bounded pool:
 *
 * <ul>
 *   <li>the request line and headers must arrive within {@link #HEADER_TIMEOUT} of the connection
 *       and fit in {@link #MAX_HEADER_BYTES} (else 408 / 431); lines may end with CRLF or a bare
 *       LF, which HTTP/1.1 asks servers to tolerate;</li>
 *   <li>the {@link Gate} sees the headers before any byte of the body is read: an unauthorized
 *       request is answered (401) without its body;</li>
 *   <li>the body needs a {@code Content-Length} of at most {@link JsonRpcErrors#MAX_MESSAGE_BYTES}
 *       (else 411 / 413) and must arrive within {@link #BODY_TIMEOUT} of the headers (else 408);
 *       its buffer grows as its bytes arrive, so a length announced and never sent costs nothing;</li>
 *   <li>at most {@link #MAX_READING} connections are read at once. A new one past that closes the
 *       connection that has been reading its headers longest: one not yet authorized, so clients
 *       without the token cannot crowd out those with it. Only when all are authorized requests
 *       reading their bodies is the new connection closed instead;</li>
 *   <li>at most {@link #HANDLER_QUEUE} complete requests wait for a handler (else 503).</li>
 * </ul>
 *
 * A stalled client so costs a socket and a small buffer until its timeout, never a thread.
 */
final class HttpListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpListener.class);
    static final int MAX_HEADER_BYTES = 16 * 1024;
    static final Duration HEADER_TIMEOUT = Duration.ofSeconds(5);
    static final Duration BODY_TIMEOUT = Duration.ofSeconds(5);
    /** How long one write to a client may block (a client that stopped reading) before it is dropped. */
    static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);
    /** How long a refused request's unread bytes are drained, so the client reads the answer, not a reset. */
    private static final Duration LINGER = Duration.ofSeconds(1);
    static final int MAX_READING = 512;
    static final int HANDLER_THREADS = 8;
    static final int HANDLER_QUEUE = 64;

    /** Looks at a request's headers before its body is read. */
    interface Gate {
        /** A whole response to send instead of reading on, or null to read the body and handle it. */
        Refusal check(HttpRequest head);

        /** A response written by the reading thread, after which the connection closes. */
        record Refusal(byte[] response) {
        }
    }

    /** Handles a complete request on a handler thread; the reply closes the connection when done. */
    interface Handler {
        void handle(HttpRequest request, HttpReply reply) throws IOException;
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Gate gate;
    private final Handler handler;
    private final ThreadPoolExecutor handlers;
    private final Set<HttpReply> replies = ConcurrentHashMap.newKeySet();
    private final ByteBuffer readBuffer = ByteBuffer.allocate(64 * 1024);
    private final Thread reader;
    /** The connections being read, oldest first; only the reader thread touches it. */
    private final Set<Incoming> connections = new LinkedHashSet<>();
    /** Requests reading their bodies, and the bytes their buffers hold (for tests and logs). */
    private final AtomicInteger readingBodies = new AtomicInteger();
    private final AtomicLong bodyBytes = new AtomicLong();
    private volatile boolean closed;

    /** A connection being read: its head, then its body, each against a deadline. */
    private static final class Incoming {
        final SelectionKey key;
        ByteArrayOutputStream head = new ByteArrayOutputStream(1024);
        long deadline;
        /** Set once the gate let the headers through: from then on the connection is authorized. */
        HttpRequest request;
        long bodyLength;
        byte[] body = new byte[0];
        int bodyRead;
        boolean draining;

        Incoming(SelectionKey key, long deadline) {
            this.key = key;
            this.deadline = deadline;
        }

        SocketChannel channel() {
            return (SocketChannel) key.channel();
        }
    }

    HttpListener(InetSocketAddress address, Gate gate, Handler handler) throws IOException {
        this.gate = gate;
        this.handler = handler;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        try {
            server.bind(address, 128);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            selector.close();
            throw e;
        }
        AtomicInteger threads = new AtomicInteger();
        this.handlers = new ThreadPoolExecutor(HANDLER_THREADS, HANDLER_THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(HANDLER_QUEUE), task -> {
                    Thread thread = new Thread(task, "quiver-mcp-http-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        handlers.allowCoreThreadTimeOut(true);
        this.reader = new Thread(this::run, "quiver-mcp-http-reader");
        reader.setDaemon(true);
        reader.start();
    }

    int port() {
        return server.socket().getLocalPort();
    }

    private void run() {
        List<Incoming> complete = new ArrayList<>();
        try {
            while (!closed) {
                selector.select(200);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else if (key.isReadable()) {
                        read(key, complete);
                    }
                }
                selector.selectedKeys().clear();
                if (!complete.isEmpty()) {
                    selector.selectNow(); // deregisters the cancelled keys, so the channels can block
                    selector.selectedKeys().clear();
                    complete.forEach(this::dispatch);
                    complete.clear();
                }
                expire();
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closed) {
                LOG.warn("The MCP HTTP listener stopped", e);
            }
        }
    }

    private void accept() throws IOException {
        SocketChannel channel;
        while ((channel = server.accept()) != null) {
            if (connections.size() >= MAX_READING && !evictOldestUnauthorized()) {
                LOG.debug("Refusing an MCP HTTP connection: {} authorized requests are being read", MAX_READING);
                channel.close();
                continue;
            }
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            Incoming in = new Incoming(key, System.nanoTime() + HEADER_TIMEOUT.toNanos());
            key.attach(in);
            connections.add(in);
        }
    }

    /** Closes the connection that has been reading its headers longest; false when every one is authorized. */
    private boolean evictOldestUnauthorized() {
        for (Incoming in : connections) {
            if (in.request == null) {
                LOG.debug("Closing the oldest unauthorized MCP HTTP connection: {} are being read", MAX_READING);
                drop(in.key);
                return true;
            }
        }
        return false;
    }

    private void read(SelectionKey key, List<Incoming> complete) {
        Incoming in = (Incoming) key.attachment();
        int n;
        readBuffer.clear();
        try {
            n = in.channel().read(readBuffer);
        } catch (IOException e) {
            drop(key);
            return;
        }
        if (n < 0) {
            drop(key);
            return;
        }
        if (in.draining) {
            return;
        }
        byte[] bytes = readBuffer.array();
        int offset = 0;
        if (in.request == null) {
            int searchFrom = Math.max(0, in.head.size() - 2);
            in.head.write(bytes, 0, n);
            byte[] head = in.head.toByteArray();
            int bodyStart = bodyStart(head, searchFrom);
            if (bodyStart < 0 ? head.length > MAX_HEADER_BYTES : bodyStart > MAX_HEADER_BYTES) {
                refuse(key, 431, "the request headers are larger than " + MAX_HEADER_BYTES / 1024 + " KiB");
                return;
            }
            if (bodyStart < 0 || !startBody(key, in, new String(head, 0, bodyStart, StandardCharsets.ISO_8859_1))) {
                return;
            }
            // what came after the head is the start of the body
            bytes = head;
            offset = bodyStart;
            n = head.length;
        }
        appendBody(in, bytes, offset, (int) Math.min(n - offset, in.bodyLength - in.bodyRead));
        if (in.bodyRead == in.bodyLength) {
            forget(in);
            key.cancel();
            complete.add(in);
        }
    }

    /**
     * Where the body starts: after the first empty line, whose line ends are CRLF or a bare LF
     * (RFC 9112 2.2 lets a server accept those); -1 while the head is incomplete.
     */
    private static int bodyStart(byte[] head, int from) {
        for (int i = from; i < head.length - 1; i++) {
            if (head[i] == '\n') {
                if (head[i + 1] == '\n') {
                    return i + 2;
                }
                if (head[i + 1] == '\r' && i + 2 < head.length && head[i + 2] == '\n') {
                    return i + 3;
                }
            }
        }
        return -1;
    }

    /** Copies arrived body bytes, growing the buffer by what arrived (doubling), never past Content-Length. */
    private void appendBody(Incoming in, byte[] bytes, int offset, int count) {
        if (count <= 0) {
            return;
        }
        int needed = in.bodyRead + count;
        if (needed > in.body.length) {
            int grown = (int) Math.min(in.bodyLength, Math.max(needed, 2L * in.body.length));
            bodyBytes.addAndGet(grown - in.body.length);
            in.body = Arrays.copyOf(in.body, grown);
        }
        System.arraycopy(bytes, offset, in.body, in.bodyRead, count);
        in.bodyRead = needed;
    }

    /** Parses the head, asks the gate and sizes the body; false when the request was answered instead. */
    private boolean startBody(SelectionKey key, Incoming in, String head) {
        String[] lines = head.split("\r?\n"); // the empty line ending the head is dropped
        String[] start = lines[0].split(" ");
        if (start.length != 3 || !start[2].startsWith("HTTP/1.")) {
            refuse(key, 400, "the request line is not \"METHOD /path HTTP/1.1\"");
            return false;
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                refuse(key, 400, "a header line has no name: " + abbreviate(lines[i]));
                return false;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            String earlier = headers.putIfAbsent(name, value);
            if (name.equals("content-length") && earlier != null && !earlier.equals(value)) {
                refuse(key, 400, "the request has two different Content-Length headers");
                return false;
            }
        }
        String target = start[1];
        int query = target.indexOf('?');
        HttpRequest request = new HttpRequest(start[0], query < 0 ? target : target.substring(0, query), headers,
                new byte[0]);
        Refusal refusal = gate.check(request);
        if (refusal != null) {
            linger(key, refusal.response());
            return false;
        }
        if (headers.containsKey("transfer-encoding")) {
            refuse(key, 411, "send the body with a Content-Length header; chunked request bodies are not accepted");
            return false;
        }
        long length;
        try {
            length = Long.parseLong(headers.getOrDefault("content-length", "0"));
        } catch (NumberFormatException e) {
            refuse(key, 400, "Content-Length is not a number: " + abbreviate(headers.get("content-length")));
            return false;
        }
        if (length < 0) {
            refuse(key, 400, "Content-Length is negative");
            return false;
        }
        if (length > JsonRpcErrors.MAX_MESSAGE_BYTES) {
            linger(key, HttpReply.json(413, Map.of(), JsonRpcErrors.error(null, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: the message is larger than " + (JsonRpcErrors.MAX_MESSAGE_BYTES / (1024 * 1024))
                            + " MiB.")));
            return false;
        }
        in.request = request;
        in.head = null;
        in.bodyLength = length;
        in.deadline = System.nanoTime() + BODY_TIMEOUT.toNanos();
        readingBodies.incrementAndGet();
        return true;
    }

    private void dispatch(Incoming in) {
        HttpReply[] reply = new HttpReply[1];
        // tracked for the write watchdog until it closes
        reply[0] = new HttpReply(in.channel(), () -> replies.remove(reply[0]));
        replies.add(reply[0]);
        HttpRequest request = in.request.withBody(in.body);
        try {
            in.channel().configureBlocking(true);
            handlers.execute(() -> {
                try {
                    handler.handle(request, reply[0]);
                } catch (IOException e) {
                    LOG.debug("An MCP HTTP exchange failed", e);
                    reply[0].close();
                } catch (RuntimeException e) {
                    LOG.warn("An MCP HTTP exchange failed", e);
                    reply[0].close();
                }
            });
        } catch (RejectedExecutionException e) {
            try {
                reply[0].send(503, "application/json", "{\"error\":\"server busy: " + HANDLER_QUEUE
                        + " requests are waiting for a handler; try again shortly\"}");
            } catch (IOException ignored) {
                // the client is gone
            }
        } catch (IOException e) {
            reply[0].close();
        }
    }

    /** Closes connections past their deadline, and replies whose write is stuck. */
    private void expire() {
        long now = System.nanoTime();
        for (SelectionKey key : selector.keys()) {
            if (key.isValid() && key.attachment() instanceof Incoming in && now - in.deadline > 0) {
                if (!in.draining) {
                    LOG.debug("Closing an MCP HTTP connection: its {} did not arrive in time",
                            in.request == null ? "headers" : "body");
                    send(in.channel(), HttpReply.json(408, Map.of(), "{\"error\":\"request timeout: the "
                            + (in.request == null ? "headers" : "body") + " did not arrive within "
                            + (in.request == null ? HEADER_TIMEOUT : BODY_TIMEOUT).toSeconds() + " s\"}"));
                }
                drop(key);
            }
        }
        for (HttpReply reply : replies) {
            if (reply.stuck(now, WRITE_TIMEOUT.toNanos())) {
                LOG.debug("Closing an MCP HTTP stream: the client stopped reading");
                reply.close();
            }
        }
    }

    private void refuse(SelectionKey key, int status, String problem) {
        linger(key, HttpReply.json(status, Map.of(), Json.MAPPER.createObjectNode().put("error", problem).toString()));
    }

    /**
     * Sends a response instead of reading the request, ends the output, and drains what the client
     * still sends for a moment: closing with unread bytes would reset the connection, and the
     * client could lose the answer.
     */
    private void linger(SelectionKey key, byte[] response) {
        Incoming in = (Incoming) key.attachment();
        send(in.channel(), response);
        try {
            in.channel().shutdownOutput();
        } catch (IOException e) {
            drop(key);
            return;
        }
        in.draining = true;
        in.deadline = System.nanoTime() + LINGER.toNanos();
    }

    /** Writes a small response without blocking; what does not fit is lost with the connection. */
    private static void send(SocketChannel channel, byte[] response) {
        try {
            channel.write(ByteBuffer.wrap(response));
        } catch (IOException e) {
            LOG.debug("Could not answer an MCP HTTP client", e);
        }
    }

    private void drop(SelectionKey key) {
        if (key.attachment() instanceof Incoming in) {
            forget(in);
        }
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // closed already
        }
    }

    /** The connection is no longer read: it completed or closed. Safe to call twice. */
    private void forget(Incoming in) {
        if (connections.remove(in) && in.request != null) {
            readingBodies.decrementAndGet();
            bodyBytes.addAndGet(-in.body.length);
        }
    }

    private static String abbreviate(String text) {
        return text == null ? "" : text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    /** Requests whose headers were let through and whose bodies are being read (for tests and logs). */
    int readingBodies() {
        return readingBodies.get();
    }

    /** The bytes the buffers of those bodies hold (for tests and logs). */
    long bodyBytes() {
        return bodyBytes.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            selector.wakeup();
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey key : selector.keys()) {
            drop(key);
        }
        try {
            selector.close();
            server.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        handlers.shutdownNow();
        replies.forEach(HttpReply::close);
    }
}
