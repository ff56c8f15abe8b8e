package dev.quiver.cli.terminal;

import dev.quiver.api.UserQuestion;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import java.util.List;
import java.util.Optional;

/** Asks the person at the terminal about a call, or a question of a command; blocks until they answer. */
public interface Approver {

    /** The answer to an approval request. */
    Approval approve(ApprovalRequest request);

    /**
     * Asks a tool's question ({@code ask}): the labels chosen or the text typed; empty when dismissed.
     */
    Optional<List<String>> ask(UserQuestion question);

    /** Asks a question to which {@code y} or {@code yes} is yes and anything else no. */
    boolean confirm(String question);
}
