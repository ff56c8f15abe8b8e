package dev.quiver.shell;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 * reaped ({@code waitpid} on its pid, never {@code waitpid(-1)}) only when its real-time limit is a
 * command's, tag or not ({@link Marks.Origin}), and it is not the leader of a command (those the JDK
 * started and waits for), or when a sweep at least {@link #LINGER_MILLIS} earlier found it a zombie
 * already: a process the JDK waits for is reaped by the JDK as it ends, so one left a zombie that
 * long is an orphan no one else will reap (a grandchild of another bundle's process).
 *
 * <p>While this JVM is a subreaper a thread of its own sweeps every {@link #SWEEP_MILLIS}, so orphans
 * that end are reaped as they end, however many a command makes, and do not pile up as zombies until
 * something else sweeps. A sweep reads only the list of the main thread's children.
 *
 * <p>A sweep also kills escapees: a running child of this JVM that is not a command's leader, is
 * not in this JVM's session (the JDK starts its own helpers, an MCP server's process say, in it),
 * started after this JVM became a subreaper, and whose real-time limit is neither a tag nor this JVM's
 * own ({@link Marks.Origin#UNTAGGED}). Among this JVM's orphans only a command's process carries such
 * a limit: one that left its session, cleared its environment and reset its tag, so nothing of its
 * command finds it. A daemon that another bundle's process forks off (a {@code gpg-agent} a git
 * commit starts) carries this JVM's own limit and is left alone. The escapee, its process group and
 * its session are killed.
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
    /** How often the sweeper thread sweeps. */
    static final long SWEEP_MILLIS = 500;
    /** This JVM's session: the JDK's own children stay in it. */
    private static final long SESSION = Procs.stat(ProcessHandle.current().pid()).map(Procs.Stat::sid).orElse(-1L);

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
    /** Sweeps while this JVM is a subreaper. */
    private static ScheduledExecutorService sweeper;
    /** When this JVM last became a subreaper, in clock ticks since boot: no escapee started earlier. */
    private static long subreaperSince = Long.MAX_VALUE;

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
            if (users == 0) {
                subreaperSince = Procs.uptimeTicks();
                if (LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
                    LOG.warning("prctl(PR_SET_CHILD_SUBREAPER) failed: error " + Native.getLastError()
                            + "; orphans of commands go to init");
                    return false;
                }
                sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
                    Thread thread = new Thread(task, "quiver-shell-reaper");
                    thread.setDaemon(true);
                    return thread;
                });
                sweeper.scheduleWithFixedDelay(Reaper::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
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
                sweeper.shutdownNow();
                sweeper = null;
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

    /**
     * Reaps the zombie children that are orphans and kills the escapees, as the class comment says;
     * cheap when there are none.
     */
    static void sweep() {
        if (LIBC == null) {
            return;
        }
        Map<Long, Long> escapees = reap();
        if (!escapees.isEmpty()) {
            // killed outside the lock, which command starts wait for; the next sweep takes new ones
            int killed = ProcessGroups.killLeftovers(marker -> false, 0, escapees);
            if (killed > 0) {
                LOG.warning("Killed " + killed + " processes of commands that reset their command tag and left "
                        + "their session; escapees " + escapees.keySet());
            }
            reap();
        }
    }

    /** Reaps the orphans that ended; returns the escapees that run, by pid and start time. */
    private static Map<Long, Long> reap() {
        long self = ProcessHandle.current().pid();
        Map<Long, Long> escapees = new LinkedHashMap<>();
        synchronized (LOCK) {
            long now = System.nanoTime();
            Map<List<Long>, Long> stillThere = new HashMap<>();
            for (Procs.Stat child : Procs.orphans(self)) {
                if (leaders.contains(child.pid())) {
                    continue;
                }
                if (child.running()) {
                    if (child.sid() != SESSION && child.startTicks() >= subreaperSince
                            && Marks.origin(child.pid()) == Marks.Origin.UNTAGGED) {
                        escapees.put(child.pid(), child.startTicks());
                    }
                    continue;
                }
                List<Long> identity = List.of(child.pid(), child.startTicks());
                long found = lingering.getOrDefault(identity, now);
                boolean orphan = Marks.origin(child.pid()) != Marks.Origin.JVM
                        || now - found >= TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
                if (!orphan || LIBC.waitpid((int) child.pid(), new int[1], WNOHANG) != child.pid()) {
                    stillThere.put(identity, found);
                }
            }
            lingering = stillThere;
        }
        return escapees;
    }
}
