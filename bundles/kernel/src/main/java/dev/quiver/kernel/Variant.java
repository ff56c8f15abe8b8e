package dev.quiver.kernel;

import dev.quiver.api.Access;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.RunOptions;
import dev.quiver.langchain4j.Thinking;
import java.util.Locale;

/**
 * An agent variant ({@code --agent}, {@code /agent}): how much the model deliberates, which tools it is
 * offered, how many steps a turn may take, and a paragraph of the system prompt saying what it is for.
 * The read-only variants withhold tools by what they can do ({@link Access}), as {@code --read-only} does,
 * so no config, rule or tool property can give them back.
 */
enum Variant {
    DEFAULT(Thinking.MEDIUM, false, 50, ""),
    QUICK(Thinking.OFF, false, 12, "Agent variant: quick. The task is small and well scoped: make the change "
            + "directly. Do not deliberate at length, do not write a task list, and read only what the change "
            + "needs."),
    DEEP(Thinking.MAX, false, 80, "Agent variant: deep. The problem is hard or its cause unclear: form more than "
            + "one hypothesis before acting, read enough to tell them apart before concluding, and record what you "
            + "establish with remember where it is offered, so it survives compaction."),
    PLAN(Thinking.HIGH, true, 50, "Agent variant: plan. Investigate and propose; you have no tool that changes "
            + "anything and cannot run commands. End with a concrete plan: the files to change, how, and the "
            + "commands that would verify it. Say what should be run rather than claiming it passed, and never "
            + "describe an edit as if it had been made."),
    REVIEW(Thinking.HIGH, true, 50, "Agent variant: review. Critique the change or code the user names; you have "
            + "no tool that changes anything and cannot run commands. Report findings, most important first, each "
            + "with its file and line and why it matters. Say what should be run rather than claiming it passed, "
            + "and never describe an edit as if it had been made.");

    final Thinking thinking;
    /** Whether the variant is offered only tools that read or keep the agent's own state. */
    final boolean readOnly;
    final int stepCap;
    /** The system prompt's paragraph for the variant; empty for {@code default}. */
    final String prompt;

    Variant(Thinking thinking, boolean readOnly, int stepCap, String prompt) {
        this.thinking = thinking;
        this.readOnly = readOnly;
        this.stepCap = stepCap;
        this.prompt = prompt;
    }

    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The variant a name stands for, or a HostException that lists the names. */
    static Variant named(String name, String source) {
        for (Variant variant : values()) {
            if (variant.id().equals(name.strip().toLowerCase(Locale.ROOT))) {
                return variant;
            }
        }
        throw new HostException("Unknown agent \"" + name + "\"" + source + ". Available: "
                + String.join(", ", RunOptions.AGENTS) + ".");
    }

    /** The level a name stands for, or a HostException that lists the levels. */
    static Thinking level(String name, String source) {
        return Thinking.parse(name).orElseThrow(() -> new HostException("Unknown thinking level \"" + name + "\""
                + source + ". Available: " + String.join(", ", RunOptions.THINKING) + "."));
    }
}
