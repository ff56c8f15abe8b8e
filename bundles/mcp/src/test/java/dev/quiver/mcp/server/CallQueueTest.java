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

    /** Blocks the worker with call "first" and fills the queue behind it. */
    private void fill() throws InterruptedException {
        queue.submit(0, call("first", release));
        while (!events.contains("ran first")) {
            Thread.sleep(2);
        }
        for (int i = 1; i <= CallQueue.LIMIT; i++) {
            queue.submit(i, call("w" + i, new CountDownLatch(0)));
        }
    }

    @Test
    void submitRefusesACallPastTheLimitAtOnceAsBusy() throws Exception {
        fill();
        queue.submit(99, call("late", new CountDownLatch(0)));
        assertEquals("refused late " + CallQueue.BUSY + " Server busy: 32 calls are queued on this connection;"
                + " wait for their answers before sending more.", events.get(events.size() - 1));
    }

    @Test
    void putWaitsForRoomAndThenEveryCallRunsInOrder() throws Exception {
        fill();
        Thread reader = new Thread(() -> queue.put(99, call("late", new CountDownLatch(0))));
        reader.start();
        reader.join(200);
        assertTrue(reader.isAlive(), "a full queue holds the reader");
        assertEquals(List.of("ran first"), events);
        release.countDown();
        reader.join(30_000);
        long deadline = System.currentTimeMillis() + 30_000;
        while (events.size() < CallQueue.LIMIT + 2 && System.currentTimeMillis() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(CallQueue.LIMIT + 2, events.size(), events.toString());
        for (int i = 1; i <= CallQueue.LIMIT; i++) {
            assertEquals("ran w" + i, events.get(i));
        }
        assertEquals("ran late", events.get(CallQueue.LIMIT + 1));
    }

    @Test
    void aReaderWaitingForRoomIsAnsweredWhenTheConnectionCloses() throws Exception {
        fill();
        Thread reader = new Thread(() -> queue.put(99, call("late", new CountDownLatch(0))));
        reader.start();
        reader.join(200);
        assertTrue(reader.isAlive());
        queue.close();
        reader.join(30_000);
        assertTrue(events.contains("refused late " + CallQueue.BUSY + " The connection is closing; the call did not run."),
                events.toString());
        assertTrue(events.contains("refused w1 " + CallQueue.BUSY + " The connection closed before the call ran."));
    }
}
