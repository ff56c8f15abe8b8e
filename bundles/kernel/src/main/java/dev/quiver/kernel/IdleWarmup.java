package dev.quiver.kernel;

import dev.quiver.api.Workspace;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * A long-lived session's idle warm-up ({@link dev.quiver.api.host.Session#warmUp}): while the front end
 * waits for its first request, one low-priority daemon thread does what the first search would pay for —
 * the workspace's walk as grep and glob make it (which reads git's index and fills the walk's listing
 * cache), the look for secret files the redactor's first refresh makes (through the same listings; the
 * files themselves are not read), then the search's own warm-up services ({@code tools-core}'s
 * {@code SearchWarmup}), which compile the search's code on a small sample of files.
 *
 * <p>It only fills caches a real call would fill: a call that arrives meanwhile shares whatever is done
 * (the secret look is shared by waiting for it, never longer than its own look would take) and stops the
 * rest; closing the session stops it and waits a little for the thread. Every failure is swallowed: it
 * is a head start, and the first real call reports whatever is wrong. {@value #SWITCH}{@code =off}
 * turns it off.
 */
final class IdleWarmup {

    /** The environment variable that turns the warm-up off: {@code QUIVER_WARMUP=off}. */
    static final String SWITCH = "QUIVER_WARMUP";
    /** The thread's name, which tests look for. */
    static final String THREAD = "quiver-warmup";
    /** How long closing waits for the thread: a walk under way cannot be interrupted, but it ends. */
    private static final long JOIN_MILLIS = 5000;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(IdleWarmup.class);

    private final Thread thread;
    private volatile boolean stopped;
    /** What the walk listed, the look found and whether the search warm-up finished; for tests and the log. */
    private volatile int files = -1;
    private volatile int secrets = -1;
    private volatile boolean finished;

    private IdleWarmup(Workspace workspace, BiConsumer<Workspace, BooleanSupplier> search) {
        thread = new Thread(() -> run(workspace, search), THREAD);
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
    }

    /** Whether the environment leaves the warm-up on: anything but {@code off} (any case) does. */
    static boolean enabled(Map<String, String> environment) {
        String value = environment.get(SWITCH);
        return value == null || !value.strip().equalsIgnoreCase("off");
    }

    /** Starts the warm-up of a workspace; {@code search} runs last, on the same thread, until told to stop. */
    static IdleWarmup start(Workspace workspace, BiConsumer<Workspace, BooleanSupplier> search) {
        IdleWarmup warmup = new IdleWarmup(workspace, search);
        LOG.debug("Idle warm-up started for {}", workspace.root());
        warmup.thread.start();
        return warmup;
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
        } catch (Exception | LinkageError e) {
            LOG.debug("The idle warm-up stopped early", e);
        } finally {
            LOG.debug("Idle warm-up {}: {} files listed, {} secret files found (ms from the start: walk {}, secret look {},"
                    + " search {})", finished ? "done" : "stopped", files, secrets, millis(start, ends[0]),
                    millis(start, ends[1]), millis(start, ends[2]));
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

    /** Stops the warm-up and waits for its thread (bounded): the session is closing. */
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
