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
 * @param diff what the call will change, as a unified diff without colour (a new file's head, a delete's
 *     name and size, a move as {@code rename a -> b}): what is written if the user approves, or nothing
 *     is; empty when the call's changes cannot be known before it runs (since 1.3)
 */
public record ApprovalRequest(String tool, String subject, Verdict verdict, Optional<String> pattern,
        Optional<String> diff) {

    public ApprovalRequest {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(diff, "diff");
    }

    /** A request without a diff, as before 1.3. */
    public ApprovalRequest(String tool, String subject, Verdict verdict, Optional<String> pattern) {
        this(tool, subject, verdict, pattern, Optional.empty());
    }
}
