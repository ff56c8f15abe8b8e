package dev.quiver.langchain4j;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A response body that closes itself when no byte has arrived for the read timeout, so a stalled
 * stream ends instead of blocking its reader forever (java.net.http's request timeout only covers
 * the wait for the headers). Whoever reads it checks {@link #timedOut()} afterwards.
 */
final class IdleTimeoutStream extends FilterInputStream {

    /** One shared timer thread, daemon, that ends when no stream is open. */
    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private final long timeoutNanos;
    private volatile long lastRead = System.nanoTime();
    private volatile boolean timedOut;
    private boolean closed;
    private ScheduledFuture<?> check;

    IdleTimeoutStream(InputStream in, Duration timeout) {
        super(in);
        this.timeoutNanos = timeout.toNanos();
        schedule(timeoutNanos);
    }

    boolean timedOut() {
        return timedOut;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        lastRead = System.nanoTime();
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        lastRead = System.nanoTime();
        return n;
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            closed = true;
            if (check != null) {
                check.cancel(false);
            }
        }
        super.close();
    }

    private synchronized void schedule(long delayNanos) {
        if (!closed) {
            check = TIMER.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        long idle = System.nanoTime() - lastRead;
        if (idle < timeoutNanos) {
            schedule(timeoutNanos - idle);
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        timedOut = true;
        try {
            close();
        } catch (IOException | RuntimeException e) {
            // closing is best effort; the reader sees the end of the stream or an error either way
        }
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "quiver-model-stream-timeout");
            thread.setDaemon(true);
            return thread;
        });
        timer.setKeepAliveTime(5, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
