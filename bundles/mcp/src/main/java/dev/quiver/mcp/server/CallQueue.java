package dev.quiver.mcp.server;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code tools/call} requests of one connection, run one at a time in arrival order. The
 * transport hands each call over from its reading thread as it arrives; a worker of the pool shared
 * by all connections runs the oldest, then hands the queue back to the pool, so one connection
 * never holds more than one worker and never starves the others.
 *
 * <p>Two bounds, one per transport. Over HTTP, where each request arrives on its own, a call past
 * {@link #LIMIT} waiting ones is refused at once with "server busy" ({@link #submit}). On stdio
 * the reader must keep reading, or a {@code ping} or {@code notifications/cancelled} sent behind
 * the calls would wait for them; so {@link #put} takes calls up to {@link #READER_LIMIT} of them
 * or {@link #READER_BYTES} of request JSON, and only past that makes the reader wait for room
 * (the pipe holds the rest, so a script that pipelines calls loses none).
 */
final class CallQueue {

    private static final Logger LOG = LoggerFactory.getLogger(CallQueue.class);
    /** Calls that may wait behind the running one over HTTP; each holds its connection meanwhile. */
    static final int LIMIT = 32;
    /** Calls that may wait on stdio before the reader waits for room: far more than a script pipelines. */
    static final int READER_LIMIT = 4096;
    /**
     * The request JSON that may wait on stdio; a call of any accepted size fits an empty queue. Parsed,
     * JSON takes many times its text in the heap (small objects the most), so the bound is kept small.
     */
    static final long READER_BYTES = 16L * 1024 * 1024;
    /** The JSON-RPC error code of "server busy" (the implementation-defined server error range). */
    static final int BUSY = -32000;
    /** The JSON-RPC error code of a call cancelled while it waited (as LSP's RequestCancelled). */
    static final int CANCELLED = -32800;

    /** One waiting call: what runs it, and what answers it when it will not run. */
    interface Call {
        void run();

        void refuse(int code, String message);
    }

    private record Entry(String id, Call call, long bytes) {
    }

    private final Executor workers;
    private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
    private long waitingBytes;
    private String running;
    private boolean scheduled;
    private boolean closed;

    CallQueue(Executor workers) {
        this.workers = workers;
    }

    /**
     * Queues a call behind the earlier ones of this connection, or refuses it (busy past
     * {@link #LIMIT}, closed) through {@link Call#refuse} before returning.
     */
    void submit(Object requestId, Call call) {
        String refusal;
        synchronized (this) {
            refusal = waiting.size() >= LIMIT && !closed
                    ? "Server busy: " + waiting.size() + " calls are queued on this connection; wait for "
                            + "their answers before sending more."
                    : add(new Entry(key(requestId), call, 0));
        }
        if (refusal != null) {
            call.refuse(BUSY, refusal);
        }
    }

    /**
     * Queues a call of {@code bytes} of request JSON, first waiting while the queue holds
     * {@link #READER_LIMIT} calls or has no room for the bytes; refuses it (closed, stopping,
     * interrupted) through {@link Call#refuse} before returning.
     */
    void put(Object requestId, long bytes, Call call) {
        String refusal;
        synchronized (this) {
            try {
                while (!closed && (waiting.size() >= READER_LIMIT
                        || !waiting.isEmpty() && waitingBytes + bytes > READER_BYTES)) {
                    wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                closed = true;
            }
            refusal = add(new Entry(key(requestId), call, bytes));
        }
        if (refusal != null) {
            call.refuse(BUSY, refusal);
        }
    }

    /** Under the lock: queues the entry and makes sure a worker comes; the refusal when it will not run. */
    private String add(Entry entry) {
        if (closed) {
            return "The connection is closing; the call did not run.";
        }
        waiting.add(entry);
        waitingBytes += entry.bytes();
        if (!scheduled && !schedule()) {
            removed(waiting.removeLast());
            return "The server is stopping; the call did not run.";
        }
        return null;
    }

    /** Under the lock: an entry left the queue, so a reader waiting in put may find room. */
    private void removed(Entry entry) {
        waitingBytes -= entry.bytes();
        notifyAll();
    }

    /** Under the lock: hands the queue to a worker; false when the pool is shut down. */
    private boolean schedule() {
        try {
            workers.execute(this::runOldest);
            scheduled = true;
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void runOldest() {
        Entry next;
        synchronized (this) {
            next = waiting.poll();
            if (next != null) {
                removed(next);
            }
            running = next == null ? null : next.id();
            if (next == null) {
                scheduled = false;
                return;
            }
        }
        try {
            next.call().run();
        } catch (RuntimeException e) {
            LOG.warn("An MCP tool call failed outside the session", e);
        } finally {
            boolean stopping;
            synchronized (this) {
                running = null;
                scheduled = false;
                stopping = !waiting.isEmpty() && !schedule();
            }
            if (stopping) {
                refuseAll("The server is stopping; the call did not run.");
            }
        }
    }

    /**
     * What {@code notifications/cancelled} for this request id means here: a waiting call is removed
     * and answered as cancelled ({@link Cancel#DROPPED}); the running call is to be interrupted
     * ({@link Cancel#RUNNING}); anything else was answered already ({@link Cancel#UNKNOWN}).
     */
    Cancel cancel(Object requestId) {
        String id = key(requestId);
        Entry dropped = null;
        synchronized (this) {
            if (Objects.equals(running, id)) {
                return Cancel.RUNNING;
            }
            for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
                Entry entry = it.next();
                if (entry.id().equals(id)) {
                    it.remove();
                    removed(entry);
                    dropped = entry;
                    break;
                }
            }
        }
        if (dropped == null) {
            return Cancel.UNKNOWN;
        }
        dropped.call().refuse(CANCELLED, "Cancelled by the client before it ran.");
        return Cancel.DROPPED;
    }

    enum Cancel { RUNNING, DROPPED, UNKNOWN }

    /** Refuses the waiting calls; the running one ends with the session. */
    void close() {
        synchronized (this) {
            closed = true;
        }
        refuseAll("The connection closed before the call ran.");
    }

    private void refuseAll(String message) {
        ArrayDeque<Entry> refused;
        synchronized (this) {
            refused = new ArrayDeque<>(waiting);
            waiting.clear();
            waitingBytes = 0;
            notifyAll();
        }
        for (Entry entry : refused) {
            entry.call().refuse(BUSY, message);
        }
    }

    /** JSON-RPC ids are strings or integers; 7 and "7" are different requests. */
    private static String key(Object id) {
        return id instanceof Number number ? "#" + number.longValue() : "\"" + id;
    }

    /**
     * The workers shared by every connection of a server: bounded, so that pipelined calls cost
     * queue entries, not threads. Each connection holds at most one worker at a time, so with at
     * least as many workers as connections no connection waits for another's call.
     */
    static ExecutorService workers(String name, int threads) {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), task -> {
                    Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
