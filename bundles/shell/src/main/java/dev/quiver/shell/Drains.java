package dev.quiver.shell;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/** Reading a process's pipes on threads of their own, so that neither can fill up and block the process. */
final class Drains {

    /** How long the drains may take after the process tree is gone before the pipes are abandoned. */
    static final long GRACE_MILLIS = 2000;

    private Drains() {
    }

    /** Starts a daemon thread that copies the stream into the sink until the stream ends. */
    static Thread start(InputStream in, Sink sink, String name) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (in) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    sink.accept(buffer, read);
                }
            } catch (IOException closed) {
                // the pipe was closed under us after the process tree was killed
            }
        }, "quiver-shell-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Waits for the drains to reach the end of their streams, at most {@link #GRACE_MILLIS} in all,
     * without letting an interrupt cut the wait short (the interrupt is kept).
     */
    static void join(Thread... drains) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS);
        boolean interrupted = Thread.interrupted();
        for (Thread drain : drains) {
            while (drain.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    drain.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes the process's pipes; a drain still blocked on one (a pipe held open by an escaped process) then ends. */
    static void close(Process process) {
        for (Closeable stream : new Closeable[] {process.getInputStream(), process.getErrorStream(),
                process.getOutputStream()}) {
            try {
                stream.close();
            } catch (IOException ignored) {
                // nothing left to read from it
            }
        }
    }
}
