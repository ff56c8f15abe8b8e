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
 * @param agent the agent variant ({@code --agent}), one of {@link #AGENTS}; empty for the config's, else
 *     {@code default}. Since 1.4.
 * @param thinking the thinking level ({@code --think}), one of {@link #THINKING}; empty for the config's,
 *     else the variant's. Since 1.4.
 * @param maxTurnsGiven whether {@code maxTurns} was chosen ({@code --max-turns}); when not, the agent
 *     variant's step cap applies. Since 1.4.
 * @since 1.3
 */
public record RunOptions(int maxTurns, Map<String, List<String>> allowedTools,
        Map<String, List<String>> disallowedTools, Optional<String> appendSystemPrompt, Optional<String> agent,
        Optional<String> thinking, boolean maxTurnsGiven) {

    /** Model requests one prompt may make unless {@code --max-turns} or the agent variant says otherwise. */
    public static final int DEFAULT_MAX_TURNS = 50;

    /**
     * The agent variants, {@code default} first.
     *
     * @since 1.4
     */
    public static final List<String> AGENTS = List.of("default", "quick", "deep", "plan", "review");

    /**
     * The thinking levels, least first.
     *
     * @since 1.4
     */
    public static final List<String> THINKING = List.of("off", "low", "medium", "high", "max");

    /** Nothing set on the command line. */
    public static final RunOptions DEFAULT = new RunOptions(DEFAULT_MAX_TURNS, Map.of(), Map.of(), Optional.empty());

    public RunOptions {
        if (maxTurns < 1) {
            throw new IllegalArgumentException("maxTurns must be 1 or more, not " + maxTurns);
        }
        allowedTools = copy(allowedTools);
        disallowedTools = copy(disallowedTools);
        Objects.requireNonNull(appendSystemPrompt, "appendSystemPrompt");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(thinking, "thinking");
    }

    /**
     * The settings of 1.3: no variant or level chosen; a step cap other than {@link #DEFAULT_MAX_TURNS}
     * counts as chosen.
     */
    public RunOptions(int maxTurns, Map<String, List<String>> allowedTools, Map<String, List<String>> disallowedTools,
            Optional<String> appendSystemPrompt) {
        this(maxTurns, allowedTools, disallowedTools, appendSystemPrompt, Optional.empty(), Optional.empty(),
                maxTurns != DEFAULT_MAX_TURNS);
    }

    /** An unmodifiable copy that keeps the order the rules were given in. */
    private static Map<String, List<String>> copy(Map<String, List<String>> rules) {
        Map<String, List<String>> copied = new LinkedHashMap<>();
        rules.forEach((tool, patterns) -> copied.put(Objects.requireNonNull(tool, "tool"), List.copyOf(patterns)));
        return java.util.Collections.unmodifiableMap(copied);
    }
}
