package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The headless exit code: 3 only when the task stopped on a refusal. */
class ExitCodeTest {

    private static CallOutcome call(CallOutcome.Status status) {
        Decision decision = status == CallOutcome.Status.DENIED ? Decision.DENY : Decision.ALLOW;
        return new CallOutcome("bash", status, "", 1, new Verdict(decision, "default", "test"));
    }

    private static int exit(TurnResult.Status status, CallOutcome.Status... calls) {
        List<CallOutcome> outcomes = java.util.Arrays.stream(calls).map(ExitCodeTest::call).toList();
        return RootCommand.exitCode(new TurnResult(status, "answer", outcomes, 2, Usage.NONE));
    }

    @Test
    void aTurnThatEndsOnARefusalIsThreeAndOneThatWorkedAroundItIsZero() {
        assertEquals(0, exit(TurnResult.Status.DONE));
        assertEquals(0, exit(TurnResult.Status.DONE, CallOutcome.Status.OK));
        assertEquals(3, exit(TurnResult.Status.DONE, CallOutcome.Status.OK, CallOutcome.Status.DENIED));
        assertEquals(0, exit(TurnResult.Status.DONE, CallOutcome.Status.DENIED, CallOutcome.Status.OK),
                "a later call ran: the refusal did not stop the task");
        assertEquals(4, exit(TurnResult.Status.STEP_LIMIT, CallOutcome.Status.DENIED));
    }
}
