package dev.quiver.mcp.server;

import dev.quiver.mcp.Json;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The stdio transport: one JSON-RPC message per line in, one per line out, and nothing else on
 * the output. The SDK's {@link McpServerSession} does the protocol; this class reads lines itself
 * so that bad input gets an error answer and the server stays up (the SDK's own stdio transport
 * ends the session on the first line it cannot parse).
 */
final class StdioServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StdioServer.class);
    /** How much of an oversized message is kept to find its id. */
    private static final int HEAD_BYTES = 512;

    private final ToolService service;
    private final InputStream in;
    private final OutputStream out;
    private final Object writeLock = new Object();
    private final McpServerSession session;
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean closed;
    private volatile boolean initialized;
    private final java.util.concurrent.atomic.AtomicBoolean initializeSeen = new java.util.concurrent.atomic.AtomicBoolean();
    /** How long requests still running when the input ends may take to answer. */
    private static final long DRAIN_MILLIS = 10_000;

    /**
     * The id (as JSON) of an {@code initialize} the launcher answered already (see {@link EarlyStart}):
     * the session opens from it, and its answer is not sent a second time. Cleared once skipped.
     */
    private volatile String answeredInitialize;

    StdioServer(ToolService service, InputStream in, OutputStream out, Duration requestTimeout) {
        this(service, in, out, requestTimeout, null);
    }

    StdioServer(ToolService service, InputStream in, OutputStream out, Duration requestTimeout,
            String answeredInitialize) {
        this.answeredInitialize = answeredInitialize;
        this.service = service;
        this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 64 * 1024);
        this.out = out;
        this.session = new McpServerSession(UUID.randomUUID().toString(), requestTimeout, new Transport(),
                service::initialize, service.requestHandlers(), service.notificationHandlers());
        service.notifier(method -> session.sendNotification(method, null).subscribe(null,
                e -> LOG.debug("Could not send {}", method, e)));
    }

    /** Reads until the input ends; every line is answered or handed to the session. */
    void run() throws IOException {
        byte[] head = new byte[HEAD_BYTES];
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        while (!closed) {
            line.reset();
            int headLength = 0;
            boolean oversized = false;
            int b;
            boolean any = false;
            while ((b = in.read()) != -1 && b != '\n') {
                any = true;
                if (headLength < HEAD_BYTES) {
                    head[headLength++] = (byte) b;
                }
                if (!oversized) {
                    if (line.size() >= JsonRpcErrors.MAX_MESSAGE_BYTES) {
                        oversized = true;
                        line.reset();
                    } else {
                        line.write(b);
                    }
                }
            }
            if (b == -1 && !any) {
                drain();
                return;
            }
            if (oversized) {
                write(JsonRpcErrors.tooLarge(head, headLength));
            } else {
                String text = line.toString(StandardCharsets.UTF_8).strip();
                if (!text.isEmpty()) {
                    dispatch(text, line.size());
                }
            }
            if (b == -1) {
                drain();
                return;
            }
        }
    }

    /** The client closed its side: let the requests in flight answer, for a while. */
    private void drain() {
        long deadline = System.currentTimeMillis() + DRAIN_MILLIS;
        synchronized (inFlight) {
            while (inFlight.get() > 0 && !closed) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return;
                }
                try {
                    inFlight.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void dispatch(String text, int bytes) {
        JsonRpcErrors.Checked checked = JsonRpcErrors.check(text);
        if (checked.error() != null) {
            write(checked.error());
            return;
        }
        McpSchema.JSONRPCMessage message = checked.message();
        if (message instanceof McpSchema.JSONRPCNotification notification
                && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method())) {
            initialized = true;
        }
        if (message instanceof McpSchema.JSONRPCRequest request) {
            if (!initialized && !McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                // the SDK's session would hold the request until initialization, possibly forever
                write(JsonRpcErrors.error(Json.MAPPER.valueToTree(request.id()), McpSchema.ErrorCodes.INVALID_REQUEST,
                        "Invalid request: send initialize, then notifications/initialized, before " + request.method() + "."));
                return;
            }
            if (McpSchema.METHOD_INITIALIZE.equals(request.method()) && !initializeSeen.compareAndSet(false, true)) {
                write(JsonRpcErrors.error(Json.MAPPER.valueToTree(request.id()), McpSchema.ErrorCodes.INVALID_REQUEST,
                        "Invalid request: the session is already initialized."));
                return;
            }
            inFlight.incrementAndGet();
            if (McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
                // only a queue full by the reader's bounds stops this reader; the pipe holds the rest
                service.queueWaiting(request.id(), bytes, new QueuedCall(request));
                return;
            }
        }
        try {
            session.handle(message).subscribe(null, e -> LOG.warn("Handling an MCP message failed", e));
        } catch (RuntimeException e) {
            LOG.warn("Handling an MCP message failed", e);
        }
    }

    /** A {@code tools/call} in the connection's queue: run on its worker, or answered with an error. */
    private final class QueuedCall implements CallQueue.Call {
        private final McpSchema.JSONRPCRequest request;

        QueuedCall(McpSchema.JSONRPCRequest request) {
            this.request = request;
        }

        @Override
        public void run() {
            // blocks the queue's worker until the answer is written: the next call waits for it
            session.handle(request).block();
        }

        @Override
        public void refuse(int code, String message) {
            write(JsonRpcErrors.error(Json.MAPPER.valueToTree(request.id()), code, message));
            answered();
        }
    }

    private void answered() {
        synchronized (inFlight) {
            inFlight.decrementAndGet();
            inFlight.notifyAll();
        }
    }

    private void write(String json) {
        // the output carries one message per line: JSON escapes newlines inside strings already
        byte[] bytes = (json.replace("\r", "").replace("\n", "") + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (writeLock) {
            if (closed) {
                return;
            }
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                LOG.debug("The MCP client's output is closed", e);
                closed = true;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        service.close();
        session.close();
    }

    private final class Transport implements McpServerTransport {

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> {
                String answered = answeredInitialize;
                if (answered != null && message instanceof McpSchema.JSONRPCResponse response
                        && answered.equals(Json.write(response.id()))) {
                    answeredInitialize = null; // the launcher sent this answer before the framework started
                    answered();
                    return;
                }
                write(Json.write(message));
                if (message instanceof McpSchema.JSONRPCResponse) {
                    answered();
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return Json.MCP.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public void close() {
            // the streams belong to the caller of serveStdio
        }
    }
}
