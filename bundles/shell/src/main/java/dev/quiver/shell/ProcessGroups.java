package dev.quiver.shell;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * Killing a command and everything it started: its process group (made by {@code setsid}), its
 * session, every descendant, and every process carrying one of the command's {@link Marks} (its
 * environment marker or its tag), which finds even a daemon that double-forked out of the session,
 * was re-parented away and cleared its environment. Killed orphans re-parented to this JVM are reaped
 * ({@link Reaper}).
 */
final class ProcessGroups {

    /** The environment variable every command and its descendants carry: {@code OWNER/ID}. */
    static final String MARKER = "QUIVER_SHELL_RUN";

    private static final long GONE_WAIT_MILLIS = 3000;
    /** How long processes get to end after SIGTERM before they are killed with SIGKILL. */
    static final long TERM_GRACE_MILLIS = 500;

    private ProcessGroups() {
    }

    /**
     * Kills what is left of a command whose leader is {@code leader} and waits until it is gone
     * (zombies count as gone). Cheap when the command left nothing behind.
     *
     * @param leader the process made by {@code setsid}: a process group and session of its own
     * @param since taken before the leader started, so only later processes are looked at
     * @param mark the marks the command was started with
     */
    static void kill(ProcessHandle leader, Procs.Since since, Marks.Mark mark) {
        killMatching(leader, since, pid -> Procs.hasEnvironment(pid, MARKER, mark.environment()::equals)
                || Marks.limit(pid).orElse(0) == mark.tag());
    }

    /**
     * Kills every process carrying a marker accepted by the predicate or a tag of the given owner, and
     * every member of the given process groups whose leader is still the recorded process, then waits
     * until they are gone.
     *
     * @param tagOwner the owner part of the commands' tags ({@link Marks#owner}); 0 when unknown
     */
    static int killLeftovers(Predicate<String> marker, long tagOwner, Map<Long, Long> leaderStarts) {
        boolean interrupted = Thread.interrupted();
        Map<Long, Procs.Stat> targets = new LinkedHashMap<>();
        List<Procs.Stat> processes = Procs.processes();
        long self = ProcessHandle.current().pid();
        for (Procs.Stat stat : processes) {
            // a leader's pid is only trusted with its start time: a reused pid belongs to someone else
            Long leaderStart = leaderStarts.get(stat.pid());
            boolean leader = leaderStart != null && leaderStart == stat.startTicks();
            if (stat.pid() != self && (leader || Procs.hasEnvironment(stat.pid(), MARKER, marker)
                    || tagOwner > 0 && Marks.owner(Marks.limit(stat.pid()).orElse(0)) == tagOwner)) {
                targets.put(stat.pid(), stat);
            }
        }
        for (Procs.Stat leader : List.copyOf(targets.values())) {
            if (leaderStarts.containsKey(leader.pid())) {
                for (Procs.Stat stat : processes) {
                    if (stat.pid() != self && (stat.pgid() == leader.pid() || stat.sid() == leader.pid())) {
                        targets.put(stat.pid(), stat);
                    }
                }
            }
        }
        if (targets.isEmpty()) {
            return 0;
        }
        for (Procs.Stat target : targets.values()) {
            if (!target.name().equals("bwrap")) {
                ProcessHandle.of(target.pid()).ifPresent(ProcessHandle::destroy);
            }
        }
        interrupted |= waitGone(targets.keySet(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERM_GRACE_MILLIS));
        destroy(targets.keySet());
        interrupted |= waitGone(targets.keySet(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GONE_WAIT_MILLIS));
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return targets.size();
    }

    private static void killMatching(ProcessHandle leader, Procs.Since since, LongPredicate marked) {
        // a cancelled caller's interrupt must not cut the wait short: it is restored at the end
        boolean interrupted = Thread.interrupted();
        try {
            // looked for before anything dies, while every descendant is still linked to its parent
            Map<Long, Procs.Stat> targets = find(leader, since, marked);
            if (targets.isEmpty()) {
                return;
            }
            // SIGTERM first, so that what can clean up does (git's index.lock, a profile's lock files);
            // bubblewrap itself is spared, since its death takes the whole sandbox down at once
            for (Procs.Stat target : targets.values()) {
                if (!target.name().equals("bwrap")) {
                    ProcessHandle.of(target.pid()).ifPresent(ProcessHandle::destroy);
                }
            }
            interrupted |= waitGone(targets.keySet(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERM_GRACE_MILLIS));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GONE_WAIT_MILLIS);
            while (true) {
                targets = find(leader, since, marked);
                if (targets.isEmpty()) {
                    return;
                }
                interrupted |= signalGroup(leader.pid());
                destroy(targets.keySet());
                interrupted |= waitGone(targets.keySet(), deadline);
                if (System.nanoTime() - deadline >= 0) {
                    return;
                }
            }
        } finally {
            Reaper.sweep();
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The leader while it runs, and the group and session members, descendants and marked processes that run. */
    private static Map<Long, Procs.Stat> find(ProcessHandle leader, Procs.Since since, LongPredicate marked) {
        List<Procs.Stat> processes = Procs.processes(since);
        Map<Long, Long> parents = new HashMap<>();
        for (Procs.Stat stat : processes) {
            parents.put(stat.pid(), stat.ppid());
        }
        long self = ProcessHandle.current().pid();
        long id = leader.pid();
        Map<Long, Procs.Stat> found = new LinkedHashMap<>();
        for (Procs.Stat stat : processes) {
            if (stat.pid() != self && (stat.pid() == id || stat.pgid() == id || stat.sid() == id
                    || descends(stat.pid(), id, parents) || marked.test(stat.pid()))) {
                found.put(stat.pid(), stat);
            }
        }
        if (leader.isAlive() && !found.containsKey(id)) {
            Procs.stat(id).ifPresent(stat -> found.put(id, stat));
        }
        return found;
    }

    private static boolean descends(long pid, long ancestor, Map<Long, Long> parents) {
        Long parent = parents.get(pid);
        for (int depth = 0; parent != null && depth < 1000; depth++) {
            if (parent == ancestor) {
                return true;
            }
            parent = parents.get(parent);
        }
        return false;
    }

    private static void destroy(Set<Long> pids) {
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** {@code kill -KILL -PGID}: the kernel signals every member at once, so none can fork away meanwhile. */
    private static boolean signalGroup(long pgid) {
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return waitQuietly(kill);
        } catch (IOException e) {
            // without kill(1) the members are still destroyed one by one
            return false;
        }
    }

    /** Waits for a short-lived process; returns whether an interrupt arrived meanwhile. */
    private static boolean waitQuietly(Process process) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GONE_WAIT_MILLIS);
        while (System.nanoTime() - deadline < 0) {
            try {
                if (process.waitFor(GONE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        return interrupted;
    }

    /** Waits until none runs or the deadline passes; returns whether an interrupt arrived meanwhile. */
    private static boolean waitGone(Set<Long> pids, long deadline) {
        // polled through /proc: a killed orphan may stay a zombie when the machine's init does not reap it
        boolean interrupted = false;
        for (long pid : pids) {
            while (Procs.running(pid) && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        return interrupted;
    }
}
