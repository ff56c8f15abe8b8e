package dev.quiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server on 127.0.0.1 that answers {@code POST /api/chat} the way Ollama does, with answers
 * from a script in order. Streaming is Ollama's default: unless the request says
 * {@code "stream": false}, the answer is newline-delimited JSON ({@code application/x-ndjson}), one
 * object per line with a partial {@code message} and {@code "done": false}, tool calls whole in one
 * line ({@code function.index}, {@code name}, {@code arguments} as an object, and an {@code id}),
 * and a last line with {@code "done": true}, the {@code done_reason} and the counters
 * ({@code prompt_eval_count}, {@code eval_count}, durations in nanoseconds). Errors are
 * {@code {"error": "..."}}, by HTTP status or as a line inside a stream.
 *
 * <p>It records every request (body, headers, path), and the script can fail with any status and
 * headers, delay, stall, or cut a stream mid-way.
 */
public final class OllamaStub extends StubServer<OllamaStub.Reply> {

    private static final String NDJSON = "application/x-ndjson";

    private final AtomicInteger ids = new AtomicInteger();
    private final List<String> callIds = new CopyOnWriteArrayList<>();

    /** One scripted answer. */
    public sealed interface Reply permits Text, ToolCalls, Failure, Cut, Stall, Paced, Delayed, StreamError {
    }

    /** An assistant message with text. */
    public record Text(String content) implements Reply {
    }

    /** An assistant message with tool calls. */
    public record ToolCalls(List<Call> calls) implements Reply {
    }

    /** An HTTP error status with Ollama's {@code {"error": ..}} body and extra headers. */
    public record Failure(int status, String error, Map<String, String> headers) implements Reply {
    }

    /** The reply broken off after {@code afterLines} lines: dropped, or ended properly if {@code clean}. */
    public record Cut(Reply reply, int afterLines, boolean clean) implements Reply {
    }

    /** A streamed reply that pauses after {@code afterLines} lines. */
    public record Stall(Reply reply, int afterLines, Duration pause) implements Reply {
    }

    /**
     * A streamed reply with a pause before every line: slow but steady, so the whole answer may take
     * far longer than any one silence.
     */
    public record Paced(Reply reply, Duration pause) implements Reply {
    }

    /** A reply sent only after {@code delay}. */
    public record Delayed(Duration delay, Reply reply) implements Reply {
    }

    /** A stream that sends {@code {"error": ..}} after {@code afterLines} lines of {@code reply}. */
    public record StreamError(Reply reply, int afterLines, String error) implements Reply {
    }

    /**
     * One tool call.
     *
     * @param name the tool
     * @param arguments the arguments as JSON text (an object; Ollama sends it as an object)
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

    /** An error status with Ollama's error body. */
    public static Reply failure(int status, String error) {
        return new Failure(status, error, Map.of());
    }

    /** An error status with Ollama's error body and extra headers. */
    public static Reply failure(int status, String error, Map<String, String> headers) {
        return new Failure(status, error, headers);
    }

    /** The reply with the connection dropped after {@code afterLines} streamed lines. */
    public static Reply cut(Reply reply, int afterLines) {
        return new Cut(reply, afterLines, false);
    }

    /** The reply with its body ended properly but early, after {@code afterLines} lines. */
    public static Reply truncated(Reply reply, int afterLines) {
        return new Cut(reply, afterLines, true);
    }

    /** The reply, streamed with a pause after {@code afterLines} lines. */
    public static Reply stall(Reply reply, int afterLines, Duration pause) {
        return new Stall(reply, afterLines, pause);
    }

    /** The reply, streamed with {@code pause} before every line. */
    public static Reply paced(Reply reply, Duration pause) {
        return new Paced(reply, pause);
    }

    /** The reply, sent after a delay. */
    public static Reply delayed(Duration delay, Reply reply) {
        return new Delayed(delay, reply);
    }

    /** A {@code {"error": ..}} line after {@code afterLines} lines of {@code reply}. */
    public static Reply streamError(Reply reply, int afterLines, String error) {
        return new StreamError(reply, afterLines, error);
    }

    private OllamaStub() throws IOException {
        super("/api/chat");
    }

    /** Starts a server that will give these replies in order. */
    public static OllamaStub start(Reply... replies) throws IOException {
        OllamaStub stub = new OllamaStub();
        stub.enqueue(replies);
        return stub;
    }

    /** The base URL in Ollama's convention, the server root: {@code http://127.0.0.1:PORT}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** The id of every tool call this stub has sent, in order. */
    public List<String> callIds() {
        return new ArrayList<>(callIds);
    }

    @Override
    Reply exhausted() {
        return new Failure(500, "the test script has no more replies", Map.of());
    }

    @Override
    void respond(Out out, JsonNode request, Reply reply) throws IOException {
        boolean streaming = request.path("stream").asBoolean(true);
        String model = request.path("model").asText("test");
        if (reply instanceof Delayed delayed) {
            sleep(delayed.delay());
            respond(out, request, delayed.reply());
        } else if (reply instanceof Failure failure) {
            ObjectNode error = JSON.createObjectNode();
            error.put("error", failure.error());
            out.json(failure.status(), failure.headers(), error);
        } else if (reply instanceof Cut cut) {
            if (streaming) {
                out.stream(NDJSON, lines(model, cut.reply()), cut.afterLines(), cut.clean(), -1, Duration.ZERO);
            } else {
                out.cutJson(whole(model, cut.reply()));
            }
        } else if (reply instanceof Stall stall) {
            out.stream(NDJSON, lines(model, stall.reply()), -1, false, stall.afterLines(), stall.pause());
        } else if (reply instanceof StreamError streamError) {
            List<String> lines = new ArrayList<>(lines(model, streamError.reply()).subList(0, streamError.afterLines()));
            ObjectNode error = JSON.createObjectNode();
            error.put("error", streamError.error());
            lines.add(error + "\n");
            out.stream(NDJSON, lines, -1, false, -1, Duration.ZERO);
        } else if (reply instanceof Paced paced) {
            out.paced(NDJSON, lines(model, paced.reply()), paced.pause());
        } else if (streaming) {
            out.stream(NDJSON, lines(model, reply), -1, false, -1, Duration.ZERO);
        } else {
            out.json(200, Map.of(), whole(model, reply));
        }
    }

    private ObjectNode whole(String model, Reply reply) {
        ObjectNode response = head(model);
        ObjectNode message = response.putObject("message");
        message.put("role", "assistant");
        if (reply instanceof Text text) {
            message.put("content", text.content());
        } else if (reply instanceof ToolCalls calls) {
            message.put("content", "");
            toolCalls(message, calls);
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        finish(response);
        return response;
    }

    private List<String> lines(String model, Reply reply) {
        List<String> lines = new ArrayList<>();
        if (reply instanceof Text text) {
            for (String piece : OpenAiStub.pieces(text.content(), 6)) {
                ObjectNode line = head(model);
                line.putObject("message").put("role", "assistant").put("content", piece);
                line.put("done", false);
                lines.add(line + "\n");
            }
        } else if (reply instanceof ToolCalls calls) {
            ObjectNode line = head(model);
            ObjectNode message = line.putObject("message");
            message.put("role", "assistant");
            message.put("content", "");
            toolCalls(message, calls);
            line.put("done", false);
            lines.add(line + "\n");
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        ObjectNode last = head(model);
        last.putObject("message").put("role", "assistant").put("content", "");
        finish(last);
        lines.add(last + "\n");
        return lines;
    }

    private void toolCalls(ObjectNode message, ToolCalls calls) {
        ArrayNode toolCalls = message.putArray("tool_calls");
        for (int index = 0; index < calls.calls().size(); index++) {
            Call call = calls.calls().get(index);
            ObjectNode toolCall = toolCalls.addObject();
            String id = "call_" + ids.incrementAndGet();
            callIds.add(id);
            toolCall.put("id", id);
            ObjectNode function = toolCall.putObject("function");
            function.put("index", index);
            function.put("name", call.name());
            try {
                function.set("arguments", JSON.readTree(call.arguments()));
            } catch (IOException e) {
                throw new IllegalArgumentException("arguments are not JSON: " + call.arguments(), e);
            }
        }
    }

    private static ObjectNode head(String model) {
        ObjectNode line = JSON.createObjectNode();
        line.put("model", model);
        line.put("created_at", Instant.now().toString());
        return line;
    }

    private static void finish(ObjectNode response) {
        response.put("done", true);
        response.put("done_reason", "stop");
        response.put("total_duration", 885095291L);
        response.put("load_duration", 3753500L);
        response.put("prompt_eval_count", 26);
        response.put("prompt_eval_duration", 328493000L);
        response.put("eval_count", 12);
        response.put("eval_duration", 552222000L);
    }
}
