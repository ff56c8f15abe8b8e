package dev.quiver.api.host;

import java.time.Instant;

/**
 * A stored session, as {@code quiver sessions} lists it.
 *
 * @param id the session's id, for {@code --resume}
 * @param started when it began
 * @param updated when its last event was written
 * @param prompts how many prompts it holds
 * @param title its first prompt, shortened
 */
public record SessionSummary(String id, Instant started, Instant updated, int prompts, String title) {
}
