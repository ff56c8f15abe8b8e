package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.agent.SpawnSubagentTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spawn_subagent} in real sessions over real git repositories, against the scripted OpenAI
 * server: the worker works in a checkout of its own under the state folder, its change lands on its own
 * branch, and the user's working tree, index and HEAD stay byte for byte as they were.
 */
class SpawnSubagentTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;
    /** What each {@code put} found in the file before it wrote. */
    private final List<String> found = new CopyOnWriteArrayList<>();

    /** A write tool: puts {@code content} into {@code path} of its call's workspace. */
    private final class Put implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("put", "Write a file.", "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
                    + "\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.path(arguments.string("path")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            try {
                Path file = context.workspace().resolve(arguments.string("path"));
                found.add(Files.exists(file) ? Files.readString(file) : "(none)");
                context.workspace().write(file, arguments.string("content").getBytes(StandardCharsets.UTF_8));
                return ToolResult.of("written in " + context.workspace().root());
            } catch (IOException e) {
                throw new ToolException(e.getMessage());
            }
        }
    }

    /** What a worker's command does in its checkout (or elsewhere): {@code what} of {@code checkout}. */
    private interface Action {
        String run(Path checkout) throws Exception;
    }

    /** A command tool of no subjects whose call does {@code action} in its call's workspace. */
    private static final class Command implements Tool {
        private final String name;
        private final Action action;

        Command(String name, Action action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Run a command.", "{\"type\":\"object\",\"properties\":{}}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) {
            return List.of();
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            try {
                return ToolResult.of(action.run(context.workspace().root()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolException("interrupted");
            } catch (Exception e) {
                throw new ToolException(e.toString());
            }
        }
    }

    /** Bytes of the file bigger than JGit keeps in memory. */
    private static final int BIG = 51 << 20;

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new SpawnSubagentTool(), "spawn_subagent", "state");
        framework.register(new Put(), "put", "write");
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    /** A repository with one commit of a.txt, then the user's own uncommitted edit and an untracked file. */
    private void repository() throws Exception {
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch("main").call()) {
            Files.writeString(root.resolve("a.txt"), "one\n");
            git.add().addFilepattern(".").call();
            PersonIdent me = new PersonIdent("Test", "test@example.com");
            git.commit().setMessage("first").setAuthor(me).setCommitter(me).setSign(false).call();
        }
        Files.writeString(root.resolve("a.txt"), "one\nthe user's edit\n");
        Files.writeString(root.resolve("mine.txt"), "untracked\n");
    }

    /** The user's working tree, index, HEAD and main branch, byte for byte. */
    private Map<String, String> userState() throws IOException {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String name = root.relativize(file).toString();
                if (!name.startsWith(".git/") || name.equals(".git/index") || name.equals(".git/HEAD")
                        || name.equals(".git/refs/heads/main")) {
                    state.put(name, java.util.HexFormat.of().formatHex(Files.readAllBytes(file)));
                }
            }
        }
        return state;
    }

    private Path worktrees() {
        return SessionStore.fromEnvironment(environment).stateFolder(root).resolve("worktrees");
    }

    private static String spawn(String description, String prompt, boolean keep) {
        return "{\"description\":\"" + description + "\",\"prompt\":\"" + prompt + "\",\"keep\":" + keep + "}";
    }

    private OpenAiStub workerThatWrites() throws IOException {
        return OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("Fix ../../etc; rm -rf $HOME `id`",
                        "Add a line two to a.txt.", false))),
                OpenAiStub.calls(OpenAiStub.call("put", "{\"path\":\"a.txt\",\"content\":\"one\\ntwo\\n\"}")),
                OpenAiStub.text("Added line two to a.txt."),
                OpenAiStub.text("done"));
    }

    @Test
    void theWorkersChangeLandsOnItsOwnBranchWhileTheUsersTreeIndexAndHeadStayByteForByte() throws Exception {
        repository();
        Map<String, String> before = userState();
        try (OpenAiStub stub = workerThatWrites()) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.OK, spawned.status(), spawned.output());
            String branch = "quiver/fix-etc-rm-rf-home-id-1";
            Path checkout = worktrees().resolve("fix-etc-rm-rf-home-id-1");
            assertTrue(spawned.output().startsWith("Worker 'Fix ../../etc; rm -rf $HOME `id`' finished in 2 steps with "
                    + "1 call.\nBranch: " + branch + " (started from HEAD "), spawned.output());
            assertTrue(spawned.output().contains("\nChanged: 1 file changed, +1 -0\n  modify a.txt +1 -0\nCheckout: "
                    + checkout + " (removed when the session ends; the branch stays)\n\nIts report:\n\nAdded line two "
                    + "to a.txt."), spawned.output());
            assertEquals(List.of("one\n"), found, "the worker starts from HEAD, without the user's uncommitted edit");
            assertEquals(before, userState(), "the user's working tree, index, HEAD or main branch changed");
            try (Stream<Path> listed = Files.list(worktrees())) {
                assertEquals(List.of(checkout), listed.toList(), "the hostile label's checkout left the worktrees folder");
            }
            assertEquals("one\ntwo\n", Files.readString(checkout.resolve("a.txt")));
            try (Repository user = Git.open(root.toFile()).getRepository(); RevWalk walk = new RevWalk(user)) {
                ObjectId tip = user.resolve("refs/heads/" + branch);
                assertNotNull(tip, "no branch " + branch);
                RevCommit commit = walk.parseCommit(tip);
                assertEquals(user.resolve("refs/heads/main"), commit.getParent(0).getId());
                ObjectId blob = user.resolve(tip.name() + ":a.txt");
                assertEquals("one\ntwo\n", new String(user.open(blob).getBytes(), StandardCharsets.UTF_8),
                        "the branch's objects are in the user's repository");
                assertEquals("main", user.getBranch());
            }
            session.close();
            assertFalse(Files.exists(checkout), "the checkout outlived the session");
            try (Repository user = Git.open(root.toFile()).getRepository()) {
                assertNotNull(user.resolve("refs/heads/" + branch), "the branch went with the checkout");
            }
        }
    }

    @Test
    void aCheckoutAskedToBeKeptOutlivesTheSession() throws Exception {
        repository();
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("keep me", "Look.", true))),
                OpenAiStub.text("Nothing to change."),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            String report = session.send("go", new TurnListener() { }).calls().get(0).output();
            assertTrue(report.contains("Branch: quiver/keep-me-1 ") && report.contains("Changed: 0 files changed, +0 -0")
                    && report.contains("(kept)"), report);
            session.close();
            assertTrue(Files.isRegularFile(worktrees().resolve("keep-me-1/a.txt")));
        }
    }

    @Test
    void outsideARepositoryOrInAReadOnlySessionNoWorkerStarts() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("w", "Do it.", false))),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome refused = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, refused.status());
            assertTrue(refused.output().contains("was not a git repository (nor inside one) when this session started, "
                    + "so spawn_subagent cannot give a worker a branch of its own"), refused.output());
            assertEquals(2, stub.requests().size(), "a worker's model was asked");
        }
        repository();
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("w", "Do it.", false))),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, StubSessions.provider(stub),
                    new SessionOptions(root, Optional.empty(), false, false, true, Optional.of("openai/test"),
                            Optional.empty(), Optional.empty()));
            CallOutcome refused = session.send("go", new TurnListener() { }).calls().get(0);
            // read-only: not offered at all, so a call is refused before anything is made
            assertFalse(stub.requests().get(0).path("tools").toString().contains("spawn_subagent"),
                    stub.requests().get(0).path("tools").toString());
            assertTrue(refused.output().contains("No tool named 'spawn_subagent' is offered"), refused.output());
            assertFalse(Files.exists(worktrees()));
        }
    }

    @Test
    void aWorkerThatPointsItsCheckoutsGitAtTheUsersRepositoryChangesNothingOfTheUsers() throws Exception {
        repository();
        framework.register(new Command("relink", checkout -> {
            // what a worker's command could do in its checkout: put a link to the user's .git in place of its own
            Path own = checkout.resolve(".git");
            Files.move(own, own.resolveSibling("old-git"));
            Files.createSymbolicLink(own, root.resolve(".git"));
            Files.writeString(checkout.resolve("a.txt"), "sabotage\n");
            return "relinked";
        }), "relink", "execute");
        Map<String, String> before = userState();
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("evil", "Do it.", false))),
                OpenAiStub.calls(OpenAiStub.call("relink", "{}")),
                OpenAiStub.text("done it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, spawned.status(), spawned.output());
            assertTrue(spawned.output().contains("the checkout's .git was replaced"), spawned.output());
            assertEquals(before, userState(), "the user's working tree, index, HEAD or main branch changed");
            try (Repository user = Git.open(root.toFile()).getRepository()) {
                assertEquals(user.resolve("refs/heads/main"), user.resolve("refs/heads/quiver/evil-1"),
                        "the branch stays where the worker started");
            }
            session.close();
            assertEquals(before, userState(), "removing the checkout followed its link into the user's .git");
            assertTrue(Files.isDirectory(root.resolve(".git/objects")));
        }
    }

    @Test
    void aFileBiggerThanJGitKeepsInMemoryStillLandsOnTheWorkersBranch() throws Exception {
        repository();
        framework.register(new Command("big", checkout -> {
            // a file bigger than JGit keeps in memory (50 MiB)
            Files.write(checkout.resolve("big.bin"), new byte[BIG]);
            return "written";
        }), "big", "execute");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("big", "Make a big file.", false))),
                OpenAiStub.calls(OpenAiStub.call("big", "{}")),
                OpenAiStub.text("made it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.OK, spawned.status(), spawned.output());
            try (Repository user = Git.open(root.toFile()).getRepository()) {
                ObjectId blob = user.resolve("refs/heads/quiver/big-1:big.bin");
                assertNotNull(blob, "the big file is not on the worker's branch");
                assertEquals(BIG, user.open(blob).getSize());
            }
            session.close();
        }
    }

    @Test
    void aUserBranchNamedQuiverStopsAWorkerWithAMessageSayingSo() throws Exception {
        repository();
        try (Git git = Git.open(root.toFile())) {
            git.branchCreate().setName("quiver").call();
        }
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("w", "Do it.", false))),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome refused = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, refused.status());
            assertTrue(refused.output().contains("The repository has a branch named quiver, so git cannot hold the "
                    + "branches quiver/... that workers get beside it. Rename it (git branch -m quiver NEW-NAME)"),
                    refused.output());
            assertFalse(Files.exists(worktrees().resolve("w-1")));
            session.close();
        }
    }

    @Test
    void aUserBranchUnderAWorkersBranchNameMakesTheWorkerTakeTheNextNumber() throws Exception {
        repository();
        try (Git git = Git.open(root.toFile())) {
            git.branchCreate().setName("quiver/w-1/mine").call();
        }
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("w", "Look.", false))),
                OpenAiStub.text("Nothing to change."),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.OK, spawned.status(), spawned.output());
            assertTrue(spawned.output().contains("\nBranch: quiver/w-2 "), spawned.output());
            session.close();
        }
    }

    @Test
    void aWorkspaceFolderThatIsALinkInHeadGivesNoWorkerACheckoutOutsideItsOwn() throws Exception {
        // HEAD has sub as a link to a folder outside; the user's tree has a folder there, where the session runs
        Path repo = Files.createDirectories(temp.resolve("repo")).toRealPath();
        Path outside = Files.createDirectories(temp.resolve("outside")).toRealPath();
        try (Git git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
            Files.createSymbolicLink(repo.resolve("sub"), outside);
            git.add().addFilepattern(".").call();
            PersonIdent me = new PersonIdent("Test", "test@example.com");
            git.commit().setMessage("link").setAuthor(me).setCommitter(me).setSign(false).call();
        }
        Files.delete(repo.resolve("sub"));
        Path sub = Files.createDirectories(repo.resolve("sub"));
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("w", "Write x.txt.", false))),
                OpenAiStub.calls(OpenAiStub.call("put", "{\"path\":\"x.txt\",\"content\":\"escaped\"}")),
                OpenAiStub.text("wrote it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(sub, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertFalse(Files.exists(outside.resolve("x.txt")), "the worker wrote outside its checkout");
            assertEquals(CallOutcome.Status.ERROR, spawned.status(), spawned.output());
            assertTrue(spawned.output().contains("sub is a link in HEAD"), spawned.output());
            try (Repository user = Git.open(repo.toFile()).getRepository()) {
                assertEquals(null, user.resolve("refs/heads/quiver/w-1"), "a branch of a worker that never started");
            }
            session.close();
        }
    }

    @Test
    void aNamedPipeTheWorkerLeftIsNotReadSoItsWorkIsCommitted() throws Exception {
        repository();
        framework.register(new Command("pipe", checkout -> {
            // a named pipe, which no one writes
            return "mkfifo: " + new ProcessBuilder("mkfifo", checkout.resolve("pipe").toString()).inheritIO().start()
                    .waitFor();
        }), "pipe", "execute");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("p", "Do it.", false))),
                OpenAiStub.calls(OpenAiStub.call("pipe", "{}"),
                        OpenAiStub.call("put", "{\"path\":\"a.txt\",\"content\":\"one\\ntwo\\n\"}")),
                OpenAiStub.text("done it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            java.util.concurrent.ExecutorService runner = java.util.concurrent.Executors.newSingleThreadExecutor();
            java.util.concurrent.Future<CallOutcome> turn = runner.submit(
                    () -> session.send("go", new TurnListener() { }).calls().get(0));
            CallOutcome spawned;
            try {
                // only a build that reads the pipe waits this long: git holds no pipe, so it is never read
                spawned = turn.get(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // a writer lets the read that hangs go on, so the test can end
                Files.newOutputStream(worktrees().resolve("p-1/pipe")).close();
                throw new AssertionError("committing the worker's checkout hung reading its named pipe");
            } finally {
                runner.shutdown();
            }
            assertEquals(CallOutcome.Status.OK, spawned.status(), spawned.output());
            assertTrue(spawned.output().contains("\nChanged: 1 file changed, +1 -0\n  modify a.txt +1 -0\n"),
                    spawned.output());
            session.close();
        }
    }

    @Test
    void aCheckoutWhoseCommitFailsOutlivesTheSessionSoItsWorkIsNotLost() throws Exception {
        repository();
        framework.register(new Command("filter", checkout -> {
            // what a command outside the sandbox, and a user's global git-lfs set-up with a worker's
            // .gitattributes alike, do: make a file go through a filter program, which JGit is not let run
            Files.writeString(checkout.resolve(".git/config"), "[filter \"x\"]\n\tclean = cat\n",
                    java.nio.file.StandardOpenOption.APPEND);
            Files.writeString(checkout.resolve(".gitattributes"), "* filter=x\n");
            Files.writeString(checkout.resolve("a.txt"), "the worker's work\n");
            return "filtered";
        }), "filter", "execute");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("f", "Do it.", false))),
                OpenAiStub.calls(OpenAiStub.call("filter", "{}")),
                OpenAiStub.text("done it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, spawned.status(), spawned.output());
            Path checkout = worktrees().resolve("f-1");
            assertTrue(spawned.output().startsWith("Could not keep the worker's changes on quiver/f-1: ")
                    && spawned.output().contains(". Its files are in " + checkout + ", kept after the session ends."),
                    spawned.output());
            session.close();
            assertEquals("the worker's work\n", Files.readString(checkout.resolve("a.txt")),
                    "the only copy of the worker's work went with the session");
        }
    }

    @Test
    void aCheckoutWhoseBranchWasDeletedMeanwhileOutlivesTheSession() throws Exception {
        repository();
        framework.register(new Command("unbranch", checkout -> {
            // the user, or another program, deleting the worker's branch while it works
            try (Git git = Git.open(root.toFile())) {
                git.branchDelete().setBranchNames("quiver/d-1").setForce(true).call();
            }
            Files.writeString(checkout.resolve("a.txt"), "the worker's work\n");
            return "deleted";
        }), "unbranch", "execute");
        try (OpenAiStub stub = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("spawn_subagent", spawn("d", "Do it.", false))),
                OpenAiStub.calls(OpenAiStub.call("unbranch", "{}")),
                OpenAiStub.text("done it"),
                OpenAiStub.text("done"))) {
            KernelSession session = StubSessions.open(root, environment, framework, stub, true);
            CallOutcome spawned = session.send("go", new TurnListener() { }).calls().get(0);
            assertEquals(CallOutcome.Status.ERROR, spawned.status(), spawned.output());
            Path checkout = worktrees().resolve("d-1");
            assertTrue(spawned.output().contains("; was the branch moved meanwhile?). The commit is in " + checkout
                    + ", kept after the session ends."), spawned.output());
            session.close();
            assertEquals("the worker's work\n", Files.readString(checkout.resolve("a.txt")),
                    "the only copy of the worker's work went with the session");
        }
    }

    @Test
    void aLabelBecomesLettersDigitsAndSingleDashesOnly() {
        assertEquals("etc-passwd", Worktrees.slug("../../etc/passwd"));
        assertEquals("a-b-c", Worktrees.slug("A;b`c`"));
        assertEquals("worker", Worktrees.slug("../.."));
        assertEquals("x".repeat(40), Worktrees.slug("x".repeat(90)));
    }
}
