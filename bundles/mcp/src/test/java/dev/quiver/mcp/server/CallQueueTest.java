package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallQueueTest {

    private final ExecutorService workers = CallQueue.workers("test", 2);
    private final CallQueue queue = new CallQueue(workers);
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        workers.shutdownNow();
    }

    private CallQueue.Call call(String name, CountDownLatch gate) {
        return new CallQueue.Call() {
            @Override
            public void run() {
                events.add("ran " + name);
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void refuse(int code, String message) {
                events.add("refused " + name + " " + code + " " + message);
            }
        };
    }

    /** Blocks the worker with call "first" until {@link #release}. */
    private void runFirst() throws InterruptedException {
        queue.submit(0, call("first", release));
        while (!events.contains("ran first")) {
            Thread.sleep(2);
        }
    }

    /** A reader thread putting one call of the given size; it may wait for room. */
    private Thread reader(String name, long bytes) {
        Thread reader = new Thread(() -> queue.put(name, bytes, call(name, new CountDownLatch(0))), "reader " + name);
        reader.start();
        return reader;
    }

    private void awaitEvents(int count) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (events.size() < count && System.currentTimeMillis() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(count, events.size(), events.toString());
    }

    @Test
    void submitRefusesACallPastTheLimitAtOnceAsBusy() throws Exception {
        runFirst();
        for (int i = 1; i <= CallQueue.LIMIT; i++) {
            queue.submit(i, call("w" + i, new CountDownLatch(0)));
        }
        queue.submit(99, call("late", new CountDownLatch(0)));
        assertEquals("refused late " + CallQueue.BUSY + " Server busy: 32 calls are queued on this connection;"
                + " wait for their answers before sending more.", events.get(events.size() - 1));
    }

    @Test
    void putTakesThousandsOfCallsWithoutWaitingAndWaitsOnlyPastItsCount() throws Exception {
        runFirst();
        // the caller is the reader: were it held, this loop would not end before release
        for (int i = 1; i <= CallQueue.READER_LIMIT; i++) {
            queue.put(i, 100, call("w" + i, new CountDownLatch(0)));
        }
        Thread late = reader("late", 100);
        late.join(200);
        assertTrue(late.isAlive(), "past " + CallQueue.READER_LIMIT + " waiting calls the reader waits");
        assertEquals(List.of("ran first"), events);
        release.countDown();
        late.join(30_000);
        awaitEvents(CallQueue.READER_LIMIT + 2);
        for (int i = 1; i <= CallQueue.READER_LIMIT; i++) {
            assertEquals("ran w" + i, events.get(i));
        }
        assertEquals("ran late", events.get(CallQueue.READER_LIMIT + 1));
    }

    @Test
    void putWaitsWhenTheWaitingBytesWouldPassTheBoundButAnyCallFitsAnEmptyQueue() throws Exception {
        runFirst();
        queue.put("huge", 2 * CallQueue.READER_BYTES, call("huge", new CountDownLatch(0))); // returns: queue empty
        Thread small = reader("small", 10);
        small.join(200);
        assertTrue(small.isAlive(), "the bytes waiting already leave no room");
        release.countDown();
        small.join(30_000);
        awaitEvents(3);
        assertEquals(List.of("ran first", "ran huge", "ran small"), events);
    }

    @Test
    void aReaderWaitingForRoomIsAnsweredWhenTheConnectionCloses() throws Exception {
        runFirst();
        queue.put("w1", CallQueue.READER_BYTES, call("w1", new CountDownLatch(0)));
        Thread late = reader("late", 1);
        late.join(200);
        assertTrue(late.isAlive());
        queue.close();
        late.join(30_000);
        assertTrue(events.contains("refused late " + CallQueue.BUSY + " The connection is closing; the call did not run."),
                events.toString());
        assertTrue(events.contains("refused w1 " + CallQueue.BUSY + " The connection closed before the call ran."));
    }
}
