package dev.quiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server on 127.0.0.1 that answers {@code POST /v1/chat/completions} the way OpenAI's
 * chat completions API does (non-streaming), with answers taken from a script in order. It records
 * every request body so tests can assert on what crossed the wire.
 */
public final class OpenAiStub implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Deque<Reply> script = new ConcurrentLinkedDeque<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    /** One scripted answer. */
    public sealed interface Reply permits Text, ToolCalls, Failure {
    }

    /** An assistant message with text and no tool calls. */
    public record Text(String content) implements Reply {
    }

    /** An assistant message asking for tool calls. */
    public record ToolCalls(List<Call> calls) implements Reply {
    }

    /** An HTTP error status with OpenAI's error body. */
    public record Failure(int status, String message) implements Reply {
    }

    /**
     * One requested call.
     *
     * @param name the tool
     * @param arguments the arguments as JSON text, as OpenAI sends them
     */
    public record Call(String name, String arguments) {
    }

    /** A reply with text. */
    public static Reply text(String content) {
        return new Text(content);
    }

    /** A reply asking for one or more tool calls. */
    public static Reply calls(Call... calls) {
        return new ToolCalls(List.of(calls));
    }

    /** One call for {@link #calls(Call...)}. */
    public static Call call(String name, String arguments) {
        return new Call(name, arguments);
    }

    private OpenAiStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/chat/completions", this::handle);
        server.start();
    }

    /** Starts a server that will give these replies in order. */
    public static OpenAiStub start(Reply... replies) throws IOException {
        OpenAiStub stub = new OpenAiStub();
        stub.script.addAll(List.of(replies));
        return stub;
    }

    /** The base URL in OpenAI's SDK convention, with the version path: {@code http://127.0.0.1:PORT/v1}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** Every request body received, in order. */
    public List<JsonNode> requests() {
        return new ArrayList<>(requests);
    }

    /** The Authorization header of every request, in order. */
    public List<String> authorizations() {
        return new ArrayList<>(authorizations);
    }

    /** Appends more replies to the script. */
    public void enqueue(Reply... replies) {
        script.addAll(List.of(replies));
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            JsonNode request = JSON.readTree(body);
            requests.add(request);
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(authorization == null ? "" : authorization);
            Reply reply = script.poll();
            if (reply == null) {
                reply = new Failure(500, "the test script has no more replies");
            }
            if (reply instanceof Failure failure) {
                ObjectNode error = JSON.createObjectNode();
                ObjectNode inner = error.putObject("error");
                inner.put("message", failure.message());
                inner.put("type", "server_error");
                send(exchange, failure.status(), error);
                return;
            }
            send(exchange, 200, completion(request.path("model").asText("test"), reply));
        }
    }

    private ObjectNode completion(String model, Reply reply) {
        ObjectNode response = JSON.createObjectNode();
        response.put("id", "chatcmpl-" + ids.incrementAndGet());
        response.put("object", "chat.completion");
        response.put("created", System.currentTimeMillis() / 1000);
        response.put("model", model);
        ObjectNode choice = response.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (reply instanceof Text text) {
            message.put("content", text.content());
            choice.put("finish_reason", "stop");
        } else if (reply instanceof ToolCalls calls) {
            message.putNull("content");
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (Call call : calls.calls()) {
                ObjectNode node = toolCalls.addObject();
                node.put("id", "call_" + ids.incrementAndGet());
                node.put("type", "function");
                ObjectNode function = node.putObject("function");
                function.put("name", call.name());
                function.put("arguments", call.arguments());
            }
            choice.put("finish_reason", "tool_calls");
        }
        choice.putNull("logprobs");
        ObjectNode usage = response.putObject("usage");
        usage.put("prompt_tokens", 10);
        usage.put("completion_tokens", 5);
        usage.put("total_tokens", 15);
        return response;
    }

    private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
