package dev.quiver.kernel.conversation;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The most a tool call's arguments may weigh, and what happens to a call over it. A model can send
 * arguments of any size (a whole file to write, a runaway loop); past the limit the call is refused
 * before anything costly looks at the text (parsing it into a tree, checking it against the schema,
 * counting its tokens), and the history and the session file keep a small stand-in instead of the
 * text, so neither the next request nor a resumed session carries it again.
 */
public final class ArgumentLimit {

    /** The most bytes (UTF-8) a call's arguments may have: 1 MiB. */
    public static final int MAX_BYTES = 1 << 20;

    private ArgumentLimit() {
    }

    /**
     * The UTF-8 size of arguments over the limit, or -1 when they are within it. Counted without
     * copying the text; text too short to be over it whatever it holds is not counted at all.
     */
    public static long oversize(String arguments) {
        if (arguments == null || arguments.length() <= MAX_BYTES / 3) {
            return -1; // no character takes more than three bytes (a surrogate pair takes four for two)
        }
        long bytes = 0;
        for (int i = 0, n = arguments.length(); i < n; i++) {
            char c = arguments.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes > MAX_BYTES ? bytes : -1;
    }

    /** What the model is told when its call is refused for its size. */
    public static String refusal(String tool, long bytes) {
        return String.format(Locale.ROOT, "The arguments of %s are %,d bytes; the limit is %,d. Nothing was run. "
                + "Split the change into smaller calls (write part of the file, then add to it with edits).",
                tool, bytes, MAX_BYTES);
    }

    /**
     * What stands for arguments over the limit in the history, the session file and the front end: a
     * JSON object (every provider wants one in a past call) saying what was left out.
     */
    public static String standIn(long bytes) {
        return String.format(Locale.ROOT, "{\"omitted\":\"%d bytes of arguments, over the limit of %d; refused and "
                + "not kept\"}", bytes, MAX_BYTES);
    }

    /** The message with every call's arguments over the limit replaced by their {@link #standIn}; itself when none is. */
    public static AiMessage bounded(AiMessage message) {
        if (!message.hasToolExecutionRequests()) {
            return message;
        }
        List<ToolExecutionRequest> requests = new ArrayList<>();
        boolean changed = false;
        for (ToolExecutionRequest request : message.toolExecutionRequests()) {
            long bytes = oversize(request.arguments());
            if (bytes < 0) {
                requests.add(request);
            } else {
                changed = true;
                requests.add(ToolExecutionRequest.builder().id(request.id()).name(request.name())
                        .arguments(standIn(bytes)).build());
            }
        }
        return changed ? message.toBuilder().toolExecutionRequests(requests).build() : message;
    }
}
