package dev.quiver.cli.terminal;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;

/** Asks the person at the terminal about a call; blocks the turn until they answer. */
public interface Approver {

    /** The answer to an approval request. */
    Approval approve(ApprovalRequest request);
}
