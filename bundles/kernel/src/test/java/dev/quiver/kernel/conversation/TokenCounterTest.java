package dev.quiver.kernel.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenCounterTest {

    private final TokenCounter counter = new TokenCounter();

    /** Text of {@code length} characters made of {@code unit} repeated. */
    private static String of(String unit, int length) {
        return unit.repeat(length / unit.length() + 1).substring(0, length);
    }

    @Test
    void shortTextIsCountedExactly() {
        assertEquals(2, counter.count("hello world"));
        assertEquals(0, counter.count(""));
        assertEquals(0, counter.count((String) null));
    }

    /** The bound compaction trusts to skip counting is never below the count, for any kind of text. */
    @Test
    void theUpperBoundIsNeverBelowTheCount() {
        Random random = new Random(11);
        StringBuilder noise = new StringBuilder();
        while (noise.length() < 3 * TokenCounter.EXACT_CHARS) {
            noise.append((char) (1 + random.nextInt(0xD7FF))); // any BMP character, most of them 3 bytes
        }
        for (String text : new String[] {"hello world", of("\u4e2d\u6587", 500), of("\ud83d\ude00", 300),
                of("zq", 1000), noise.toString(), noise.substring(0, 200), of("\u00e9\u00df", 3 * TokenCounter.EXACT_CHARS)}) {
            java.util.List<dev.langchain4j.data.message.ChatMessage> messages = java.util.List.of(
                    dev.langchain4j.data.message.UserMessage.from(text), dev.langchain4j.data.message.AiMessage.from(text));
            int counted = new TokenCounter().count(messages);
            assertTrue(counted <= TokenCounter.upperBound(messages),
                    counted + " tokens over the bound " + TokenCounter.upperBound(messages) + " for " + text.length() + " chars");
        }
    }

    @Test
    void longTextIsEstimatedFromItsOwnRatioOfTokensToCharacters() {
        // each kind 4 times the exact limit: the estimate is within 2% of the real count
        StringBuilder cjk = new StringBuilder();
        Random random = new Random(7);
        while (cjk.length() < 4 * TokenCounter.EXACT_CHARS) {
            cjk.append((char) (0x4e00 + random.nextInt(2000)));
        }
        for (String text : new String[] {of("{\"path\":\"src/A.java\",\"line\":\"int x = 1;\"} ", 4 * TokenCounter.EXACT_CHARS),
                cjk.toString()}) {
            int estimate = counter.count(text);
            int exact = com.knuddels.jtokkit.Encodings.newLazyEncodingRegistry()
                    .getEncoding(com.knuddels.jtokkit.api.EncodingType.O200K_BASE).countTokensOrdinary(text);
            assertTrue(Math.abs(estimate - exact) <= exact / 50, "estimate " + estimate + ", exact " + exact);
        }
    }

    @Test
    void tenMegabytesWithoutASpaceAreEstimatedNotEncoded() {
        // encoding this whole took 2.6 GB of heap and ten seconds; the estimate encodes 64 K characters of it
        String run = of("a", 10 * 1024 * 1024);
        int estimate = counter.count(run);
        assertEquals((long) counter.count(run.substring(0, TokenCounter.EXACT_CHARS)) * 160, estimate);
    }
}
