package dev.quiver.shell;

import dev.quiver.api.Shell;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One background command: its process, its output kept in poll windows, and a monitor thread that
 * waits for it to end, then kills whatever it left behind and records how it ended.
 */
final class BackgroundJob {

    /** Bytes kept of each stream between two polls, from the start and from the end. */
    static final int HEAD_BYTES = ProcessShell.HEAD_BYTES;
    static final int TAIL_BYTES = ProcessShell.TAIL_BYTES;
    private static final long MONITOR_WAIT_MILLIS = 10_000;

    private final String handle;
    private final String name;
    private final String line;
    private final boolean sandboxed;
    private final Process process;
    private final Procs.Since since;
    private final Marks.Mark mark;
    private final long started;
    private final PollBuffer stdout = new PollBuffer(HEAD_BYTES, TAIL_BYTES);
    private final PollBuffer stderr = new PollBuffer(HEAD_BYTES, TAIL_BYTES);
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile Shell.Job.State state = Shell.Job.State.RUNNING;
    private volatile int exitCode = -1;
    private volatile long endedAt;
    private volatile boolean stopping;

    BackgroundJob(String handle, String name, String line, boolean sandboxed, Process process, Procs.Since since,
            Marks.Mark mark, long started, Runnable onEnd) {
        this.handle = handle;
        this.name = name;
        this.line = line;
        this.sandboxed = sandboxed;
        this.process = process;
        this.since = since;
        this.mark = mark;
        this.started = started;
        Thread out = Drains.start(process.getInputStream(), stdout, handle + "-stdout");
        Thread err = Drains.start(process.getErrorStream(), stderr, handle + "-stderr");
        Thread monitor = new Thread(() -> monitor(out, err, onEnd), "quiver-shell-" + handle);
        monitor.setDaemon(true);
        monitor.start();
    }

    String handle() {
        return handle;
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean running() {
        return state == Shell.Job.State.RUNNING;
    }

    private void monitor(Thread out, Thread err, Runnable onEnd) {
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        // nothing a background command started outlives it either
        ProcessGroups.kill(process.toHandle(), since, mark);
        Drains.join(out, err);
        Drains.close(process);
        endedAt = System.nanoTime();
        if (stopping) {
            state = Shell.Job.State.STOPPED;
        } else {
            exitCode = process.exitValue();
            state = Shell.Job.State.EXITED;
        }
        try {
            onEnd.run();
        } finally {
            ended.countDown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The job as of now. */
    Shell.Job job() {
        long end = state == Shell.Job.State.RUNNING ? System.nanoTime() : endedAt;
        return new Shell.Job(handle, name, line, state, exitCode, Duration.ofNanos(end - started), sandboxed);
    }

    /** The job and what it printed since the previous poll. */
    Shell.Poll poll() {
        // the state is read first: output that arrives in between belongs to the next poll
        Shell.Job job = job();
        String out = stdout.take();
        String err = stderr.take();
        return new Shell.Poll(job, out, sandboxed ? ProcessShell.withGitHint(out, err) : err);
    }

    /** Kills the command with its tree, waits until the monitor has seen it end, and reports. */
    Shell.Poll stop() {
        if (process.isAlive()) {
            stopping = true;
            ProcessGroups.kill(process.toHandle(), since, mark);
        }
        awaitEnd();
        return poll();
    }

    private void awaitEnd() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MONITOR_WAIT_MILLIS);
        while (ended.getCount() > 0 && System.nanoTime() - deadline < 0) {
            try {
                ended.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                        TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
