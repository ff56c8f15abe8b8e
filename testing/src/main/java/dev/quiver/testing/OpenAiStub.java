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
 * An HTTP server on 127.0.0.1 that answers {@code POST /v1/chat/completions} the way OpenAI's chat
 * completions API does, with answers taken from a script in order. A request with
 * {@code "stream": true} gets server-sent events exactly as OpenAI sends them: one
 * {@code chat.completion.chunk} per {@code data:} line, the role in the first delta, text in
 * several content deltas, each tool call announced with its {@code index}, {@code id}, {@code type}
 * and name and then its arguments split across several chunks, a last chunk with the
 * {@code finish_reason}, a usage chunk with empty {@code choices} when
 * {@code stream_options.include_usage} is set, and {@code data: [DONE]}.
 *
 * <p>It records every request (body, headers, path) so tests can assert on what crossed the wire,
 * and the script can fail ({@link #failure(int, String, Map)}, with headers such as
 * {@code Retry-After}), delay, stall or cut a stream mid-way.
 */
public final class OpenAiStub extends StubServer<OpenAiStub.Reply> {

    private final List<String> callIds = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    /** One scripted answer. */
    public sealed interface Reply permits Text, ToolCalls, Failure, Cut, Stall, Paced, Delayed {
    }

    /** An assistant message with text and no tool calls. */
    public record Text(String content) implements Reply {
    }

    /** An assistant message asking for tool calls (several at once: parallel tool calls). */
    public record ToolCalls(List<Call> calls) implements Reply {
    }

    /**
     * An HTTP error status with OpenAI's error body.
     *
     * @param headers extra response headers, such as {@code Retry-After} or {@code retry-after-ms}
     */
    public record Failure(int status, String message, Map<String, String> headers) implements Reply {
        public Failure(int status, String message) {
            this(status, message, Map.of());
        }
    }

    /**
     * A reply that breaks off: a stream after {@code afterEvents} events, a plain answer halfway
     * through its body. {@code clean} ends the body properly (a server that just stops); otherwise
     * the connection is dropped.
     */
    public record Cut(Reply reply, int afterEvents, boolean clean) implements Reply {
    }

    /** A streamed reply that pauses after {@code afterEvents} events for {@code pause}. */
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
     * One requested call.
     *
     * @param name the tool
     * @param arguments the arguments as JSON text, as OpenAI sends them
     * @param id the call's id as the model gives it; null for the stub's next own ({@code call_N})
     */
    public record Call(String name, String arguments, String id) {
        public Call(String name, String arguments) {
            this(name, arguments, null);
        }
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

    /** One call with the id a careless model gives it, which may repeat another call's. */
    public static Call call(String name, String arguments, String id) {
        return new Call(name, arguments, id);
    }

    /** An error status with OpenAI's error body. */
    public static Reply failure(int status, String message) {
        return new Failure(status, message);
    }

    /** An error status with OpenAI's error body and extra headers. */
    public static Reply failure(int status, String message, Map<String, String> headers) {
        return new Failure(status, message, headers);
    }

    /** The reply, with the connection dropped after {@code afterEvents} streamed events. */
    public static Reply cut(Reply reply, int afterEvents) {
        return new Cut(reply, afterEvents, false);
    }

    /** The reply, its body ended properly but early, after {@code afterEvents} streamed events. */
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

    private OpenAiStub() throws IOException {
        super("/v1/chat/completions");
    }

    /** Starts a server that will give these replies in order. */
    public static OpenAiStub start(Reply... replies) throws IOException {
        OpenAiStub stub = new OpenAiStub();
        stub.enqueue(replies);
        return stub;
    }

    /** The base URL in OpenAI's SDK convention, with the version path: {@code http://127.0.0.1:PORT/v1}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    /** The Authorization header of every request, in order ({@code ""} when absent). */
    public List<String> authorizations() {
        List<String> authorizations = new ArrayList<>();
        for (Map<String, String> received : headers()) {
            authorizations.add(received.getOrDefault("authorization", ""));
        }
        return authorizations;
    }

    /** The id of every tool call this stub has sent, in order ({@code call_1}, ...). */
    public List<String> callIds() {
        return new ArrayList<>(callIds);
    }

    @Override
    Reply exhausted() {
        return new Failure(500, "the test script has no more replies");
    }

    @Override
    void respond(Out out, JsonNode request, Reply reply) throws IOException {
        boolean streaming = request.path("stream").asBoolean(false);
        if (reply instanceof Delayed delayed) {
            sleep(delayed.delay());
            respond(out, request, delayed.reply());
        } else if (reply instanceof Failure failure) {
            out.json(failure.status(), failure.headers(), error(failure));
        } else if (reply instanceof Cut cut) {
            if (streaming) {
                out.stream("text/event-stream; charset=utf-8", frames(request, cut.reply()), cut.afterEvents(),
                        cut.clean(), -1, Duration.ZERO);
            } else {
                out.cutJson(completion(request, cut.reply()));
            }
        } else if (reply instanceof Stall stall) {
            out.stream("text/event-stream; charset=utf-8", frames(request, stall.reply()), -1, false,
                    stall.afterEvents(), stall.pause());
        } else if (reply instanceof Paced paced) {
            out.paced("text/event-stream; charset=utf-8", frames(request, paced.reply()), paced.pause());
        } else if (streaming) {
            out.stream("text/event-stream; charset=utf-8", frames(request, reply), -1, false, -1, Duration.ZERO);
        } else {
            out.json(200, Map.of(), completion(request, reply));
        }
    }

    private static ObjectNode error(Failure failure) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode inner = body.putObject("error");
        inner.put("message", failure.message());
        int status = failure.status();
        inner.put("type", status >= 500 ? "server_error" : status == 429 ? "requests" : "invalid_request_error");
        inner.putNull("param");
        switch (status) {
            case 401 -> inner.put("code", "invalid_api_key");
            case 404 -> inner.put("code", "model_not_found");
            case 429 -> inner.put("code", "rate_limit_exceeded");
            default -> inner.putNull("code");
        }
        return body;
    }

    private ObjectNode completion(JsonNode request, Reply reply) {
        ObjectNode response = JSON.createObjectNode();
        response.put("id", "chatcmpl-" + ids.incrementAndGet());
        response.put("object", "chat.completion");
        response.put("created", System.currentTimeMillis() / 1000);
        response.put("model", request.path("model").asText("test"));
        ObjectNode choice = response.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (reply instanceof Text text) {
            message.put("content", text.content());
            message.putNull("refusal");
            message.putArray("annotations");
            choice.putNull("logprobs");
            choice.put("finish_reason", "stop");
        } else if (reply instanceof ToolCalls calls) {
            message.putNull("content");
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (Call call : calls.calls()) {
                ObjectNode node = toolCalls.addObject();
                node.put("id", callId(call));
                node.put("type", "function");
                ObjectNode function = node.putObject("function");
                function.put("name", call.name());
                function.put("arguments", call.arguments());
            }
            message.putNull("refusal");
            message.putArray("annotations");
            choice.putNull("logprobs");
            choice.put("finish_reason", "tool_calls");
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        response.set("usage", usage());
        response.put("service_tier", "default");
        response.put("system_fingerprint", "fp_stub");
        return response;
    }

    private List<String> frames(JsonNode request, Reply reply) {
        String id = "chatcmpl-" + ids.incrementAndGet();
        long created = System.currentTimeMillis() / 1000;
        String model = request.path("model").asText("test");
        boolean includeUsage = request.path("stream_options").path("include_usage").asBoolean(false);
        Chunks chunks = new Chunks(id, created, model, includeUsage);
        if (reply instanceof Text text) {
            ObjectNode first = JSON.createObjectNode();
            first.put("role", "assistant");
            first.put("content", "");
            first.putNull("refusal");
            chunks.add(first, null);
            for (String piece : pieces(text.content(), 6)) {
                ObjectNode delta = JSON.createObjectNode();
                delta.put("content", piece);
                chunks.add(delta, null);
            }
            chunks.add(JSON.createObjectNode(), "stop");
        } else if (reply instanceof ToolCalls calls) {
            for (int index = 0; index < calls.calls().size(); index++) {
                Call call = calls.calls().get(index);
                ObjectNode delta = JSON.createObjectNode();
                if (index == 0) {
                    delta.put("role", "assistant");
                    delta.putNull("content");
                }
                ObjectNode announce = delta.putArray("tool_calls").addObject();
                announce.put("index", index);
                announce.put("id", callId(call));
                announce.put("type", "function");
                ObjectNode function = announce.putObject("function");
                function.put("name", call.name());
                function.put("arguments", "");
                if (index == 0) {
                    delta.putNull("refusal");
                }
                chunks.add(delta, null);
                for (String piece : pieces(call.arguments(), 5)) {
                    ObjectNode argumentDelta = JSON.createObjectNode();
                    ObjectNode part = argumentDelta.putArray("tool_calls").addObject();
                    part.put("index", index);
                    part.putObject("function").put("arguments", piece);
                    chunks.add(argumentDelta, null);
                }
            }
            chunks.add(JSON.createObjectNode(), "tool_calls");
        } else {
            throw new IllegalArgumentException("not a message: " + reply);
        }
        if (includeUsage) {
            ObjectNode last = chunks.base();
            last.putArray("choices");
            last.set("usage", usage());
            chunks.frames.add("data: " + last + "\n\n");
        }
        chunks.frames.add("data: [DONE]\n\n");
        return chunks.frames;
    }

    /** Text in pieces of about {@code size} characters, as a model streams tokens. */
    static List<String> pieces(String text, int size) {
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < text.length(); i += size) {
            pieces.add(text.substring(i, Math.min(text.length(), i + size)));
        }
        return pieces;
    }

    private String callId(Call call) {
        if (call.id() == null) {
            return newCallId();
        }
        callIds.add(call.id());
        return call.id();
    }

    private String newCallId() {
        String id = "call_" + ids.incrementAndGet();
        callIds.add(id);
        return id;
    }

    private static ObjectNode usage() {
        ObjectNode usage = JSON.createObjectNode();
        usage.put("prompt_tokens", 10);
        usage.put("completion_tokens", 5);
        usage.put("total_tokens", 15);
        ObjectNode prompt = usage.putObject("prompt_tokens_details");
        prompt.put("cached_tokens", 0);
        prompt.put("audio_tokens", 0);
        ObjectNode completion = usage.putObject("completion_tokens_details");
        completion.put("reasoning_tokens", 0);
        completion.put("audio_tokens", 0);
        completion.put("accepted_prediction_tokens", 0);
        completion.put("rejected_prediction_tokens", 0);
        return usage;
    }

    private static final class Chunks {
        final List<String> frames = new ArrayList<>();
        private final String id;
        private final long created;
        private final String model;
        private final boolean includeUsage;

        Chunks(String id, long created, String model, boolean includeUsage) {
            this.id = id;
            this.created = created;
            this.model = model;
            this.includeUsage = includeUsage;
        }

        ObjectNode base() {
            ObjectNode chunk = JSON.createObjectNode();
            chunk.put("id", id);
            chunk.put("object", "chat.completion.chunk");
            chunk.put("created", created);
            chunk.put("model", model);
            chunk.put("service_tier", "default");
            chunk.put("system_fingerprint", "fp_stub");
            return chunk;
        }

        void add(ObjectNode delta, String finishReason) {
            ObjectNode chunk = base();
            ObjectNode choice = chunk.putArray("choices").addObject();
            choice.put("index", 0);
            choice.set("delta", delta);
            choice.putNull("logprobs");
            if (finishReason == null) {
                choice.putNull("finish_reason");
            } else {
                choice.put("finish_reason", finishReason);
            }
            if (includeUsage) {
                chunk.putNull("usage");
            }
            frames.add("data: " + chunk + "\n\n");
        }
    }
}
