package dev.quiver.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP server on 127.0.0.1 that answers {@code POST /v1/messages} the way Anthropic's Messages
 * API does, with answers from a script in order. A plain request gets a {@code message} object with
 * {@code text} and {@code tool_use} content blocks, a {@code stop_reason} and {@code usage}. A request
 * with {@code "stream": true} gets the documented event stream: {@code message_start} (with the
 * input usage), per content block a {@code content_block_start}, its {@code content_block_delta}s
 * ({@code text_delta}, or {@code input_json_delta} with the tool input split across several events,
 * the first one empty), a {@code content_block_stop}; a {@code ping} after the first block starts;
 * then {@code message_delta} (stop reason and output usage) and {@code message_stop}. Errors use
 * Anthropic's {@code {"type":"error","error":{"type":..,"message":..}}} body, by HTTP status or as an
 * {@code event: error} inside a stream.
 *
 * <p>It records every request (body, headers, path), and the script can fail with any status and
 * headers (such as {@code retry-after}), delay, stall, or cut a stream mid-way.
 */
public final class AnthropicStub extends StubServer<AnthropicStub.Reply> {

    private final AtomicInteger ids = new AtomicInteger();
    private final List<String> toolUseIds = new CopyOnWriteArrayList<>();

    /** One scripted answer. */
    public sealed interface Reply permits Text, ToolUse, Failure, Cut, Stall, Paced, Delayed, StreamError {
    }

    /** An assistant message with one text block, stop reason {@code end_turn}. */
    public record Text(String text) implements Reply {
    }

    /**
     * An assistant message with an optional text block followed by {@code tool_use} blocks, stop
     * reason {@code tool_use}.
     *
     * @param text the text before the calls, or null for none
     */
    public record ToolUse(String text, List<Call> calls) implements Reply {
    }

    /** An HTTP error status with Anthropic's error body and extra headers. */
    public record Failure(int status, String message, Map<String, String> headers) implements Reply {
    }

    /** The reply broken off after {@code afterEvents} events: dropped, or ended properly if {@code clean}. */
    public record Cut(Reply reply, int afterEvents, boolean clean) implements Reply {
    }

    /** A streamed reply that pauses after {@code afterEvents} events. */
    public record Stall(Reply reply, int afterEvents, Duration pause) implements Reply {
    }

    /**
     * A streamed reply with a pause before every event: slow but steady, so the whole answer may take
     * far longer than any one silence.
     */
    public record Paced(Reply reply, Duration pause) implements Reply {
    }

    /** A reply sent only after {@code delay}. */
    public record Delayed(Duration delay, Reply reply) implements Reply {
    }

    /**
     * A stream that reports an error after {@code afterEvents} events of {@code reply}, as Anthropic
     * does when it overloads mid-answer: {@code event: error} with an error {@code type} such as
     * {@code overloaded_error}, then the end of the body.
     */
    public record StreamError(Reply reply, int afterEvents, String type, String message) implements Reply {
    }

    /**
     * One {@code tool_use} block.
     *
     * @param name the tool
     * @param input the input as JSON text (an object)
     */
    public record Call(String name, String input) {
    }

    /** A reply with text. */
    public static Reply text(String text) {
        return new Text(text);
    }

    /** A reply asking for one or more tool calls. */
    public static Reply toolUse(Call... calls) {
        return new ToolUse(null, List.of(calls));
    }

    /** A reply with text and then one or more tool calls. */
    public static Reply toolUse(String text, Call... calls) {
        return new ToolUse(text, List.of(calls));
    }

    /** One block for {@link #toolUse(Call...)}. */
    public static Call call(String name, String input) {
        return new Call(name, input);
    }

    /** An error status with Anthropic's error body. */
    public static Reply failure(int status, String message) {
        return new Failure(status, message, Map.of());
    }

    /** An error status with Anthropic's error body and extra headers. */
    public static Reply failure(int status, String message, Map<String, String> headers) {
        return new Failure(status, message, headers);
    }

    /** The reply with the connection dropped after {@code afterEvents} events. */
    public static Reply cut(Reply reply, int afterEvents) {
        return new Cut(reply, afterEvents, false);
    }

    /** The reply with its body ended properly but early, after {@code afterEvents} events. */
    public static Reply truncated(Reply reply, int afterEvents) {
        return new Cut(reply, afterEvents, true);
    }

    /** The reply, streamed with a pause after {@code afterEvents} events. */
    public static Reply stall(Reply reply, int afterEvents, Duration pause) {
        return new Stall(reply, afterEvents, pause);
    }

    /** The reply, streamed with {@code pause} before every event. */
    public static Reply paced(Reply reply, Duration pause) {
        return new Paced(reply, pause);
    }

    /** The reply, sent after a delay. */
    public static Reply delayed(Duration delay, Reply reply) {
        return new Delayed(delay, reply);
    }

    /** An {@code event: error} after {@code afterEvents} events of {@code reply}. */
    public static Reply streamError(Reply reply, int afterEvents, String type, String message) {
        return new StreamError(reply, afterEvents, type, message);
    }

    private AnthropicStub() throws IOException {
        super("/v1/messages");
    }

    /** Starts a server that will give these replies in order. */
    public static AnthropicStub start(Reply... replies) throws IOException {
        AnthropicStub stub = new AnthropicStub();
        stub.enqueue(replies);
        return stub;
    }

    /** The base URL in Anthropic's SDK convention, the server root: {@code http://127.0.0.1:PORT}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** The {@code x-api-key} header of every request, in order ({@code ""} when absent). */
    public List<String> apiKeys() {
        List<String> keys = new ArrayList<>();
        for (Map<String, String> received : headers()) {
            keys.add(received.getOrDefault("x-api-key", ""));
        }
        return keys;
    }

    /** The id of every {@code tool_use} block this stub has sent, in order. */
    public List<String> toolUseIds() {
        return new ArrayList<>(toolUseIds);
    }

    @Override
    Reply exhausted() {
        return new Failure(500, "the test script has no more replies", Map.of());
    }

    @Override
    void respond(Out out, JsonNode request, Reply reply) throws IOException {
        boolean streaming = request.path("stream").asBoolean(false);
        if (reply instanceof Delayed delayed) {
            sleep(delayed.delay());
            respond(out, request, delayed.reply());
        } else if (reply instanceof Failure failure) {
            Map<String, String> headers = new java.util.LinkedHashMap<>();
            headers.put("request-id", "req_stub" + ids.incrementAndGet());
            headers.putAll(failure.headers());
            out.json(failure.status(), headers, error(failure));
        } else if (reply instanceof Cut cut) {
            if (streaming) {
                out.stream("text/event-stream; charset=utf-8", frames(request, cut.reply()), cut.afterEvents(),
                        cut.clean(), -1, Duration.ZERO);
            } else {
                out.cutJson(message(request, cut.reply()));
            }
        } else if (reply instanceof Stall stall) {
            out.stream("text/event-stream; charset=utf-8", frames(request, stall.reply()), -1, false,
                    stall.afterEvents(), stall.pause());
        } else if (reply instanceof StreamError streamError) {
            List<String> frames = new ArrayList<>(frames(request, streamError.reply()).subList(0, streamError.afterEvents()));
            ObjectNode error = JSON.createObjectNode();
            error.put("type", "error");
            ObjectNode inner = error.putObject("error");
            inner.put("type", streamError.type());
            inner.put("message", streamError.message());
            frames.add(frame("error", error));
            out.stream("text/event-stream; charset=utf-8", frames, -1, false, -1, Duration.ZERO);
        } else if (reply instanceof Paced paced) {
            out.paced("text/event-stream; charset=utf-8", frames(request, paced.reply()), paced.pause());
        } else if (streaming) {
            out.stream("text/event-stream; charset=utf-8", frames(request, reply), -1, false, -1, Duration.ZERO);
        } else {
            out.json(200, Map.of("request-id", "req_stub" + ids.incrementAndGet()), message(request, reply));
        }
    }

    private static ObjectNode error(Failure failure) {
        ObjectNode body = JSON.createObjectNode();
        body.put("type", "error");
        ObjectNode inner = body.putObject("error");
        inner.put("type", switch (failure.status()) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> "api_error";
        });
        inner.put("message", failure.message());
        return body;
    }

    /** Whether the request enabled extended thinking: the answer then starts with a signed thinking block, as Claude's does. */
    private static boolean thinks(JsonNode request) {
        return "enabled".equals(request.path("thinking").path("type").asText());
    }

    /** The signature of the thinking block of the answer with this message id, which the client must send back. */
    public static String signature(String messageId) {
        return "sig_" + messageId;
    }

    private ObjectNode message(JsonNode request, Reply reply) {
        String model = request.path("model").asText("test");
        ObjectNode message = JSON.createObjectNode();
        message.put("id", "msg_01Stub" + ids.incrementAndGet());
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", model);
        ArrayNode content = message.putArray("content");
        if (thinks(request)) {
            content.addObject().put("type", "thinking").put("thinking", THOUGHT)
                    .put("signature", signature(message.get("id").asText()));
        }
        String stopReason;
        if (reply instanceof Text text) {
            content.addObject().put("type", "text").put("text", text.text());
            stopReason = "end_turn";
        } else if (reply instanceof ToolUse toolUse) {
            if (toolUse.text() != null) {
                content.addObject().put("type", "text").put("text", toolUse.text());
            }
            for (Call call : toolUse.calls()) {
                ObjectNode block = content.addObject();
                block.put("type", "tool_use");
                block.put("id", newToolUseId());
                block.put("name", call.name());
                block.set("input", parse(call.input()));
            }
            stopReason = "tool_use";
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        message.put("stop_reason", stopReason);
        message.putNull("stop_sequence");
        message.set("usage", usage(10, 5));
        return message;
    }

    private List<String> frames(JsonNode request, Reply reply) {
        String model = request.path("model").asText("test");
        List<String> frames = new ArrayList<>();
        ObjectNode start = JSON.createObjectNode();
        start.put("type", "message_start");
        ObjectNode message = start.putObject("message");
        message.put("id", "msg_01Stub" + ids.incrementAndGet());
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", model);
        message.putArray("content");
        message.putNull("stop_reason");
        message.putNull("stop_sequence");
        message.set("usage", usage(10, 1));
        frames.add(frame("message_start", start));
        int index = 0;
        if (thinks(request)) {
            thinkingBlock(frames, index++, signature(message.get("id").asText()));
        }
        String stopReason;
        if (reply instanceof Text text) {
            textBlock(frames, index, text.text());
            stopReason = "end_turn";
        } else if (reply instanceof ToolUse toolUse) {
            if (toolUse.text() != null) {
                textBlock(frames, index++, toolUse.text());
            }
            for (Call call : toolUse.calls()) {
                ObjectNode blockStart = JSON.createObjectNode();
                blockStart.put("type", "content_block_start");
                blockStart.put("index", index);
                ObjectNode block = blockStart.putObject("content_block");
                block.put("type", "tool_use");
                block.put("id", newToolUseId());
                block.put("name", call.name());
                block.putObject("input");
                frames.add(frame("content_block_start", blockStart));
                if (index == 0) {
                    frames.add(ping());
                }
                List<String> pieces = new ArrayList<>();
                pieces.add("");
                pieces.addAll(OpenAiStub.pieces(parse(call.input()).toString(), 5));
                for (String piece : pieces) {
                    ObjectNode delta = JSON.createObjectNode();
                    delta.put("type", "content_block_delta");
                    delta.put("index", index);
                    delta.putObject("delta").put("type", "input_json_delta").put("partial_json", piece);
                    frames.add(frame("content_block_delta", delta));
                }
                frames.add(stop(index));
                index++;
            }
            stopReason = "tool_use";
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        ObjectNode messageDelta = JSON.createObjectNode();
        messageDelta.put("type", "message_delta");
        ObjectNode delta = messageDelta.putObject("delta");
        delta.put("stop_reason", stopReason);
        delta.putNull("stop_sequence");
        messageDelta.putObject("usage").put("output_tokens", 5);
        frames.add(frame("message_delta", messageDelta));
        ObjectNode messageStop = JSON.createObjectNode();
        messageStop.put("type", "message_stop");
        frames.add(frame("message_stop", messageStop));
        return frames;
    }

    /** What a thinking block of the stub's says. */
    public static final String THOUGHT = "Considering the request.";

    private static void thinkingBlock(List<String> frames, int index, String signature) {
        ObjectNode blockStart = JSON.createObjectNode();
        blockStart.put("type", "content_block_start");
        blockStart.put("index", index);
        blockStart.putObject("content_block").put("type", "thinking").put("thinking", "");
        frames.add(frame("content_block_start", blockStart));
        frames.add(ping());
        ObjectNode thought = JSON.createObjectNode();
        thought.put("type", "content_block_delta");
        thought.put("index", index);
        thought.putObject("delta").put("type", "thinking_delta").put("thinking", THOUGHT);
        frames.add(frame("content_block_delta", thought));
        ObjectNode signed = JSON.createObjectNode();
        signed.put("type", "content_block_delta");
        signed.put("index", index);
        signed.putObject("delta").put("type", "signature_delta").put("signature", signature);
        frames.add(frame("content_block_delta", signed));
        frames.add(stop(index));
    }

    private static void textBlock(List<String> frames, int index, String text) {
        ObjectNode blockStart = JSON.createObjectNode();
        blockStart.put("type", "content_block_start");
        blockStart.put("index", index);
        blockStart.putObject("content_block").put("type", "text").put("text", "");
        frames.add(frame("content_block_start", blockStart));
        if (index == 0) {
            frames.add(ping());
        }
        for (String piece : OpenAiStub.pieces(text, 6)) {
            ObjectNode delta = JSON.createObjectNode();
            delta.put("type", "content_block_delta");
            delta.put("index", index);
            delta.putObject("delta").put("type", "text_delta").put("text", piece);
            frames.add(frame("content_block_delta", delta));
        }
        frames.add(stop(index));
    }

    private static String stop(int index) {
        ObjectNode stop = JSON.createObjectNode();
        stop.put("type", "content_block_stop");
        stop.put("index", index);
        return frame("content_block_stop", stop);
    }

    private static String ping() {
        ObjectNode ping = JSON.createObjectNode();
        ping.put("type", "ping");
        return frame("ping", ping);
    }

    private static String frame(String event, JsonNode data) {
        return "event: " + event + "\ndata: " + data + "\n\n";
    }

    private static ObjectNode usage(int input, int output) {
        ObjectNode usage = JSON.createObjectNode();
        usage.put("input_tokens", input);
        usage.put("cache_creation_input_tokens", 0);
        usage.put("cache_read_input_tokens", 0);
        usage.put("output_tokens", output);
        usage.put("service_tier", "standard");
        return usage;
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("tool input is not JSON: " + json, e);
        }
    }

    private String newToolUseId() {
        String id = "toolu_01Stub" + ids.incrementAndGet();
        toolUseIds.add(id);
        return id;
    }
}
