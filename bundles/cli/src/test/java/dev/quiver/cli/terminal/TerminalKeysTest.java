package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The terminal driven with real keystrokes: bytes into a JLine terminal on pipes, the screen read
 * back through a VT100 emulator. The session is scripted; the sleep test runs a real process.
 */
class TerminalKeysTest {

    private static final String ESC = "\033";
    private static final String CTRL_C = "\003";
    private static final Verdict ASK = new Verdict(Decision.ASK, "default", "bash is an execute tool; those ask by default.");

    @TempDir
    Path dir;

    private TerminalHarness start(FakeSession session) throws Exception {
        return start(session, new FakeServices(List.of()));
    }

    private TerminalHarness start(FakeSession session, FakeServices services) throws Exception {
        TerminalHarness harness = new TerminalHarness(session, services, dir.resolve("state/history/ws"));
        harness.await(screen -> screen.contains("\n›"), "the prompt");
        return harness;
    }

    /** A turn that asks about {@code git status --porcelain} and answers with what the user chose. */
    private static FakeSession.Turn asking(CompletableFuture<Approval> answered) {
        return (session, listener) -> {
            listener.callStarted("bash", "{\"command\":\"git status --porcelain\"}");
            Approval approval = listener.approve(new ApprovalRequest("bash", "git status --porcelain", ASK,
                    Optional.of("git status *")));
            answered.complete(approval);
            listener.callEnded(FakeSession.outcome("bash", approval.choice() == Approval.Choice.DENY
                    ? CallOutcome.Status.DENIED : CallOutcome.Status.OK, "Exit code 0."));
            listener.text("Answered.\n");
            return "Answered.";
        };
    }

    @Test
    void theHeaderSaysVersionModelWorkspaceToolSetsSandboxAndWarnings() throws Exception {
        try (TerminalHarness t = start(new FakeSession(dir))) {
            String screen = t.await("/help");
            assertTrue(screen.contains("quiver 9.9.9 · model openai/test · " + dir), screen);
            assertTrue(screen.contains("tools core, git · 8 offered"), screen);
            assertTrue(screen.contains("sandbox NOT sandboxed: bubblewrap (bwrap) is not installed"), screen);
            assertTrue(screen.contains("warning: Unknown tool sets in 'toolSets' of /w/.quiver/config.json: nope"), screen);
        }
    }

    @Test
    void whatABundleWritesToStderrWhileTheTerminalRunsIsPrintedAboveThePrompt() throws Exception {
        try (TerminalHarness t = start(new FakeSession(dir))) {
            t.await("/help");
            System.err.println("quiver: mcp server docs exited with code 1");
            String screen = t.await("· quiver: mcp server docs exited with code 1");
            assertTrue(t.inputLine().startsWith("›"), "the prompt is still the last line:\n" + screen);
        }
        assertFalse(System.err.getClass().getName().contains("LineOutput"), "stderr is restored");
    }

    @Test
    void anApprovalAnsweredYRunsTheCallOnce() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        session.turns.add(asking(answered));
        try (TerminalHarness t = start(session)) {
            t.type("check the status\r");
            String screen = t.await("y allow once | a always allow bash git status * | n deny");
            assertTrue(screen.contains("? bash wants to run\n    git status --porcelain\n"),
                    "what is asked about is on screen before the question:\n" + screen);
            assertFalse(screen.contains("ctrl-c stops it"), "no running call is shown while asking:\n" + screen);
            t.type("y\r");
            assertEquals(Approval.Choice.ONCE, answered.get(5, TimeUnit.SECONDS).choice());
            screen = t.await("Answered.");
            assertTrue(screen.contains("  → allowed once"), screen);
            assertTrue(screen.contains("✓ bash  git status --porcelain"), screen);
        }
    }

    @Test
    void aWriteCallsDiffIsShownBeforeTheQuestionFoldedAndDShowsTheRestBeforeY() throws Exception {
        StringBuilder diff = new StringBuilder("--- a/a.txt\n+++ b/a.txt\n@@ -1,50 +1,50 @@\n");
        for (int i = 1; i <= 50; i++) {
            diff.append(i % 2 == 0 ? "-old line " : "+new line ").append(i).append(i == 3 ? "\033[2J" : "").append('\n');
        }
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        session.turns.add((s, listener) -> {
            Approval approval = listener.approve(new ApprovalRequest("edit_file", "a.txt",
                    new Verdict(Decision.ASK, "default", "edit_file is a write tool; those ask by default."),
                    Optional.of("a.txt"), Optional.of(diff.toString())));
            answered.complete(approval);
            return "Done.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("edit it\r");
            String screen = t.await("y allow once | a always allow edit_file a.txt | n deny");
            assertTrue(screen.contains("? edit_file wants to run\n    a.txt\n    --- a/a.txt\n    +++ b/a.txt\n"), screen);
            assertTrue(screen.contains("+new line 3^[[2J"), "an escape in the diff reached the terminal:\n" + screen);
            assertTrue(screen.contains("+new line 37\n"), screen);
            assertFalse(screen.contains("old line 38"), "past the fold before d:\n" + screen);
            assertTrue(screen.contains("... 13 more lines of the diff: answer d to show them"), screen);
            t.type("d\r");
            screen = t.await("-old line 50");
            assertFalse(answered.isDone(), "d answered the question");
            t.type("y\r");
            assertEquals(Approval.Choice.ONCE, answered.get(5, TimeUnit.SECONDS).choice());
        }
    }

    @Test
    void aYTypedBeforeTheQuestionAppearsIsNeitherQueuedNorSentToTheModel() throws Exception {
        FakeSession session = new FakeSession(dir);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        session.turns.add((s, listener) -> {
            listener.text("Looking first.\n");
            await(release);
            return asking(answered).apply(s, listener);
        });
        try (TerminalHarness t = start(session)) {
            t.type("check the status\r");
            t.await("Looking first.");
            t.type("y\r");
            String screen = t.await("no question is waiting; \"y\" was not sent");
            assertFalse(screen.contains("queued ›"), screen);
            release.countDown();
            t.await("y allow once | a always allow bash git status * | n deny");
            assertFalse(answered.isDone(), "the early y answered the question");
            t.type("n\r");
            t.await("What should it do instead?");
            t.type("\r");
            assertEquals(Approval.Choice.DENY, answered.get(5, TimeUnit.SECONDS).choice());
            t.await("Answered.");
            Thread.sleep(200);
            assertEquals(List.of("check the status"), session.prompts, "the early y reached the model");
        }
    }

    @Test
    void atPathAttachesTheFilesReadFileReadsAndSaysWhatItCouldNot() throws Exception {
        Files.writeString(dir.resolve("notes.md"), "first line\nsecond line\n");
        FakeSession session = new FakeSession(dir);
        session.turns.add((s, listener) -> {
            listener.text("Read them.\n");
            return "Read them.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("summarise @notes.md, ask @alice and see @.env.\r");
            String screen = t.await("Read them.");
            assertTrue(screen.contains("attached @notes.md"), screen);
            assertTrue(screen.contains("@.env not attached: Refused (secret): .env holds secrets."), screen);
            assertFalse(screen.contains("@alice not attached"), "a mention that names no file is not an error:\n" + screen);
            String prompt = session.prompts.get(0);
            assertTrue(prompt.startsWith("summarise @notes.md, ask @alice and see @.env.\n\nThe user attached these "
                    + "files (read_file's output):\n\n--- @notes.md (read_file) ---\n1\tfirst line\n2\tsecond line\n"),
                    prompt);
            assertFalse(prompt.contains("@.env (read_file)"), prompt);
            assertEquals(3, session.calls.size(), session.calls.toString());
        }
    }

    @Test
    void initSendsAPromptToInspectTheRepositoryAndWriteAgentsMdThroughWriteFileWithTheUsersFocus() throws Exception {
        FakeSession session = new FakeSession(dir);
        session.turns.add((s, listener) -> {
            listener.text("Wrote AGENTS.md.\n");
            return "Wrote AGENTS.md.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("/help\r");
            t.await("/init [FOCUS]");
            t.type("/init mention @src and the release steps\r");
            String screen = t.await("Wrote AGENTS.md.");
            assertFalse(screen.contains("unknown command"), screen);
            assertEquals(1, session.prompts.size(), "one turn: " + session.prompts);
            String prompt = session.prompts.get(0);
            assertTrue(prompt.startsWith("Write a first AGENTS.md at the workspace root"), prompt);
            assertTrue(prompt.contains("look through the repository with your read tools"), prompt);
            assertTrue(prompt.contains("If AGENTS.md already exists, read it and improve it with edit_file"), prompt);
            assertTrue(prompt.contains("Write the file with write_file"), prompt);
            // the focus is passed as typed: /init's @ attaches nothing
            assertTrue(prompt.endsWith("\n\nThe user adds: mention @src and the release steps"), prompt);
            assertFalse(screen.contains("attached @src"), screen);
        }
    }

    @Test
    void outputListsTheFinishedCallsAndShowsOnesWholeOutputAgain() throws Exception {
        FakeSession session = new FakeSession(dir);
        session.turns.add((s, listener) -> {
            listener.callStarted("bash", "{\"command\":\"make test\"}");
            listener.callEnded(FakeSession.outcome("bash", CallOutcome.Status.OK, "line one\nline two\nExit code 0."));
            listener.text("Ran it.\n");
            return "Ran it.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("/output\r");
            t.await("no call has finished yet");
            t.type("run the tests\r");
            t.await("Ran it.");
            t.type("/output\r");
            String screen = t.await("/output N shows the Nth call's whole output");
            assertTrue(screen.contains("1  bash  make test  (3 lines, ok)"), screen);
            t.type("/output 1\r");
            screen = t.await("  Exit code 0.");
            assertTrue(screen.contains("  line one\n  line two\n  Exit code 0."), screen);
            t.type("/output 2\r");
            t.await("no call 2: 1 finished call is kept");
        }
    }

    @Test
    void undoShowsTheFilesAsksAndUndoesOnlyOnYes() throws Exception {
        FakeSession session = new FakeSession(dir);
        session.undoReport = new UndoReport(List.of(), List.of(new UndoReport.Change("src/Main.java",
                UndoReport.Kind.DELETED, Optional.empty())), List.of(), false, 1);
        try (TerminalHarness t = start(session)) {
            t.type("/undo\r");
            String screen = t.await("y yes | n no");
            assertTrue(screen.contains("  deleted → recreated  src/Main.java\n"), screen);
            assertTrue(screen.contains("? Undo the last turn?"), screen);
            t.type("n\r");
            t.await("· nothing was undone");
            assertEquals(List.of(), session.undone);
            t.type("/undo\r");
            t.await("y yes | n no");
            t.type("yes\r");
            t.await("Rewound the conversation by 1 turn.");
            assertEquals(List.of(1), session.undone);
        }
    }

    @Test
    void anApprovalAnsweredAAllowsThePatternShown() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        session.turns.add(asking(answered));
        try (TerminalHarness t = start(session)) {
            t.type("half typed");
            t.type("\033\r"); // alt-enter: a new line, not a send
            t.type("check\r");
            t.await("y allow once | a always allow bash git status * | n deny");
            t.type("a\r");
            assertEquals(Approval.Choice.ALWAYS, answered.get(5, TimeUnit.SECONDS).choice());
            String screen = t.await("→ allowed bash git status * for this session");
            assertEquals(List.of("half typed\ncheck"), session.prompts, screen);
        }
    }

    @Test
    void anApprovalAnsweredNAsksWhatToDoInstead() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        session.turns.add(asking(answered));
        try (TerminalHarness t = start(session)) {
            t.type("check\r");
            t.await("| n deny");
            t.type("maybe\r");
            t.await("answer y, a or n");
            assertFalse(answered.isDone());
            t.type("n\r");
            t.await("What should it do instead? (enter to skip)");
            t.type("use git diff instead\r");
            Approval approval = answered.get(5, TimeUnit.SECONDS);
            assertEquals(Approval.Choice.DENY, approval.choice());
            assertEquals("use git diff instead", approval.instead());
            t.await("→ denied: use git diff instead");
            String screen = t.await("⊘ bash  git status --porcelain · denied");
            assertFalse(screen.contains("answer y, a or n"), "the hint goes with the question:\n" + screen);
        }
    }

    @Test
    void whatWasTypedBeforeAnApprovalComesBackAfterIt() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Approval> answered = new CompletableFuture<>();
        CountDownLatch go = new CountDownLatch(1);
        session.turns.add((s, listener) -> {
            await(go);
            return asking(answered).apply(s, listener);
        });
        try (TerminalHarness t = start(session)) {
            t.type("first\r");
            t.await("working");
            t.type("next pro");
            t.await("› next pro");
            go.countDown();
            t.await("| n deny");
            t.type("y\r");
            t.await("Answered.");
            t.type("mpt\r");
            t.await(screen -> session.prompts.size() == 2, "the second prompt");
            assertEquals(List.of("first", "next prompt"), session.prompts);
        }
    }

    @Test
    void ctrlCKillsTheRunningSleepAndTheTurnGoesOn() throws Exception {
        FakeSession session = new FakeSession(dir);
        CompletableFuture<Long> ranFor = new CompletableFuture<>();
        session.turns.add((s, listener) -> {
            long started = System.nanoTime();
            Process sleep;
            try {
                sleep = new ProcessBuilder("sleep", "30").start();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            s.onInterrupt = () -> sleep.destroyForcibly();
            listener.callStarted("bash", "{\"command\":\"sleep 30\"}");
            listener.callOutput("bash", "sleeping now\n");
            try {
                sleep.waitFor(40, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ranFor.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            listener.callEnded(FakeSession.outcome("bash", CallOutcome.Status.ERROR,
                    "The command was interrupted and killed with every process it started."));
            listener.text("The turn went on.\n");
            return "The turn went on.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("sleep a while\r");
            String screen = t.await("ctrl-c stops it");
            assertTrue(screen.contains("bash  sleep 30 · "), screen);
            t.await("  ▏ sleeping now");
            t.type(CTRL_C);
            long millis = ranFor.get(10, TimeUnit.SECONDS);
            assertTrue(millis < 10_000, "sleep 30 was killed early, after " + millis + " ms");
            screen = t.await("The turn went on.");
            assertTrue(screen.contains("✗ bash  sleep 30 · The command was interrupted"), screen);
            assertEquals(1, session.interrupts.get());
            assertFalse(t.exit.isDone(), "ctrl-c on a command does not quit");
        }
    }

    @Test
    void ctrlCWithOnlyABackgroundCommandStopsTheNewestOneThenQuits() throws Exception {
        FakeSession session = new FakeSession(dir);
        FakeServices services = new FakeServices(List.of());
        services.jobs.add(FakeServices.job("bg1", "npm run dev", Shell.Job.State.RUNNING));
        services.jobs.add(FakeServices.job("bg2", "python -m http.server", Shell.Job.State.RUNNING));
        services.jobs.add(FakeServices.job("bg3", "make", Shell.Job.State.EXITED));
        try (TerminalHarness t = start(session, services)) {
            t.type("some text" + CTRL_C);
            t.await(screen -> t.inputLine().equals("›"), "the input line to be cleared");
            t.type(CTRL_C);
            t.await("stopped bg2 (python -m http.server)");
            assertEquals(List.of("bg2"), services.stopped);
            t.type("/bash\r");
            String screen = t.await("bg2   stopped");
            assertTrue(screen.contains("bg1   running"), screen);
            t.type("/bash stop all\r");
            t.await("stopped bg1 (npm run dev)");
            t.type(CTRL_C);
            assertEquals(0, t.awaitExit());
        }
    }

    @Test
    void escAbortsTheTurnAndDropsTheQueuedPrompts() throws Exception {
        FakeSession session = new FakeSession(dir);
        session.turns.add((s, listener) -> {
            listener.text("Thinking about it");
            return s.awaitCancel();
        });
        try (TerminalHarness t = start(session)) {
            t.type("first\r");
            t.await("Thinking about it");
            t.type("second\r");
            t.await("queued › second");
            t.type(ESC);
            String screen = t.await("turn aborted");
            assertTrue(screen.contains("aborting the turn; dropped 1 queued prompt"), screen);
            assertEquals(1, session.cancels.get());
            Thread.sleep(300);
            assertEquals(List.of("first"), session.prompts, "the queued prompt never ran");
            assertFalse(t.screen().contains("queued ›"), t.screen());
            t.type("third\r");
            t.await(screen2 -> session.prompts.size() == 2, "the next prompt");
        }
    }

    @Test
    void promptsTypedDuringATurnQueueAndRunInOrderASlashCommandAsIfTypedThen() throws Exception {
        FakeSession session = new FakeSession(dir);
        CountDownLatch release = new CountDownLatch(1);
        session.turns.add((s, listener) -> {
            listener.text("Working on the first.\n");
            await(release);
            listener.text("First done.\n");
            return "First done.";
        });
        session.turns.add((s, listener) -> {
            listener.text("Second done.\n");
            return "Second done.";
        });
        try (TerminalHarness t = start(session)) {
            t.type("first\r");
            t.await("Working on the first.");
            t.type("second\r");
            t.type("/model openai/other\r");
            String screen = t.await("queued › /model openai/other");
            assertTrue(screen.contains("queued › second"), screen);
            assertTrue(screen.contains("2 queued"), screen);
            assertEquals("openai/test", session.model, "a queued command waits too");
            release.countDown();
            screen = t.await("model openai/other from the next turn on");
            assertEquals(List.of("first", "second"), session.prompts);
            assertTrue(screen.indexOf("First done.") < screen.indexOf("› second"), screen);
            assertTrue(screen.indexOf("Second done.") < screen.indexOf("› /model openai/other"), screen);
        }
    }

    @Test
    void atCompletesWorkspacePathsPrefixMatchesFirst() throws Exception {
        FakeSession session = new FakeSession(dir);
        FakeServices services = new FakeServices(List.of("README.md", "docs/src-notes.md", "src/main/App.java",
                "src/main/Util.java", "vendor/src/main/X.java"));
        try (TerminalHarness t = start(session, services)) {
            t.type("read @src/m\t");
            t.await("› read @src/main/");
            t.type("A\t");
            t.await("› read @src/main/App.java");
            t.type("and mail user@src\t\r");
            t.await(screen -> session.prompts.size() == 1, "the prompt");
            assertEquals("read @src/main/App.java and mail user@src", session.prompts.get(0));
        }
    }

    @Test
    void slashToolsAfterAToolBundleWasStopped() throws Exception {
        FakeSession session = new FakeSession(dir);
        try (TerminalHarness t = start(session)) {
            t.type("/tools\r");
            // the listing's last line: the screen holds the whole listing once it is there
            String screen = t.await("web_fetch   net  (withheld)");
            assertTrue(screen.contains("8 offered this turn of 9 registered"), screen);
            assertTrue(screen.contains("git_diff"), screen);
            assertTrue(screen.contains("remember    from org.example.memory"), screen);
            assertTrue(screen.contains("web_fetch   net  (withheld)"), screen);
            session.stopBundle("dev.quiver.tools.git");
            t.await("tools changed: −git_diff (7 offered)");
            t.type("/tools\r");
            screen = t.await("7 offered this turn of 8 registered");
            assertEquals(1, screen.split("git_diff", -1).length - 2, "git_diff only in the first listing and the change:\n"
                    + screen);
        }
    }

    @Test
    void theModelsTextStreamsAsMarkdownAndCallsLeaveOneLine() throws Exception {
        FakeSession session = new FakeSession(dir);
        CountDownLatch more = new CountDownLatch(1);
        session.turns.add((s, listener) -> {
            for (String piece : List.of("# Pl", "an\n\nFirst **bo", "ld** and `co", "de`.\n- one\n", "```java\nint x", " = 1;\n")) {
                listener.text(piece);
            }
            listener.text("still stre");
            await(more);
            listener.text("aming\n```\n");
            listener.callStarted("read_file", "{\"path\":\"src/A.java\"}");
            listener.callEnded(FakeSession.outcome("read_file", CallOutcome.Status.OK, "1: x"));
            return "";
        });
        try (TerminalHarness t = start(session)) {
            t.type("plan\r");
            String screen = t.await("still stre");
            assertTrue(screen.contains("Plan\n\nFirst bold and code.\n• one\n╭╴java\n▏ int x = 1;\n"), screen);
            more.countDown();
            screen = t.await("✓ read_file  src/A.java");
            assertTrue(screen.contains("▏ still streaming\n╰╴\n✓ read_file  src/A.java"), screen);
            assertTrue(t.raw().contains("\033[1m"), "styles in a terminal");
        }
    }

    @Test
    void historyIsKeptPerWorkspaceAndRecalledWithUp() throws Exception {
        FakeSession session = new FakeSession(dir);
        try (TerminalHarness t = start(session)) {
            t.type("/model\r");
            t.await("model openai/test (/model PROVIDER/NAME switches it)");
        }
        Path file = dir.resolve("state/history/ws");
        assertTrue(Files.readString(file).contains("/model"), Files.readString(file));
        try (TerminalHarness t = start(new FakeSession(dir))) {
            t.type("\033OA");
            t.await("› /model");
            t.type("\033[B");
            t.await(screen -> t.inputLine().equals("›"), "the empty line below the history");
            t.type("\033[A");
            t.await("› /model");
        }
    }

    @Test
    void aTrailingBackslashContinuesTheLine() throws Exception {
        FakeSession session = new FakeSession(dir);
        try (TerminalHarness t = start(session)) {
            t.type("one\\\rtwo\r");
            t.await(screen -> session.prompts.size() == 1, "the prompt");
            assertEquals("one\ntwo", session.prompts.get(0));
            t.await("› one\n  two");
        }
    }

    @Test
    void ctrlCWithNothingRunningQuits() throws Exception {
        try (TerminalHarness t = start(new FakeSession(dir))) {
            t.type(CTRL_C);
            assertEquals(0, t.awaitExit());
        }
    }

    @Test
    void aQueuedExitQuitsWhenItsTurnComes() throws Exception {
        FakeSession session = new FakeSession(dir);
        CountDownLatch release = new CountDownLatch(1);
        session.turns.add((s, listener) -> {
            await(release);
            return "";
        });
        try (TerminalHarness t = start(session)) {
            t.type("first\r/exit\r");
            t.await("queued › /exit");
            release.countDown();
            assertEquals(0, t.awaitExit());
        }
    }

    @Test
    void platformCommandsSayThePlatformBundleIsNotInstalled() throws Exception {
        try (TerminalHarness t = start(new FakeSession(dir))) {
            t.type("/bundles\r");
            t.await("error: the platform bundle is not installed: /bundles needs its service");
            t.type("/help\r");
            t.await("/install NAME");
        }
    }

    @Test
    void bundlesInstallAndRemoveGoThroughThePlatformService() throws Exception {
        FakeServices services = new FakeServices(List.of());
        List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        services.platform = new Platform() {
            @Override
            public List<BundleInfo> bundles() {
                return List.of(new BundleInfo(4, "dev.quiver.tools.core", "0.1.0", "active", ORIGIN_DISTRIBUTION,
                        Optional.empty(), false, List.of("bash"), Optional.empty()));
            }

            @Override
            public List<CatalogInfo> catalogs() {
                return List.of();
            }

            @Override
            public List<EntryInfo> entries() {
                return List.of();
            }

            @Override
            public boolean enforcing() {
                return false;
            }

            @Override
            public BundleInfo install(String name) {
                calls.add("install " + name);
                return new BundleInfo(40, "dev.quiver.example.hello", "1.0.0", "active", ORIGIN_CATALOG,
                        Optional.of("examples"), true, List.of("hello"), Optional.empty());
            }

            @Override
            public BundleInfo update(String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void remove(String name) {
                calls.add("remove " + name);
                throw new dev.quiver.api.host.HostException("dev.quiver.tools.core came with the distribution and "
                        + "cannot be removed.");
            }

            @Override
            public List<Finding> verify() {
                return List.of();
            }
        };
        try (TerminalHarness t = start(new FakeSession(dir), services)) {
            t.type("/bundles\r");
            t.await("4  dev.quiver.tools.core 0.1.0  active   distribution  tools: bash");
            t.type("/install hello\r");
            t.await("installed dev.quiver.example.hello 1.0.0; tools hello from the next step");
            t.type("/remove dev.quiver.tools.core\r");
            t.await("error: dev.quiver.tools.core came with the distribution and cannot be removed.");
            assertEquals(List.of("install hello", "remove dev.quiver.tools.core"), calls);
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static TurnListener none() {
        return new TurnListener() { };
    }
}
