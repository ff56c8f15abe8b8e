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
import java.util.HashMap;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 front of the MCP server. One thread reads every request without blocking, within
 * limits, and only a complete request reaches a handler thread of a small bounded pool:
 *
 * <ul>
 *   <li>the request line and headers must arrive within {@link #HEADER_TIMEOUT} of the connection
 *       and fit in {@link #MAX_HEADER_BYTES} (else 408 / 431);</li>
 *   <li>the {@link Gate} sees the headers before any byte of the body is read: an unauthorized
 *       request is answered (401) without its body;</li>
 *   <li>the body needs a {@code Content-Length} of at most {@link JsonRpcErrors#MAX_MESSAGE_BYTES}
 *       (else 411 / 413) and must arrive within {@link #BODY_TIMEOUT} of the headers (else 408);</li>
 *   <li>at most {@link #MAX_READING} connections are read at once and at most
 *       {@link #HANDLER_QUEUE} complete requests wait for a handler; past either the connection is
 *       refused (closed, or 503).</li>
 * </ul>
 *
 * A stalled client so costs a socket and a buffer until its timeout, never a thread.
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
    private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};

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
    private volatile boolean closed;

    /** A connection being read: its head, then its body, each against a deadline. */
    private static final class Incoming {
        final SocketChannel channel;
        final ByteArrayOutputStream head = new ByteArrayOutputStream(1024);
        long deadline;
        HttpRequest request;
        byte[] body;
        int bodyRead;
        boolean draining;

        Incoming(SocketChannel channel, long deadline) {
            this.channel = channel;
            this.deadline = deadline;
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
            if (selector.keys().size() > MAX_READING) {
                LOG.debug("Refusing an MCP HTTP connection: {} are being read", MAX_READING);
                channel.close();
                continue;
            }
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.register(selector, SelectionKey.OP_READ,
                    new Incoming(channel, System.nanoTime() + HEADER_TIMEOUT.toNanos()));
        }
    }

    private void read(SelectionKey key, List<Incoming> complete) {
        Incoming in = (Incoming) key.attachment();
        int n;
        readBuffer.clear();
        try {
            n = in.channel.read(readBuffer);
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
            int searchFrom = Math.max(0, in.head.size() - 3);
            in.head.write(bytes, 0, n);
            byte[] head = in.head.toByteArray();
            int end = indexOf(head, END_OF_HEAD, searchFrom);
            if (end < 0) {
                if (head.length > MAX_HEADER_BYTES) {
                    refuse(key, 431, "the request headers are larger than " + MAX_HEADER_BYTES / 1024 + " KiB");
                }
                return;
            }
            if (end + END_OF_HEAD.length > MAX_HEADER_BYTES) {
                refuse(key, 431, "the request headers are larger than " + MAX_HEADER_BYTES / 1024 + " KiB");
                return;
            }
            if (!startBody(key, in, new String(head, 0, end, StandardCharsets.ISO_8859_1))) {
                return;
            }
            // what came after the head is the start of the body
            bytes = head;
            offset = end + END_OF_HEAD.length;
            n = head.length;
        }
        int take = Math.min(n - offset, in.body.length - in.bodyRead);
        System.arraycopy(bytes, offset, in.body, in.bodyRead, Math.max(0, take));
        in.bodyRead += Math.max(0, take);
        if (in.bodyRead == in.body.length) {
            key.cancel();
            complete.add(in);
        }
    }

    /** Parses the head, asks the gate and sizes the body; false when the request was answered instead. */
    private boolean startBody(SelectionKey key, Incoming in, String head) {
        String[] lines = head.split("\r\n");
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
        in.body = new byte[(int) length];
        in.deadline = System.nanoTime() + BODY_TIMEOUT.toNanos();
        return true;
    }

    private void dispatch(Incoming in) {
        HttpReply[] reply = new HttpReply[1];
        // tracked for the write watchdog until it closes
        reply[0] = new HttpReply(in.channel, () -> replies.remove(reply[0]));
        replies.add(reply[0]);
        HttpRequest request = in.request.withBody(in.body);
        try {
            in.channel.configureBlocking(true);
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
            if (key.attachment() instanceof Incoming in && now - in.deadline > 0) {
                if (!in.draining) {
                    LOG.debug("Closing an MCP HTTP connection: its {} did not arrive in time",
                            in.request == null ? "headers" : "body");
                    send(in.channel, HttpReply.json(408, Map.of(), "{\"error\":\"request timeout: the "
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
        send(in.channel, response);
        try {
            in.channel.shutdownOutput();
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

    private static void drop(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // closed already
        }
    }

    private static int indexOf(byte[] data, byte[] pattern, int from) {
        outer:
        for (int i = from; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String abbreviate(String text) {
        return text == null ? "" : text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    /** Connections being read now (for tests and logs). */
    int reading() {
        return Math.max(0, selector.keys().size() - 1);
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
