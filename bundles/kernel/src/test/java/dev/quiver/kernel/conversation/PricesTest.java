package dev.quiver.kernel.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.Usage;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PricesTest {

    @Test
    void aKnownModelIsPricedPerMillionTokensWithTheVendorPrefixIgnored() {
        // gpt-4o-mini: $0.15 in, $0.60 out per million tokens
        Usage usage = Prices.usage("openai/gpt-4o-mini", 1_000_000, 500_000);
        assertEquals(1_000_000, usage.inputTokens());
        assertEquals(500_000, usage.outputTokens());
        assertEquals(0.15 + 0.30, usage.costUsd().orElseThrow(), 1e-9);
    }

    @Test
    void theLongestPrefixWins() {
        // gpt-4.1-mini ($0.40 / $1.60), not gpt-4.1 ($2 / $8)
        assertEquals(0.40 + 1.60, Prices.usage("GPT-4.1-mini-2025-04-14", 1_000_000, 1_000_000).costUsd().orElseThrow(),
                1e-9);
        assertEquals(2.00, Prices.usage("gpt-4.1", 1_000_000, 0).costUsd().orElseThrow(), 1e-9);
    }

    @Test
    void anUnknownModelHasTokensButNoCost() {
        Usage usage = Prices.usage("ollama/llama3.2", 1234, 56);
        assertEquals(1234, usage.inputTokens());
        assertEquals(56, usage.outputTokens());
        assertEquals(Optional.empty(), usage.costUsd());
        assertTrue(Usage.NONE.plus(usage).costUsd().isEmpty(), "a turn with an unpriced step has no cost");
    }
}
