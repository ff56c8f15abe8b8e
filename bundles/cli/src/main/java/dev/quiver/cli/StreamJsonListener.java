package dev.quiver.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import java.io.PrintStream;

/**
 * {@code --output-format stream-json}: every event of a headless turn as one JSON object on its own
 * line of stdout, written and flushed as it happens, in the envelope Claude Code's stream-json uses
 * ({@code type} {@code system}, {@code assistant}, {@code user} or {@code result}, the session id on
 * each) with Quiver's fields added. stderr keeps only the start-up header and warnings.
 */
final class StreamJsonListener extends HeadlessListener {

    private final PrintStream out;
    private final String sessionId;
    /** The answer's text of the model request under way, written as one message when the request ends. */
    private final StringBuilder text = new StringBuilder();
    /** The id of the call under way: calls of a turn run one after another. */
    private String callId = "";

    /** Writes the {@code init} event at once. */
    StreamJsonListener(PrintStream out, Session session, String version, boolean yolo, boolean readOnly) {
        super(new PrintStream(java.io.OutputStream.nullOutputStream()));
        this.out = out;
        this.sessionId = session.id();
        ObjectNode init = event("system", "init");
        init.put("cwd", session.workspace().toString());
        init.put("workspace", session.workspace().toString());
        init.put("model", session.model().orElse(null));
        init.putArray("tools").addAll(session.tools().stream().map(ToolInfo::name).map(TextNode::valueOf).toList());
        init.put("permission_mode", yolo ? "yolo" : readOnly ? "read_only" : "default");
        init.put("quiver_version", version);
        emit(init);
    }

    private ObjectNode event(String type, String subtype) {
        ObjectNode event = Output.MAPPER.createObjectNode();
        event.put("type", type);
        if (subtype != null) {
            event.put("subtype", subtype);
        }
        event.put("session_id", sessionId);
        return event;
    }

    /** One line, flushed: a reader of the pipe sees each event when it happens. Retries come from another thread. */
    private synchronized void emit(JsonNode event) {
        Output.line(out, event);
    }

    @Override
    public synchronized void text(String piece) {
        text.append(piece);
    }

    @Override
    public void usage(Usage step) {
        super.usage(step);
        flushText();
    }

    /** The text the model request gave, as an assistant message; nothing when it gave none. */
    private void flushText() {
        String whole;
        synchronized (this) {
            whole = text.toString();
            text.setLength(0);
        }
        if (!whole.isEmpty()) {
            ObjectNode event = event("assistant", null);
            ObjectNode block = message(event, "assistant");
            block.put("type", "text");
            block.put("text", whole);
            emit(event);
        }
    }

    /** {@code "message": {"role": ROLE, "content": [BLOCK]}}; the block to fill. */
    private static ObjectNode message(ObjectNode event, String role) {
        ObjectNode message = event.putObject("message");
        message.put("role", role);
        return message.putArray("content").addObject();
    }

    @Override
    public void callStarted(String id, String tool, String arguments) {
        flushText();
        synchronized (this) {
            callId = id == null ? "" : id;
            progressed = 0;
        }
        ObjectNode event = event("assistant", null);
        ObjectNode block = message(event, "assistant");
        block.put("type", "tool_use");
        block.put("id", id);
        block.put("name", tool);
        block.set("input", input(arguments));
        emit(event);
    }

    /** The arguments as a JSON object; text the model sent that is not one stays text. */
    private static JsonNode input(String arguments) {
        try {
            JsonNode parsed = Output.MAPPER.readTree(arguments);
            return parsed != null && parsed.isObject() ? parsed : TextNode.valueOf(arguments);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(arguments);
        }
    }

    @Override
    public void callDecided(String tool, Verdict verdict) {
        ObjectNode event = event("system", "permission");
        event.put("tool_use_id", currentCall());
        event.put("tool", tool);
        event.put("decision", verdict.decision().id());
        event.put("by", verdict.by());
        event.put("reason", verdict.reason());
        emit(event);
    }

    /** The diff of the call under way, once it has made its changes; null until then. */
    private String changed;

    @Override
    public synchronized void callChanged(String tool, String diff) {
        // a task's subagent may change several files in one call: every diff is kept
        changed = changed == null ? diff : changed + diff;
    }

    @Override
    public void callEnded(CallOutcome outcome) {
        ObjectNode event = event("user", null);
        ObjectNode block = message(event, "user");
        block.put("type", "tool_result");
        block.put("tool_use_id", currentCall());
        block.put("content", outcome.output());
        block.put("is_error", outcome.status() != CallOutcome.Status.OK);
        block.put("tool", outcome.tool());
        block.put("status", outcome.status().id());
        block.put("decision", outcome.verdict().decision().id());
        block.put("by", outcome.verdict().by());
        block.put("reason", outcome.verdict().reason());
        block.put("elapsed_ms", outcome.elapsedMillis());
        String diff = takeChanged();
        if (diff != null) {
            block.put("diff", diff);
        }
        emit(event);
    }

    private synchronized String takeChanged() {
        String diff = changed;
        changed = null;
        return diff;
    }

    private synchronized String currentCall() {
        return callId;
    }

    /** Progress events one call emits at most; the tool result carries the whole (capped) output anyway. */
    static final int PROGRESS_LIMIT = 1_000;
    /** Characters of one progress event's text. */
    static final int PROGRESS_CHARS = 4_000;
    /** Progress events of the call under way. */
    private int progressed;

    @Override
    public void callOutput(String tool, String text) {
        int count;
        synchronized (this) {
            if (progressed >= PROGRESS_LIMIT || text.isEmpty()) {
                return;
            }
            count = ++progressed;
        }
        ObjectNode event = event("system", "tool_progress");
        event.put("tool_use_id", currentCall());
        event.put("tool", tool);
        event.put("text", dev.quiver.cli.terminal.Printable.cut(text, PROGRESS_CHARS));
        if (count == PROGRESS_LIMIT) {
            event.put("truncated", true);
        }
        emit(event);
    }

    @Override
    public void notice(String notice) {
        ObjectNode event = event("system", "notice");
        event.put("message", notice);
        emit(event);
    }

    @Override
    public void retrying(String notice) {
        ObjectNode event = event("system", "api_retry");
        event.put("message", notice);
        emit(event);
    }

    /** The last event: the run's result object, as {@code --output-format json} prints it. */
    void result(ObjectNode result) {
        emit(result);
    }
}
