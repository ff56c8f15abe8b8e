package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.Verdict;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a TTY: one line per prompt, approvals answered by the next lines, no escape codes. */
class LineFrontEndTest {

    @TempDir
    Path dir;

    private String run(FakeSession session, String input) {
        return run(session, input, Optional.empty());
    }

    private String run(FakeSession session, String input, Optional<String> firstPrompt) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Launch launch = new Launch(session.kernel(), "9.9.9", SessionOptions.headless(dir), new FakeServices(List.of()),
                new BufferedReader(new StringReader(input)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), dir.resolve("history"), false, firstPrompt);
        assertEquals(0, new LineFrontEnd(launch).run());
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void approvalsAreAnsweredByTheNextLinesAndNothingIsEscaped() {
        FakeSession session = new FakeSession(dir);
        List<Approval> answers = new ArrayList<>();
        Verdict ask = new Verdict(Decision.ASK, "default", "bash asks");
        for (int i = 0; i < 3; i++) {
            session.turns.add((s, listener) -> {
                listener.callStarted("bash", "{\"command\":\"make\"}");
                Approval approval = listener.approve(new ApprovalRequest("bash", "make", ask, Optional.of("make *")));
                answers.add(approval);
                listener.callOutput("bash", "building\n");
                listener.callEnded(FakeSession.outcome("bash", CallOutcome.Status.OK, "ok"));
                listener.text("# Done\n**all** good");
                return "";
            });
        }
        String output = run(session, "one\ny\ntwo\na\nthree\nn\nuse ninja\n/tools\n/exit\nnever\n");
        assertEquals(List.of(Approval.once(), Approval.always(), Approval.deny("use ninja")), answers);
        assertEquals(List.of("one", "two", "three"), session.prompts);
        assertFalse(output.contains("\033"), output);
        assertTrue(output.contains("y allow once | a always allow bash make * | n deny: "), output);
        assertTrue(output.contains("What should it do instead? (enter to skip): "), output);
        assertTrue(output.contains("· bash  make\n  ▏ building\n✓ bash  make"), output);
        assertTrue(output.contains("Done\nall good\n"), output);
        assertTrue(output.contains("8 offered this turn of 9 registered"), output);
    }

    @Test
    void agentListsTheVariantsWithTheCurrentMarkedAndAgentAndThinkSwitchBeforeTheNextPrompt() {
        FakeSession session = new FakeSession(dir);
        List<String> seen = new ArrayList<>();
        session.turns.add((s, listener) -> {
            seen.add(session.agent() + "/" + session.thinking());
            return "";
        });
        String output = run(session, "/agent\n/agent plan\n/think low\n/agent turbo\n/think lots\nplan it\n/agent\n"
                + "/exit\n");
        assertEquals(List.of("plan/low"), seen, "the prompt after the switches ran with them");
        assertTrue(output.contains("* default\n  quick\n  deep\n  plan\n  review\n"), output);
        assertTrue(output.contains("  default\n  quick\n  deep\n* plan\n  review\n"), output);
        assertTrue(output.contains("agent plan (thinking "), output);
        assertTrue(output.contains("thinking low from the next request on"), output);
        assertTrue(output.contains("Unknown agent \"turbo\". Available: default, quick, deep, plan, review."), output);
        assertTrue(output.contains("Unknown thinking level \"lots\""), output);
    }

    @Test
    void initInLineModeIsATurnWithTheInitPromptNotAnUnknownCommand() {
        FakeSession session = new FakeSession(dir);
        String output = run(session, "/init\n/exit\n");
        assertEquals(List.of(Commands.INIT_PROMPT), session.prompts);
        assertFalse(output.contains("unknown command"), output);
    }

    @Test
    void undoShowsWhatItWillRestoreAndAsksFirst() {
        FakeSession session = new FakeSession(dir);
        session.undoReport = new UndoReport(List.of(), List.of(
                new UndoReport.Change("src/Main.java", UndoReport.Kind.DELETED, Optional.empty()),
                new UndoReport.Change("notes.txt", UndoReport.Kind.MODIFIED,
                        Optional.of("it changed after turn 2 of session s-test ended"))),
                List.of("These turns ran commands (bash)."), false, 2);
        String output = run(session, "/undo 2\nn\n/undo 2\ny\n/undo two\n/exit\n");
        assertEquals(List.of(2), session.undone, "the first answer was no");
        assertTrue(output.contains("Will restore 1 file that the last 2 turns changed:\n"
                + "  deleted → recreated  src/Main.java\n"
                + "Not restored:\n"
                + "  notes.txt (modified): it changed after turn 2 of session s-test ended\n"
                + "Will rewind the conversation by 2 turns.\n"
                + "Not undone:\n"
                + "  These turns ran commands (bash).\n"
                + "Undo the last 2 turns? [y/N]: "), output);
        assertTrue(output.contains("· nothing was undone"), output);
        assertTrue(output.contains("Restored 1 file that the last 2 turns changed:"), output);
        assertTrue(output.contains("Rewound the conversation by 2 turns."), output);
        assertTrue(output.contains("error: usage: /undo [N] [--force]"), output);
    }

    /**
     * The attack: direction overrides in a command, or in a question and its options, make a terminal that
     * lays out right-to-left text show other words than the ones that run or were asked. They are shown
     * escaped, and the answer is still only the question's answer.
     */
    @Test
    void directionOverridesInAnApprovalOrAQuestionAreShownEscapedNotObeyed() {
        FakeSession session = new FakeSession(dir);
        List<Object> answers = new ArrayList<>();
        Verdict ask = new Verdict(Decision.ASK, "default", "bash asks");
        session.turns.add((s, listener) -> {
            answers.add(listener.ask(new dev.quiver.api.UserQuestion("Allow bash \u202Efr- mr\u202C?",
                    List.of(new dev.quiver.api.UserQuestion.Option("y\u2066es", "")), false)));
            answers.add(listener.approve(new ApprovalRequest("bash", "echo ok \u202E~ fr- mr", ask, Optional.empty())));
            answers.add(listener.approve(new ApprovalRequest("bash", "ls\u001b[2K", ask, Optional.of("ls\u001b[2K *"))));
            return "";
        });
        String output = run(session, "go\n1\nn\n\na\n/exit\n");
        assertFalse(output.contains("\u001b"), output);
        assertTrue(output.contains("a always allow bash ls^[[2K * | n deny")
                && output.contains("allowed bash ls^[[2K * for this session"), output);
        assertFalse(output.contains("\u202E") || output.contains("\u202C") || output.contains("\u2066"), output);
        assertTrue(output.contains("? Allow bash \\u202efr- mr\\u202c?"), output);
        assertTrue(output.contains("1. y\\u2066es (recommended)"), output);
        assertTrue(output.contains("    echo ok \\u202e~ fr- mr"), output);
        assertEquals(List.of(Optional.of(List.of("y\u2066es")), Approval.deny(""), Approval.always()), answers);
    }

    @Test
    void aFileNameCannotDrawOnTheTerminalOrForgeALineOfTheUndoPreview() {
        FakeSession session = new FakeSession(dir);
        session.undoReport = new UndoReport(List.of(), List.of(new UndoReport.Change(
                "x\033[2J\rNot restored: FAKE\nmore.txt", UndoReport.Kind.MODIFIED, Optional.empty())),
                List.of(), false, 1);
        String output = run(session, "/undo\nn\n/exit\n");
        assertTrue(output.contains("  modified → restored  x^[[2J^MNot restored: FAKE^Jmore.txt\n"), output);
        assertFalse(output.contains("\033[2J"), output);
    }

    @Test
    void anUntrustedWorkspaceThatAsksForMoreIsQuestionedOnceAndYesTrustsIt() {
        FakeSession session = new FakeSession(dir);
        session.held = List.of("model", "mcp");
        String declined = run(session, "n\n/exit\n");
        assertTrue(declined.contains("is not trusted. Its files ask for: model, mcp. Trust it"), declined);
        assertTrue(declined.contains("Not trusted"), declined);
        assertTrue(session.trusted.isEmpty());

        String accepted = run(session, "y\n/exit\n");
        assertTrue(accepted.contains("Trusted " + dir), accepted);
        assertEquals(List.of(dir), session.trusted);
        String again = run(session, "/exit\n");
        assertFalse(again.contains("Trust it"), "asked once: a trusted folder is not asked again: " + again);
    }

    @Test
    void aWorkspaceWithNothingToTrustIsNeverQuestioned() {
        FakeSession session = new FakeSession(dir);
        String output = run(session, "/exit\n");
        assertFalse(output.contains("Trust it"), output);
    }

    @Test
    void aFirstPromptFromTheCommandLineRunsBeforeAnyLineIsRead() {
        FakeSession session = new FakeSession(dir);
        session.turns.add((s, listener) -> {
            listener.text("Fixed.");
            return "";
        });
        String output = run(session, "and now the docs\n/exit\n", Optional.of("fix the build"));
        assertEquals(List.of("fix the build", "and now the docs"), session.prompts);
        assertTrue(output.contains("> fix the build\n"), "shown as if typed: " + output);
        assertTrue(output.indexOf("Fixed.") < output.lastIndexOf("> "), output);
    }
}
