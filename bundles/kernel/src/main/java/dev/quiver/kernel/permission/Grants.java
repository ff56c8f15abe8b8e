package dev.quiver.kernel.permission;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the user allowed with "always" during this session: patterns per tool. Held in memory only,
 * never written to disk; consulted only where the rules would ask, so a grant never outranks a deny.
 */
public final class Grants {

    private final Map<String, List<String>> patterns = new ConcurrentHashMap<>();

    public void grant(String tool, List<String> granted) {
        patterns.computeIfAbsent(tool, t -> new CopyOnWriteArrayList<>()).addAll(granted);
    }

    /** The grant of exactly this text, if any: a name is granted only by itself. */
    public java.util.Optional<String> exactly(String tool, String text) {
        return patterns.getOrDefault(tool, List.of()).contains(text) ? java.util.Optional.of(text)
                : java.util.Optional.empty();
    }

    /** The granted pattern that matches the text, if any. */
    public java.util.Optional<String> match(String tool, String text) {
        for (String pattern : patterns.getOrDefault(tool, List.of())) {
            if (Wildcard.matchesSubject(pattern, text)) {
                return java.util.Optional.of(pattern);
            }
        }
        return java.util.Optional.empty();
    }
}
