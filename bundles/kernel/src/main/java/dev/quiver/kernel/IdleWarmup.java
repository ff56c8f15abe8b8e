package dev.quiver.kernel;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * A long-lived session's idle warm-up ({@link dev.quiver.api.host.Session#warmUp}): while the front end
 * waits for its first request, a daemon thread does what the first search would pay for —
 * the workspace's walk as grep and glob make it (which reads git's index and fills the walk's listing
 * cache), the look for secret files the redactor's first refresh makes (through the same listings; the
 * files themselves are not read), then the search's own warm-up services ({@code tools-core}'s
 * {@code SearchWarmup}), which compile the search's code on a small sample of files.
 *
 * <p>The walk is the search's own: its folders are read in parallel on a pool of one thread per core, so
 * while it runs the warm-up uses every core (a thread priority is not honoured by Java on Linux). What
 * bounds it: the whole warm-up gives up after {@value #BUDGET_MILLIS} ms, or {@value #BUDGET_PROPERTY} (its thread is interrupted, which
 * stops the walk and the secret look at their next folder); one warm-up runs per workspace root in the
 * process at a time, and a root warmed up to the end or up to the budget is not warmed up again by this
 * process; none runs when the root is the file system's root or the user's home folder.
 *
 * <p>It only fills caches a real call would fill: a call that arrives meanwhile shares whatever is done
 * (the secret look is shared by waiting for it, never longer than its own look would take) and stops the
 * rest; closing the session interrupts it and waits at most {@value #JOIN_MILLIS} ms for the thread. Every
 * failure is swallowed, each service's on its own: it is a head start, and the first real call reports
 * whatever is wrong. {@value #SWITCH}{@code =off} turns it off.
 */
final class IdleWarmup {

    /** The environment variable that turns the warm-up off: {@code QUIVER_WARMUP=off}. */
    static final String SWITCH = "QUIVER_WARMUP";
    /** The thread's name, which tests look for. */
    static final String THREAD = "quiver-warmup";
    /** How long closing waits for the thread: the walk and the look stop at their next folder once interrupted. */
    static final long JOIN_MILLIS = 100;
    /** How long a warm-up may run before it gives up, so that a pathological tree costs no more. */
    static final long BUDGET_MILLIS = 10_000;
    /** The system property that sets another budget in milliseconds (a slow machine's, or a test's). */
    static final String BUDGET_PROPERTY = "quiver.warmup.budget.ms";
    /** The roots warmed up in this process: {@link #RUNNING} while one runs, {@link #DONE} once one ended or gave up. */
    private static final Map<Path, Boolean> ROOTS = new ConcurrentHashMap<>();
    private static final Boolean RUNNING = Boolean.FALSE;
    private static final Boolean DONE = Boolean.TRUE;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(IdleWarmup.class);

    private final Thread thread;
    private final Path root;
    private volatile boolean stopped;
    private volatile boolean overBudget;
    /** What the walk listed, the look found and whether the search warm-up finished; for tests and the log. */
    private volatile int files = -1;
    private volatile int secrets = -1;
    private volatile boolean finished;

    private IdleWarmup(Workspace workspace, BiConsumer<Workspace, BooleanSupplier> search) {
        root = workspace.root();
        thread = new Thread(() -> run(workspace, search), THREAD);
        thread.setDaemon(true);
    }

    /** Whether the environment leaves the warm-up on: anything but {@code off} (any case) does. */
    static boolean enabled(Map<String, String> environment) {
        String value = environment.get(SWITCH);
        return value == null || !value.strip().equalsIgnoreCase("off");
    }

    /**
     * Starts the warm-up of a workspace; {@code search} runs last, on the same thread, until told to stop.
     * Null when none starts: the root is the file system's root or the home folder, or another warm-up of
     * it runs or has been done in this process.
     */
    static IdleWarmup start(Workspace workspace, BiConsumer<Workspace, BooleanSupplier> search) {
        Path root = workspace.root();
        if (tooWide(root)) {
            LOG.debug("No idle warm-up for {}: the whole file system or the home folder", root);
            return null;
        }
        if (ROOTS.putIfAbsent(root, RUNNING) != null) {
            LOG.debug("No idle warm-up for {}: one runs or has run in this process", root);
            return null;
        }
        IdleWarmup warmup = new IdleWarmup(workspace, search);
        LOG.debug("Idle warm-up started for {}", root);
        try {
            warmup.thread.start();
        } catch (Throwable e) {
            // no thread to be had (memory, a process limit): no warm-up, and the root is free for a later one
            ROOTS.remove(root, RUNNING);
            LOG.debug("The idle warm-up could not start", e);
            return null;
        }
        CompletableFuture.delayedExecutor(Long.getLong(BUDGET_PROPERTY, BUDGET_MILLIS), TimeUnit.MILLISECONDS)
                .execute(warmup::giveUp);
        return warmup;
    }

    /**
     * Whether a root is the file system's root, the user's home folder or a folder above it (by real path,
     * {@code /home} say), too wide to walk idly.
     */
    static boolean tooWide(Path root) {
        Path real;
        try {
            real = root.toRealPath();
        } catch (IOException e) {
            real = root.toAbsolutePath().normalize();
        }
        if (real.getParent() == null) {
            return true;
        }
        String home = System.getProperty("user.home");
        try {
            return home != null && !home.isEmpty() && Path.of(home).toRealPath().startsWith(real);
        } catch (IOException | java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    /** The budget has run out: stops the warm-up where it is, and this process does not try the root again. */
    private void giveUp() {
        if (thread.isAlive()) {
            overBudget = true;
            stopped = true;
            thread.interrupt();
        }
    }

    private void run(Workspace workspace, BiConsumer<Workspace, BooleanSupplier> search) {
        long start = System.nanoTime();
        long[] ends = new long[3]; // when the walk, the secret look and the search warm-up ended
        try {
            // the walk grep and glob make first (root, ignored files left out), kept for their first call
            Workspace.FileList list = workspace.fileList(workspace.root(), false);
            int count = 0;
            while (!stopped && list.get(count) != null) {
                count++;
            }
            files = count;
            ends[0] = System.nanoTime();
            if (stopped) {
                return;
            }
            secrets = workspace.secretFiles().size();
            ends[1] = System.nanoTime();
            if (stopped) {
                return;
            }
            search.accept(workspace, () -> stopped || Thread.currentThread().isInterrupted());
            ends[2] = System.nanoTime();
            finished = !stopped;
        } catch (Throwable e) {
            // a head start only, and never a stack trace on a terminal or a protocol stream
            LOG.debug("The idle warm-up stopped early", e);
        } finally {
            // done, or given up on for its cost: not again for this root; stopped otherwise, so a later session may
            if (finished || overBudget) {
                ROOTS.put(root, DONE);
            } else {
                ROOTS.remove(root, RUNNING);
            }
            LOG.debug("Idle warm-up {}: {} files listed, {} secret files found (ms from the start: walk {}, secret look {},"
                    + " search {})", finished ? "done" : overBudget ? "over its budget" : "stopped", files, secrets,
                    millis(start, ends[0]), millis(start, ends[1]), millis(start, ends[2]));
        }
    }

    /** Milliseconds from start to end, or -1 when the step did not end. */
    private static long millis(long start, long end) {
        return end == 0 ? -1 : (end - start) / 1_000_000;
    }

    /** Stops the warm-up at its next check, without waiting: a real call is under way. */
    void yieldToCall() {
        stopped = true;
    }

    /** Stops the warm-up and waits for its thread at most {@value #JOIN_MILLIS} ms: the session is closing. */
    void stop() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the warm-up to end by itself; for tests. */
    boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    int files() {
        return files;
    }

    int secrets() {
        return secrets;
    }

    boolean finished() {
        return finished;
    }
}
