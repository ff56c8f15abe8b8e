package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApprovalPromptTest {

    private static final Verdict ASK = new Verdict(Decision.ASK, "default", "bash asks");

    @Test
    void theLineShowsExactlyThePatternThatAlwaysWouldGrant() {
        ApprovalRequest request = new ApprovalRequest("bash", "git status --porcelain", ASK, Optional.of("git status *"));
        assertEquals("y allow once | a always allow bash git status * | n deny", ApprovalPrompt.choices(request));
    }

    @Test
    void withNothingToGrantAlwaysIsNotOffered() {
        ApprovalRequest request = new ApprovalRequest("bash", "$(x) y", ASK, Optional.empty());
        assertEquals("y allow once | n deny", ApprovalPrompt.choices(request));
        assertEquals(Approval.Choice.DENY, ApprovalPrompt.parse("a", request).choice());
    }

    @Test
    void answersAreReadLeniently() {
        ApprovalRequest request = new ApprovalRequest("bash", "ls", ASK, Optional.of("ls *"));
        assertEquals(Approval.Choice.ONCE, ApprovalPrompt.parse(" Y ", request).choice());
        assertEquals(Approval.Choice.ALWAYS, ApprovalPrompt.parse("always", request).choice());
        assertEquals(Approval.Choice.DENY, ApprovalPrompt.parse("", request).choice());
        assertEquals(Approval.Choice.DENY, ApprovalPrompt.parse(null, request).choice());
    }
}
