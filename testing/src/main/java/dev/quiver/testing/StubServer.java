package dev.quiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The server behind every stub: a loopback {@link HttpServer} that records each request (path,
 * headers, JSON body) and answers from a script in order. Subclasses turn a scripted reply into the
 * provider's wire format through {@link Out}.
 *
 * @param <R> the stub's reply type
 */
abstract class StubServer<R> implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor;
    private final Deque<R> script = new ConcurrentLinkedDeque<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final List<Long> arrivals = new CopyOnWriteArrayList<>();

    StubServer(String... contexts) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        for (String context : contexts) {
            server.createContext(context, this::handle);
        }
        // several requests at a time, so one stalled stream does not hold up the next attempt
        executor = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "quiver-stub");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.start();
    }

    /** The port on 127.0.0.1. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Every request body received, in order (a body that is not JSON is a text node). */
    public List<JsonNode> requests() {
        return new ArrayList<>(requests);
    }

    /** The headers of every request, in order: lower-case names, the first value of each. */
    public List<Map<String, String>> headers() {
        return new ArrayList<>(headers);
    }

    /** The path of every request, in order. */
    public List<String> paths() {
        return new ArrayList<>(paths);
    }

    /**
     * When each request arrived, as {@link System#nanoTime()}, in order: the gap between two is
     * the time a client waited before retrying (plus the time the first answer took).
     */
    public List<Long> arrivals() {
        return new ArrayList<>(arrivals);
    }

    /** Appends more replies to the script. */
    @SafeVarargs
    public final void enqueue(R... replies) {
        for (R reply : replies) {
            script.add(reply);
        }
    }

    /** The reply when the script is empty. */
    abstract R exhausted();

    /** Answers one request with one scripted reply. */
    abstract void respond(Out out, JsonNode request, R reply) throws IOException;

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        long arrival = System.nanoTime();
        byte[] body = exchange.getRequestBody().readAllBytes();
        JsonNode request;
        try {
            request = body.length == 0 ? NullNode.getInstance() : JSON.readTree(body);
        } catch (IOException e) {
            request = TextNode.valueOf(new String(body, StandardCharsets.UTF_8));
        }
        Map<String, String> received = new LinkedHashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!values.isEmpty()) {
                received.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        requests.add(request);
        headers.add(received);
        paths.add(exchange.getRequestURI().getPath());
        arrivals.add(arrival);
        R reply = script.poll();
        if (reply == null) {
            reply = exhausted();
        }
        Out out = new Out(exchange);
        // an Abort escapes without closing the exchange: HttpServer then drops the connection
        respond(out, request, reply);
        exchange.close();
    }

    static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Thrown to drop the connection mid-answer, as a crashed server or a broken network would. */
    static final class Abort extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Abort() {
            super("stub cut the connection", null, false, false);
        }
    }

    /** Writes answers. */
    static final class Out {

        private final HttpExchange exchange;

        Out(HttpExchange exchange) {
            this.exchange = exchange;
        }

        /** A complete JSON answer. */
        void json(int status, Map<String, String> extraHeaders, JsonNode body) throws IOException {
            byte[] bytes = JSON.writeValueAsBytes(body);
            extraHeaders.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        /** A JSON answer whose body breaks off halfway. */
        void cutJson(JsonNode body) throws IOException {
            byte[] bytes = JSON.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            OutputStream out = exchange.getResponseBody();
            out.write(bytes, 0, bytes.length / 2);
            out.flush();
            throw new Abort();
        }

        /**
         * A streamed answer, one flushed chunk per frame.
         *
         * @param contentType {@code text/event-stream} or {@code application/x-ndjson}
         * @param frames the frames, each with its own line endings
         * @param cutAfter stop after this many frames; negative for never
         * @param clean stop by ending the body properly (a server that just stops) rather than by
         *     dropping the connection (a crash, a broken network)
         * @param stallAfter pause after this many frames; negative for never
         * @param stall how long to pause
         */
        void stream(String contentType, List<String> frames, int cutAfter, boolean clean, int stallAfter,
                Duration stall) throws IOException {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (int i = 0; i < frames.size(); i++) {
                if (i == cutAfter) {
                    break;
                }
                if (i == stallAfter) {
                    sleep(stall);
                }
                out.write(frames.get(i).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            if (cutAfter >= 0 && !clean) {
                // let the client read what was sent: java.net.http drops unread data on a reset
                sleep(Duration.ofMillis(300));
                throw new Abort();
            }
            out.close();
        }

        /**
         * A whole streamed answer with a pause before every frame: a slow model that keeps sending, so
         * the answer takes about {@code frames × pause} while no silence is longer than {@code pause}.
         */
        void paced(String contentType, List<String> frames, Duration pause) throws IOException {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (String frame : frames) {
                    sleep(pause);
                    out.write(frame.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        }
    }
}
