package dev.quiver.shell;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This JVM as a child subreaper ({@code prctl(PR_SET_CHILD_SUBREAPER)}): a process a command orphans
 * (a double fork, {@code setsid -f}, {@code nohup ... &} in a shell that ends) is re-parented to this
 * JVM instead of the machine's init, so it never leaves Quiver's reach while Quiver runs, and Quiver
 * reaps it once it ends or is killed.
 *
 * <p>Reaping must never take a {@link Process}'s exit status from the JDK, which waits for each
 * process it started on a thread of its own from the moment it starts it. So a zombie child is
 * reaped ({@code waitpid} on its pid, never {@code waitpid(-1)}) only when it carries a command tag
 * ({@link Marks}) and is not the leader of a command (those the JDK started and waits for), or
 * when a sweep at least {@link #LINGER_MILLIS} earlier found it a zombie already: a process the JDK
 * waits for is reaped by the JDK as it ends, so one left a zombie that long is an orphan no one else
 * will reap (a grandchild of another bundle's process).
 *
 * <p>Without JNA (another OS or architecture) the JVM stays an ordinary parent: orphans go to init
 * as before, and commands are still found and killed by their tag and environment marker.
 */
final class Reaper {

    private static final Logger LOG = Logger.getLogger(Reaper.class.getName());
    private static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int WNOHANG = 1;
    /** How long an untagged zombie must have been one before it is taken for an orphan. */
    static final long LINGER_MILLIS = 1000;

    /** The C library calls used; declared with fixed arguments, which both Linux ABIs pass like varargs. */
    interface LibC extends Library {
        int prctl(int option, long arg2, long arg3, long arg4, long arg5);

        int waitpid(int pid, int[] status, int options);
    }

    private static final LibC LIBC = load();
    /** Guards {@link #leaders}, the start of every command, and every sweep. */
    private static final Object LOCK = new Object();
    /** Pids of the commands' leaders that the JDK has not yet reaped. */
    private static final Set<Long> leaders = new HashSet<>();
    /** Zombie children found by earlier sweeps and not reaped then, by pid and start time: when first found. */
    private static Map<List<Long>, Long> lingering = new HashMap<>();
    private static int users;

    private Reaper() {
    }

    private static LibC load() {
        try {
            return Native.load("c", LibC.class);
        } catch (LinkageError | RuntimeException unavailable) {
            LOG.log(Level.WARNING, "JNA cannot reach the C library here (" + unavailable
                    + "); the shell runs without a subreaper, so a process that escapes its command's session "
                    + "and environment is found only by its command tag", unavailable);
            return null;
        }
    }

    /**
     * Makes this JVM a subreaper for as long as one shell uses it.
     *
     * @return whether it is one
     */
    static boolean acquire() {
        synchronized (LOCK) {
            if (LIBC == null) {
                return false;
            }
            if (users == 0 && LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
                LOG.warning("prctl(PR_SET_CHILD_SUBREAPER) failed: error " + Native.getLastError()
                        + "; orphans of commands go to init");
                return false;
            }
            users++;
            return true;
        }
    }

    /** Whether this JVM is a subreaper now. */
    static boolean active() {
        synchronized (LOCK) {
            return users > 0;
        }
    }

    /**
     * Ends what {@link #acquire} started once no shell uses it: orphans re-parented later go to init,
     * which reaps them. Reaps what can be reaped now.
     */
    static void release() {
        synchronized (LOCK) {
            if (LIBC == null || users == 0) {
                return;
            }
            users--;
            if (users == 0) {
                LIBC.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
            }
        }
        sweep();
    }

    /**
     * Starts a command's leader, so that no sweep can see it end before it is known as one.
     */
    static Process start(ProcessBuilder builder) throws IOException {
        synchronized (LOCK) {
            Process process = builder.start();
            long pid = process.pid();
            leaders.add(pid);
            // the JDK completes onExit after it has reaped the process: from then on the pid is not our child
            process.onExit().whenComplete((ended, failure) -> {
                synchronized (LOCK) {
                    leaders.remove(pid);
                }
            });
            return process;
        }
    }

    /** Reaps the zombie children that are orphans, as the class comment says; cheap when there are none. */
    static void sweep() {
        if (LIBC == null) {
            return;
        }
        long self = ProcessHandle.current().pid();
        synchronized (LOCK) {
            long now = System.nanoTime();
            Map<List<Long>, Long> stillThere = new HashMap<>();
            for (Procs.Stat zombie : Procs.zombieChildren(self)) {
                List<Long> identity = List.of(zombie.pid(), zombie.startTicks());
                long found = lingering.getOrDefault(identity, now);
                boolean orphan = !leaders.contains(zombie.pid()) && (Marks.isTagged(zombie.pid())
                        || now - found >= TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS));
                if (!orphan || LIBC.waitpid((int) zombie.pid(), new int[1], WNOHANG) != zombie.pid()) {
                    stillThere.put(identity, found);
                }
            }
            lingering = stillThere;
        }
    }
}
