package dev.quiver.cli.terminal;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;

/** Asks the person at the terminal about a call, or a question of a command; blocks until they answer. */
public interface Approver {

    /** The answer to an approval request. */
    Approval approve(ApprovalRequest request);

    /** Asks a question to which {@code y} or {@code yes} is yes and anything else no. */
    boolean confirm(String question);
}
