package dev.quiver.api.host;

import java.util.Objects;
import java.util.Optional;

/**
 * What an approval prompt shows.
 *
 * @param tool the tool's name
 * @param subject what the call acts on, in full: the command, every path, the URL
 * @param verdict why it asks
 * @param pattern what "always allow" would grant for this session, exactly; empty when it would grant
 *     nothing (a compound command with a refused or unreadable part)
 */
public record ApprovalRequest(String tool, String subject, Verdict verdict, Optional<String> pattern) {

    public ApprovalRequest {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(pattern, "pattern");
    }
}
