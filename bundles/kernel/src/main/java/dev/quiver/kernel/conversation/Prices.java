package dev.quiver.kernel.conversation;

import dev.quiver.api.host.Usage;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Hand-entered list prices in US dollars per million tokens, for a cost estimate where the model is
 * known. They drift as vendors change them: an estimate, not a bill. An unknown model is unpriced.
 */
public final class Prices {

    private record Price(double input, double output) {
    }

    // longest prefix wins: "gpt-4.1-mini" before "gpt-4.1"
    private static final Map<String, Price> BY_PREFIX = Map.ofEntries(
            Map.entry("gpt-4.1-nano", new Price(0.10, 0.40)),
            Map.entry("gpt-4.1-mini", new Price(0.40, 1.60)),
            Map.entry("gpt-4.1", new Price(2.00, 8.00)),
            Map.entry("gpt-4o-mini", new Price(0.15, 0.60)),
            Map.entry("gpt-4o", new Price(2.50, 10.00)),
            Map.entry("gpt-5-mini", new Price(0.25, 2.00)),
            Map.entry("gpt-5-nano", new Price(0.05, 0.40)),
            Map.entry("gpt-5", new Price(1.25, 10.00)),
            Map.entry("o3-mini", new Price(1.10, 4.40)),
            Map.entry("o4-mini", new Price(1.10, 4.40)),
            Map.entry("o3", new Price(2.00, 8.00)),
            Map.entry("claude-opus-4", new Price(15.00, 75.00)),
            Map.entry("claude-sonnet-4", new Price(3.00, 15.00)),
            Map.entry("claude-3-7-sonnet", new Price(3.00, 15.00)),
            Map.entry("claude-3-5-haiku", new Price(0.80, 4.00)),
            Map.entry("claude-haiku-4", new Price(1.00, 5.00)));

    private Prices() {
    }

    /** The usage of a request to a model, priced when the model is known (vendor prefixes such as "openai/" ignored). */
    public static Usage usage(String model, long input, long output) {
        String name = model.toLowerCase(Locale.ROOT);
        int slash = name.lastIndexOf('/');
        if (slash >= 0) {
            name = name.substring(slash + 1);
        }
        String best = null;
        for (String prefix : BY_PREFIX.keySet()) {
            if (name.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        if (best == null) {
            return new Usage(input, output, Optional.empty());
        }
        Price price = BY_PREFIX.get(best);
        return new Usage(input, output, Optional.of((input * price.input() + output * price.output()) / 1_000_000.0));
    }
}
