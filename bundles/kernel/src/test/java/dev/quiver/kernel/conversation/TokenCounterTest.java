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
