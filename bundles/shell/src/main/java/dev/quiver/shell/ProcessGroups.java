package dev.quiver.shell;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Killing a command and everything it started. */
final class ProcessGroups {

    private static final long GONE_WAIT_MILLIS = 3000;

    private ProcessGroups() {
    }

    /**
     * Kills the process group led by {@code leader} (made by {@code setsid}) and every descendant
     * that moved to a group of its own, then waits until they are gone.
     */
    static void kill(ProcessHandle leader) {
        // descendants are collected first: once the leader dies they are re-parented and lost from view
        List<ProcessHandle> descendants = leader.descendants().toList();
        signalGroup(leader.pid());
        leader.destroyForcibly();
        for (ProcessHandle descendant : descendants) {
            descendant.destroyForcibly();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GONE_WAIT_MILLIS);
        waitGone(leader, deadline);
        for (ProcessHandle descendant : descendants) {
            waitGone(descendant, deadline);
        }
    }

    private static void signalGroup(long pgid) {
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(GONE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            // without kill(1) the leader and known descendants are still destroyed one by one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void waitGone(ProcessHandle handle, long deadline) {
        // polled rather than onExit(), which for a process that is not our child checks only every few hundred ms
        while (handle.isAlive() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
