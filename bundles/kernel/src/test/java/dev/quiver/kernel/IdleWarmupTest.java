package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.core.EditFileTool;
import dev.quiver.tools.core.GrepTool;
import dev.quiver.tools.core.SearchWarmup;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long-lived session's idle warm-up ({@link IdleWarmup}) on a real workspace with the real search
 * warm-up of tools-core: it fills the walk's listing cache that grep's first call then reuses, looks for
 * the secret files without reading them, marks nothing as read, writes nothing, stops when a call
 * arrives or the session closes, and the switch turns it off. No timing is asserted; the waits are
 * bounds that only a broken build reaches.
 */
class IdleWarmupTest {

    private static final long BOUND_MILLIS = 60_000;

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("ws"));
        environment = StubSessions.environment(temp);
        for (int i = 0; i < 30; i++) {
            Path folder = Files.createDirectories(root.resolve("src/pkg" + (i % 5)));
            Files.writeString(folder.resolve("Class" + i + ".java"),
                    "package pkg;\nimport java.util.List;\npublic class Class" + i + " {\n    synchronized void run() { }\n}\n");
        }
        Files.writeString(root.resolve(".env"), "API_TOKEN=s3cr3tvalue123\n");
        Files.writeString(root.resolve("src/pkg1/id_rsa"), "not really a key, only its name\n");
        Files.writeString(root.resolve("README.md"), "# a project\n");
        // listings read within the racy window of their folder's change are never reused: let it pass
        Thread.sleep(2300);
        framework = new Framework();
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    /** Every call of the workspace (and of the folders it hands out) the warm-up's thread makes, by name. */
    private final List<String> calls = new CopyOnWriteArrayList<>();
    /** The file names the warm-up opened for reading. */
    private final List<String> opened = new CopyOnWriteArrayList<>();

    /** The real workspace, seen through a proxy that records what the warm-up's thread does with it. */
    private Workspace observed(Workspace real) {
        return (Workspace) Proxy.newProxyInstance(Workspace.class.getClassLoader(), new Class<?>[] {Workspace.class},
                (proxy, method, args) -> {
                    boolean warming = Thread.currentThread().getName().equals(IdleWarmup.THREAD);
                    if (warming) {
                        calls.add(method.getName());
                    }
                    Object result = invoke(real, method, args);
                    if (warming && result instanceof Workspace.Folder folder) {
                        return observed(folder);
                    }
                    return result;
                });
    }

    /** A folder the warm-up opened, and the folders it opens below it, recording the files opened for reading. */
    private Workspace.Folder observed(Workspace.Folder folder) {
        return (Workspace.Folder) Proxy.newProxyInstance(Workspace.class.getClassLoader(),
                new Class<?>[] {Workspace.Folder.class}, (p, m, a) -> {
                    if (m.getName().equals("openRead")) {
                        opened.add((String) a[0]);
                    }
                    Object result = invoke(folder, m, a);
                    return result instanceof Workspace.Folder below ? observed(below) : result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The tree as bytes by path, every file and folder. */
    private Map<String, String> tree() throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path path : all.toList()) {
                files.put(root.relativize(path).toString(), Files.isDirectory(path) ? "/"
                        : new String(Files.readAllBytes(path), java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        }
        return files;
    }

    /** A counter of the real workspace's walker (package-private there, read as its own tests read it). */
    private static long walkerCounter(Workspace workspace, String name) throws Exception {
        java.lang.reflect.Field walkerField = workspace.getClass().getDeclaredField("walker");
        walkerField.setAccessible(true);
        Object walker = walkerField.get(workspace);
        java.lang.reflect.Field counter = walker.getClass().getDeclaredField(name);
        counter.setAccessible(true);
        return ((java.util.concurrent.atomic.AtomicLong) counter.get(walker)).get();
    }

    @Test
    void fillsTheListingCacheThatTheFirstGrepReusesReadingNoSecretAndMarkingNothing() throws Exception {
        framework.register(new GrepTool(), "grep", "read");
        framework.register(new EditFileTool(), "edit_file", "write");
        Workspace real = new WorkspaceFactoryComponent().open(root);
        Map<String, String> before = tree();
        try (KernelSession session = StubSessions.open(observed(real), environment, framework, (OpenAiStub) null, true)
                .withSearchWarmup(new SearchWarmup())) {
            assertNull(session.warmup(), "nothing warms up before the front end says it is idle");
            session.warmUp();
            IdleWarmup warmup = session.warmup();
            assertNotNull(warmup);
            session.warmUp();
            assertSame(warmup, session.warmup(), "a second call starts nothing more");
            assertTrue(warmup.awaitEnd(BOUND_MILLIS), "the warm-up ends by itself");
            assertTrue(warmup.finished(), "and went through every step");
            assertEquals(33, warmup.files(), "the walk grep makes: every file, secret ones too (the search skips them)");
            assertEquals(2, warmup.secrets(), ".env and id_rsa, found by name");

            assertTrue(calls.contains("fileList") && calls.contains("secretFiles"), calls.toString());
            assertEquals(1, calls.stream().filter("files"::equals).count(), "glob's list is taken once: " + calls);
            assertTrue(opened.contains("Class0.java") && opened.contains("README.md"), "the search ran on the files: "
                    + opened);
            assertFalse(opened.contains(".env") || opened.contains("id_rsa"), "no secret file is read: " + opened);
            for (String call : calls) {
                assertFalse(List.of("reads", "readText", "readLines", "openRead", "write", "change", "delete", "move",
                        "copy", "createDirectories", "createLink").contains(call), "the warm-up called " + call);
            }
            assertEquals(before, tree(), "the tree is as it was");

            long read = walkerCounter(real, "directoriesRead");
            long checked = walkerCounter(real, "directoriesChecked");
            CallOutcome grep = session.call("grep", "{\"pattern\":\"synchronized\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, grep.status(), grep.output());
            assertTrue(grep.output().contains("src/pkg0/Class0.java:4:"), grep.output());
            assertEquals(read, walkerCounter(real, "directoriesRead"), "grep's first call read no folder again");
            assertTrue(walkerCounter(real, "directoriesChecked") > checked, "it took the warm-up's walk, checking each "
                    + "folder's stamp");

            CallOutcome edit = session.call("edit_file", "{\"path\":\"src/pkg0/Class0.java\",\"oldString\":\"run\","
                    + "\"newString\":\"go\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.ERROR, edit.status(), edit.output());
            assertTrue(edit.output().contains("has not been read in this session"), "the warm-up read for no one: "
                    + edit.output());
        }
    }

    /** A search warm-up that runs until it is told to stop (bounded), so a build that never tells it fails. */
    private static final class UntilStopped implements BiConsumer<Workspace, BooleanSupplier> {
        final CountDownLatch running = new CountDownLatch(1);
        volatile boolean sawStop;

        @Override
        public void accept(Workspace workspace, BooleanSupplier stop) {
            running.countDown();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS);
            while (!stop.getAsBoolean() && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            sawStop = stop.getAsBoolean();
        }
    }

    private static boolean warmupThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals(IdleWarmup.THREAD) && thread.isAlive());
    }

    @Test
    void closingTheSessionStopsTheWarmupAndLeavesNoThread() throws Exception {
        UntilStopped search = new UntilStopped();
        KernelSession session = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(search);
        session.warmUp();
        assertTrue(search.running.await(BOUND_MILLIS, TimeUnit.MILLISECONDS));
        assertTrue(warmupThreadAlive());
        IdleWarmup first = session.warmup();
        session.close();
        assertTrue(first.awaitEnd(BOUND_MILLIS), "no warm-up thread outlives its session");
        assertTrue(search.sawStop);
        session.warmUp();
        assertSame(first, session.warmup(), "a closed session starts nothing");
        assertFalse(warmupThreadAlive());
    }

    @Test
    void aCallStopsTheWarmupWithoutWaitingForIt() throws Exception {
        framework.register(new GrepTool(), "grep", "read");
        UntilStopped search = new UntilStopped();
        try (KernelSession session = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(search)) {
            session.warmUp();
            assertTrue(search.running.await(BOUND_MILLIS, TimeUnit.MILLISECONDS));
            CallOutcome grep = session.call("grep", "{\"pattern\":\"List\",\"fixedStrings\":true}", new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, grep.status(), grep.output());
            assertTrue(session.warmup().awaitEnd(BOUND_MILLIS), "the warm-up gave way to the call");
            assertTrue(search.sawStop);
        }
    }

    @Test
    void aPromptWarmsUpOnlyOnceTheModelsAnswerStreamsAndStopsWhenItIsIn() throws Exception {
        UntilStopped search = new UntilStopped();
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("Hello there."))) {
            dev.quiver.langchain4j.ModelProvider streamingProvider = new dev.quiver.langchain4j.ModelProvider() {
                @Override
                public dev.langchain4j.model.chat.ChatModel chatModel(dev.quiver.langchain4j.ModelSettings settings) {
                    return StubSessions.provider(model).chatModel(settings);
                }

                @Override
                public dev.langchain4j.model.chat.StreamingChatModel streamingChatModel(
                        dev.quiver.langchain4j.ModelSettings settings) {
                    return dev.langchain4j.model.openai.OpenAiStreamingChatModel.builder()
                            .httpClientBuilder(dev.langchain4j.http.client.jdk.JdkHttpClient.builder())
                            .baseUrl(model.baseUrl()).apiKey("test").modelName(settings.name()).build();
                }
            };
            // read-only: a prompt's turn otherwise looks ahead for its first checkpoint on the session's workers,
            // which closing does not wait for, and could still be storing files as the temporary folder goes
            dev.quiver.api.host.SessionOptions options = new dev.quiver.api.host.SessionOptions(root,
                    java.util.Optional.empty(), false, false, true, java.util.Optional.of("openai/test"),
                    java.util.Optional.empty(), java.util.Optional.empty());
            try (KernelSession session = StubSessions.open(root, environment, framework, streamingProvider, options)
                    .withSearchWarmup(search)) {
                assertNull(session.warmup(), "a prompt's session starts none before its request");
                List<String> seen = new CopyOnWriteArrayList<>();
                session.send("hi", new TurnListener() {
                    @Override
                    public void text(String text) {
                        seen.add((session.warmup() != null) + " after " + model.requests().size() + " request");
                    }
                });
                assertFalse(seen.isEmpty(), "the answer streamed");
                assertEquals("true after 1 request", seen.get(0), "started as the answer streams, its request sent");
                assertTrue(session.warmup().awaitEnd(BOUND_MILLIS), "and stopped once the answer was in");
            }
        }
    }

    @Test
    void theSwitchTurnsItOff() {
        assertTrue(IdleWarmup.enabled(Map.of()));
        assertTrue(IdleWarmup.enabled(Map.of(IdleWarmup.SWITCH, "on")));
        assertFalse(IdleWarmup.enabled(Map.of(IdleWarmup.SWITCH, "off")));
        assertFalse(IdleWarmup.enabled(Map.of(IdleWarmup.SWITCH, " OFF ")));
    }

    @Test
    void closingDoesNotWaitForAWarmupThatIgnoresItsStop() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        KernelSession session = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup((workspace, stop) -> {
                    running.countDown();
                    // deaf to its stop and to interrupts, as a walk deep in one large folder is for a while
                    boolean released = false;
                    while (!released) {
                        try {
                            released = release.await(BOUND_MILLIS, TimeUnit.MILLISECONDS) || true;
                        } catch (InterruptedException ignored) {
                            // keeps waiting
                        }
                    }
                });
        try {
            session.warmUp();
            assertTrue(running.await(BOUND_MILLIS, TimeUnit.MILLISECONDS));
            long start = System.nanoTime();
            session.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // a bound for "does not hang", far above the wait of IdleWarmup.JOIN_MILLIS and below the old 5 s join
            assertTrue(closeMillis < 3000, "closing waited " + closeMillis + " ms for the warm-up");
            assertTrue(warmupThreadAlive(), "the warm-up was still running: closing did not wait for it");
        } finally {
            release.countDown();
        }
        assertTrue(session.warmup().awaitEnd(BOUND_MILLIS));
    }

    @Test
    void twoSessionsOnOneRootStartOneWarmupAndARootWarmedUpIsNotWarmedUpAgain() throws Exception {
        UntilStopped search = new UntilStopped();
        try (KernelSession first = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(search);
                KernelSession second = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(search)) {
            first.warmUp();
            assertTrue(search.running.await(BOUND_MILLIS, TimeUnit.MILLISECONDS));
            second.warmUp();
            assertNull(second.warmup(), "one warm-up of a root at a time in a process");
        }
        List<String> runs = new CopyOnWriteArrayList<>();
        try (KernelSession third = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup((workspace, stop) -> runs.add("third"))) {
            third.warmUp();
            assertNotNull(third.warmup(), "the first one was stopped before its end: the root may be warmed up again");
            assertTrue(third.warmup().awaitEnd(BOUND_MILLIS));
            assertTrue(third.warmup().finished());
        }
        try (KernelSession fourth = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup((workspace, stop) -> runs.add("fourth"))) {
            fourth.warmUp();
            assertNull(fourth.warmup(), "a root warmed up to the end is not warmed up again in this process");
        }
        assertEquals(List.of("third"), runs);
    }

    @Test
    void noWarmupOfTheFileSystemRootOrTheHomeFolder() throws Exception {
        assertTrue(IdleWarmup.tooWide(Path.of("/")));
        assertTrue(IdleWarmup.tooWide(Path.of(System.getProperty("user.home"))));
        assertFalse(IdleWarmup.tooWide(root));
        String home = System.getProperty("user.home");
        // a folder above the home folder (/home, /Users) holds it, and every other user's
        Path parent = Path.of(home).toRealPath().getParent();
        if (parent != null) {
            assertTrue(IdleWarmup.tooWide(parent));
        }
        try {
            System.setProperty("user.home", root.resolve("sub/home").toString());
            Files.createDirectories(root.resolve("sub/home"));
            assertTrue(IdleWarmup.tooWide(root), "a workspace above the home folder");
            Path project = Files.createDirectories(root.resolve("sub/home/project"));
            assertFalse(IdleWarmup.tooWide(project), "a project inside the home folder");
        } finally {
            System.setProperty("user.home", home);
        }
        try (KernelSession session = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(new UntilStopped())) {
            // the workspace as the home folder, named through a link: compared by real path
            Path link = Files.createSymbolicLink(temp.resolve("home-link"), root);
            System.setProperty("user.home", link.toString());
            try {
                session.warmUp();
            } finally {
                System.setProperty("user.home", home);
            }
            assertNull(session.warmup(), "no warm-up walks the home folder");
        }
    }

    @Test
    void aServiceThatThrowsAnErrorStopsNeitherTheNextNorWritesToStderr() throws Exception {
        CountDownLatch ran = new CountDownLatch(2);
        BiConsumer<Workspace, BooleanSupplier> failing = (workspace, stop) -> {
            ran.countDown();
            throw new AssertionError("a plugin's bug");
        };
        BiConsumer<Workspace, BooleanSupplier> failingToo = (workspace, stop) -> {
            ran.countDown();
            throw new AssertionError("another plugin's bug");
        };
        for (BiConsumer<Workspace, BooleanSupplier> service : List.of(failing, failingToo)) {
            java.util.Hashtable<String, Object> properties = new java.util.Hashtable<>();
            properties.put(KernelComponent.WARMUP_PROPERTY, "test");
            framework.context.registerService(BiConsumer.class, service, properties);
        }
        KernelComponent kernel = new KernelComponent(framework.registry, new WorkspaceFactoryComponent(),
                framework.context);
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true));
        try (KernelSession session = StubSessions.open(root, environment, framework, (OpenAiStub) null, false)
                .withSearchWarmup(kernel::searchWarmups)) {
            session.warmUp();
            assertTrue(session.warmup().awaitEnd(BOUND_MILLIS));
            assertEquals(0, ran.getCount(), "whichever throws first, the other service still ran");
            assertTrue(session.warmup().finished(), "the warm-up went on to its end");
        } finally {
            System.setErr(stderr);
        }
        assertEquals("", captured.toString(), "nothing on stderr");
    }
}
