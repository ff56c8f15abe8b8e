package dev.quiver.testing;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

/** Which lock a thread waits on, for tests that prove code takes a lock without timing it. */
public final class Monitors {

    private Monitors() {
    }

    /**
     * Waits until a thread is blocked entering {@code lock}'s monitor (held by the caller, so it stays
     * blocked). Blocking briefly on another monitor on the way is waited out.
     *
     * @throws AssertionError when the thread ends instead: it never asked for the lock
     */
    public static void awaitBlockedOn(Thread thread, Object lock) throws InterruptedException {
        while (true) {
            ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
            if (info == null || info.getThreadState() == Thread.State.TERMINATED) {
                throw new AssertionError(thread.getName() + " ended without waiting for " + lock);
            }
            LockInfo waitingFor = info.getLockInfo();
            if (info.getThreadState() == Thread.State.BLOCKED && waitingFor != null
                    && waitingFor.getIdentityHashCode() == System.identityHashCode(lock)
                    && waitingFor.getClassName().equals(lock.getClass().getName())) {
                return;
            }
            Thread.sleep(1);
        }
    }
}
