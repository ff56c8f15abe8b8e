package dev.quiver.kernel.conversation;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts tokens with a real tokenizer (OpenAI's o200k encoding, through jtokkit). Other vendors'
 * tokenizers differ by some percent, which is why the compaction threshold leaves a margin. Counts
 * of messages are remembered, since a history is counted again at every step.
 *
 * <p>A text longer than {@link #EXACT_CHARS} is estimated, not encoded: encoding costs time and
 * memory in proportion to the text, and far more on long runs without spaces (10 MB of one tool
 * argument took 17 s and 2.4 GB). The estimate encodes the first and the last
 * {@link #EXACT_CHARS}{@code /2} characters and scales their count to the whole length, so prose,
 * code and CJK text (where a character is nearer two tokens than a quarter) are each estimated by
 * their own ratio.
 */
public final class TokenCounter {

    /** Tokens a message costs beyond its text (role and framing), as OpenAI documents it. */
    private static final int PER_MESSAGE = 4;
    /** The longest text counted exactly; longer ones are estimated from a sample of this many characters. */
    static final int EXACT_CHARS = 64 * 1024;

    private static volatile Encoding encoding;
    private final Map<ChatMessage, Integer> counted = new IdentityHashMap<>();

    private static Encoding encoding() {
        Encoding current = encoding;
        if (current == null) {
            synchronized (TokenCounter.class) {
                current = encoding;
                if (current == null) {
                    current = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
                    encoding = current;
                }
            }
        }
        return current;
    }

    /** Tokens of a text: counted up to {@link #EXACT_CHARS} characters, estimated past that. */
    public int count(String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        if (text.length() <= EXACT_CHARS) {
            return encoding().countTokensOrdinary(text);
        }
        int half = EXACT_CHARS / 2;
        long sampled = encoding().countTokensOrdinary(text.substring(0, half))
                + encoding().countTokensOrdinary(text.substring(text.length() - half));
        return (int) Math.min(Integer.MAX_VALUE, (sampled * text.length() + EXACT_CHARS - 1) / EXACT_CHARS);
    }

    /** Tokens of one message, remembered by identity. */
    public synchronized int count(ChatMessage message) {
        Integer known = counted.get(message);
        if (known != null) {
            return known;
        }
        int tokens = PER_MESSAGE + count(text(message));
        counted.put(message, tokens);
        return tokens;
    }

    /**
     * A bound no count of these messages exceeds, found without the tokenizer (whose vocabulary takes
     * a quarter of a second to load): a token of a byte-level encoding covers at least one UTF-8 byte,
     * and a character is at most three, so a text counts at most three tokens a character (an
     * estimate too: it scales a sample that obeys the same bound).
     */
    public static long upperBound(List<ChatMessage> messages) {
        long bound = 0;
        for (ChatMessage message : messages) {
            bound += PER_MESSAGE + 3L * text(message).length();
        }
        return bound;
    }

    /** Tokens of messages. */
    public int count(List<ChatMessage> messages) {
        int total = 0;
        for (ChatMessage message : messages) {
            total += count(message);
        }
        return total;
    }

    static String text(ChatMessage message) {
        if (message instanceof UserMessage user) {
            return user.hasSingleText() ? user.singleText() : user.contents().toString();
        }
        if (message instanceof SystemMessage system) {
            return system.text();
        }
        if (message instanceof ToolExecutionResultMessage result) {
            return result.text();
        }
        if (message instanceof AiMessage ai) {
            StringBuilder text = new StringBuilder(ai.text() == null ? "" : ai.text());
            if (ai.hasToolExecutionRequests()) {
                for (ToolExecutionRequest request : ai.toolExecutionRequests()) {
                    text.append(' ').append(request.name()).append(' ').append(request.arguments());
                }
            }
            return text.toString();
        }
        return String.valueOf(message);
    }
}
