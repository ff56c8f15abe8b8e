package dev.quiver.api.host;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the command line sets for one run on top of the configuration files ({@code --max-turns},
 * {@code --allowedTools}, {@code --disallowedTools}, {@code --append-system-prompt}). Nothing here is
 * recorded.
 *
 * @param maxTurns model requests one prompt may make; a turn that reaches it ends with
 *     {@link TurnResult.Status#STEP_LIMIT}
 * @param allowedTools allow rules for this run, tool name (or tool glob) to subject patterns in the
 *     permission rules' syntax ({@code "*"} for every call of the tool). They answer what would ask by
 *     the tool's default or by a rule of the user's or the workspace's files; never a deny, a guard,
 *     {@code --read-only}, a part of a call that cannot be judged before it runs, or an ask of the
 *     managed policy
 * @param disallowedTools deny rules for this run, in the same form, on top of every layer
 * @param appendSystemPrompt text added at the end of every step's system prompt; empty for none
 * @since 1.3
 */
public record RunOptions(int maxTurns, Map<String, List<String>> allowedTools,
        Map<String, List<String>> disallowedTools, Optional<String> appendSystemPrompt) {

    /** Model requests one prompt may make unless {@code --max-turns} says otherwise. */
    public static final int DEFAULT_MAX_TURNS = 50;

    /** Nothing set on the command line. */
    public static final RunOptions DEFAULT = new RunOptions(DEFAULT_MAX_TURNS, Map.of(), Map.of(), Optional.empty());

    public RunOptions {
        if (maxTurns < 1) {
            throw new IllegalArgumentException("maxTurns must be 1 or more, not " + maxTurns);
        }
        allowedTools = copy(allowedTools);
        disallowedTools = copy(disallowedTools);
        Objects.requireNonNull(appendSystemPrompt, "appendSystemPrompt");
    }

    /** An unmodifiable copy that keeps the order the rules were given in. */
    private static Map<String, List<String>> copy(Map<String, List<String>> rules) {
        Map<String, List<String>> copied = new LinkedHashMap<>();
        rules.forEach((tool, patterns) -> copied.put(Objects.requireNonNull(tool, "tool"), List.copyOf(patterns)));
        return java.util.Collections.unmodifiableMap(copied);
    }
}
