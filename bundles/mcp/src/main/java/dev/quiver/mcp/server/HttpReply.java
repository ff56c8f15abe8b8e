package dev.quiver.mcp.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The answer to one request: a whole response, or a server-sent event stream written as events
 * come. Every response says {@code Connection: close}, and the connection ends with it, so a
 * connection carries one request and the length of a stream is where it closes. Writes block;
 * {@link HttpListener} closes a reply whose write has not finished within its write timeout (a
 * client that stopped reading), which ends the blocked write.
 */
final class HttpReply implements AutoCloseable {

    private final SocketChannel channel;
    private final Runnable onClose;
    private final Map<String, String> headers = new LinkedHashMap<>();
    /** When the write in progress started (System.nanoTime), or 0. */
    private volatile long writingSince;
    private volatile boolean closed;

    HttpReply(SocketChannel channel, Runnable onClose) {
        this.channel = channel;
        this.onClose = onClose;
    }

    /** Adds a header to the response not yet started. */
    HttpReply header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /** Writes a whole response and closes the connection. */
    void send(int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (contentType != null && bytes.length > 0) {
            headers.put("Content-Type", contentType);
        }
        headers.put("Content-Length", Integer.toString(bytes.length));
        try {
            write(concat(head(status, headers), bytes));
        } finally {
            close();
        }
    }

    /** Starts a {@code 200 text/event-stream}; {@link #write} sends the events. */
    void startEvents() throws IOException {
        headers.put("Content-Type", "text/event-stream");
        headers.put("Cache-Control", "no-cache");
        write(head(200, headers));
    }

    synchronized void write(byte[] bytes) throws IOException {
        if (closed) {
            throw new IOException("the connection is closed");
        }
        writingSince = System.nanoTime();
        try {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } finally {
            writingSince = 0;
        }
    }

    /** Whether a write has been blocked for longer than {@code nanos}. */
    boolean stuck(long now, long nanos) {
        long since = writingSince;
        return since != 0 && now - since > nanos;
    }

    boolean isOpen() {
        return !closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // the client is gone already
        }
        onClose.run();
    }

    /** The status line and header block of a response that ends with the connection. */
    static byte[] head(int status, Map<String, String> headers) {
        StringBuilder text = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status))
                .append("\r\n");
        headers.forEach((name, value) -> text.append(name).append(": ").append(value).append("\r\n"));
        text.append("Connection: close\r\n\r\n");
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A whole JSON response, for answers written before any handler runs. */
    static byte[] json(int status, Map<String, String> extra, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = new LinkedHashMap<>(extra);
        headers.put("Content-Type", "application/json");
        headers.put("Content-Length", Integer.toString(bytes.length));
        return concat(head(status, headers), bytes);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 202 -> "Accepted";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 406 -> "Not Acceptable";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }
}
