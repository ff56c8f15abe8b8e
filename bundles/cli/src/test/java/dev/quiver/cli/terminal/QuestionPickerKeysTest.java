package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.UserQuestion;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool's question in the terminal, driven with real keystrokes as {@link TerminalKeysTest} drives
 * approvals: arrows and numbers move, space ticks, enter chooses, typed text is an answer of its own,
 * esc dismisses without aborting the turn, and an approval that comes meanwhile waits its turn.
 */
class QuestionPickerKeysTest {

    private static final String ESC = "\033";
    private static final String DOWN = "\033[B";
    private static final String UP = "\033[A";

    @TempDir
    Path dir;

    private static final UserQuestion DB = new UserQuestion("Which database?", List.of(
            new UserQuestion.Option("Postgres", "what production runs"), new UserQuestion.Option("SQLite", ""),
            new UserQuestion.Option("H2", "in memory")), false);

    private TerminalHarness start(FakeSession session) throws Exception {
        TerminalHarness harness = new TerminalHarness(session, new FakeServices(List.of()), dir.resolve("state/history/ws"));
        harness.await(screen -> screen.contains("\n›"), "the prompt");
        return harness;
    }

    /** A turn that asks {@code question} and ends with the answer as its text. */
    private static FakeSession.Turn asking(UserQuestion question, CompletableFuture<Optional<List<String>>> answered) {
        return (session, listener) -> {
            Optional<List<String>> answer = listener.ask(question);
            answered.complete(answer);
            String text = "Got " + answer.map(Object::toString).orElse("nothing") + ".";
            listener.text(text + "\n");
            return text;
        };
    }

    @Test
    void arrowsMoveTheCursorAndEnterChoosesTheOptionUnderIt() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Optional<List<String>>> answered = new CompletableFuture<>();
        session.turns.add(asking(DB, answered));
        try (TerminalHarness t = start(session)) {
            t.type("set up storage\r");
            String screen = t.await("enter chooses");
            assertTrue(screen.contains("? Which database?"), screen);
            assertTrue(screen.contains("› 1. Postgres (recommended)  what production runs"), screen);
            assertTrue(screen.contains("  2. SQLite"), screen);
            t.type(DOWN + DOWN + UP);
            t.await("› 2. SQLite");
            t.type("\r");
            assertEquals(Optional.of(List.of("SQLite")), answered.get(10, TimeUnit.SECONDS));
            screen = t.await("Got [SQLite].");
            assertTrue(screen.contains("  → SQLite"), screen);
        }
    }

    @Test
    void withSeveralAllowedNumbersAndSpaceTickAndTypedTextIsAnAnswerOfItsOwn() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Optional<List<String>>> ticked = new CompletableFuture<>();
        CompletableFuture<Optional<List<String>>> typed = new CompletableFuture<>();
        session.turns.add(asking(new UserQuestion("Which checks?", DB.options(), true), ticked));
        session.turns.add(asking(DB, typed));
        try (TerminalHarness t = start(session)) {
            t.type("check\r");
            t.await("space ticks");
            t.type("3");
            t.await("› 3. [x] H2");
            t.type(UP + UP + " ");
            t.await("› 1. [x] Postgres");
            t.type("\r");
            assertEquals(Optional.of(List.of("Postgres", "H2")), ticked.get(10, TimeUnit.SECONDS));
            t.await("Got [Postgres, H2].");
            t.type("again\r");
            t.await("enter chooses");
            t.type("files 2 go\r");
            assertEquals(Optional.of(List.of("files 2 go")), typed.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void escDismissesTheQuestionAndTheTurnGoesOn() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Optional<List<String>>> answered = new CompletableFuture<>();
        session.turns.add(asking(new UserQuestion("Name it?", List.of(), false), answered));
        try (TerminalHarness t = start(session)) {
            t.type("name\r");
            t.await("type your answer");
            t.type(ESC);
            assertEquals(Optional.empty(), answered.get(10, TimeUnit.SECONDS));
            String screen = t.await("Got nothing.");
            assertTrue(screen.contains("  → dismissed"), screen);
        }
    }

    @Test
    void anApprovalAskedWhileAQuestionWaitsComesAfterItsAnswer() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Optional<List<String>>> answered = new CompletableFuture<>();
        CompletableFuture<Approval> approved = new CompletableFuture<>();
        session.turns.add((s, listener) -> {
            Thread other = new Thread(() -> approved.complete(listener.approve(new ApprovalRequest("bash", "make",
                    new Verdict(Decision.ASK, "default", "bash asks"), Optional.empty()))));
            CompletableFuture<Optional<List<String>>> asked = CompletableFuture.supplyAsync(() -> listener.ask(DB));
            try {
                other.start();
                answered.complete(asked.get());
                other.join();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            listener.text("Both.\n");
            return "Both.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("go\r");
            String screen = t.await(s -> s.contains("enter chooses") || s.contains("y allow once"), "a question");
            if (screen.contains("enter chooses")) {
                t.type("1\r");
                t.await("y allow once | n deny");
                t.type("y\r");
            } else {
                t.type("y\r");
                t.await("enter chooses");
                t.type("1\r");
            }
            assertEquals(Optional.of(List.of("Postgres")), answered.get(10, TimeUnit.SECONDS));
            assertEquals(Approval.Choice.ONCE, approved.get(10, TimeUnit.SECONDS).choice());
            t.await("Both.");
        }
    }
}
