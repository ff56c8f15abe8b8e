package dev.quiver.kernel.permission;

import dev.quiver.api.host.Decision;
import java.nio.file.Path;

/**
 * One entry of a tool's permission table.
 *
 * @param toolKey the tool name or tool glob the table is under
 * @param pattern the subject pattern
 * @param decision what a match decides
 * @param file the config file it came from
 */
public record Rule(String toolKey, String pattern, Decision decision, Path file) {

    /** {@code rule "git *" for bash (allow, from /ws/.quiver/config.json)}. */
    public String describe() {
        return "rule \"" + pattern + "\" for " + toolKey + " (" + decision.id() + ", from " + file + ")";
    }
}
