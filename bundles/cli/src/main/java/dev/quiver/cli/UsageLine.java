package dev.quiver.cli;

import dev.quiver.api.host.Usage;
import java.util.Locale;

/** {@code 4,210 in / 88 out tokens, ~$0.0091}, or "unpriced" when the model's price is not known. */
public final class UsageLine {

    private UsageLine() {
    }

    public static String of(Usage usage) {
        String tokens = String.format(Locale.ROOT, "%,d in / %,d out tokens", usage.inputTokens(), usage.outputTokens());
        return usage.costUsd().map(cost -> tokens + String.format(Locale.ROOT, ", ~$%.4f", cost))
                .orElse(tokens + " (model unpriced)");
    }
}
