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

    @Test
    void aTypedAnswerIsReadByItsFirstWordAndNCanCarryWhatToDoInstead() {
        ApprovalRequest request = new ApprovalRequest("bash", "ls", ASK, Optional.of("ls *"));
        assertEquals(Approval.once(), ApprovalPrompt.read("y", request).approval());
        assertEquals(Approval.once(), ApprovalPrompt.read("Yes, please", request).approval());
        assertEquals(Approval.always(), ApprovalPrompt.read("a", request).approval());
        assertEquals(true, ApprovalPrompt.read("n", request).askInstead());
        assertEquals(Approval.deny("use rg"), ApprovalPrompt.read("n use rg", request).approval());
        assertEquals(true, ApprovalPrompt.read("", request).unclear(), "an empty answer is asked again");
        assertEquals(true, ApprovalPrompt.read("maybe", request).unclear());
        ApprovalRequest nothing = new ApprovalRequest("bash", "$(x)", ASK, Optional.empty());
        assertEquals(true, ApprovalPrompt.read("a", nothing).unclear(), "always is not offered, so it is asked again");
    }

    @Test
    void theOutcomeLineSaysWhatTheAnswerDid() {
        ApprovalRequest request = new ApprovalRequest("bash", "git status", ASK, Optional.of("git status *"));
        assertEquals("allowed once", ApprovalPrompt.outcome(Approval.once(), request));
        assertEquals("allowed bash git status * for this session", ApprovalPrompt.outcome(Approval.always(), request));
        assertEquals("denied", ApprovalPrompt.outcome(Approval.deny(""), request));
        assertEquals("denied: use git diff", ApprovalPrompt.outcome(Approval.deny("use git diff"), request));
    }
}
