package dev.quiver.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

/** Processes as Linux shows them in {@code /proc}: identity by pid and start time, state, environment markers. */
final class Procs {

    private static final Path PROC = Path.of("/proc");

    private Procs() {
    }

    /**
     * One line of {@code /proc/PID/stat}.
     *
     * @param pid the process id
     * @param state R, S, D, Z, ...
     * @param ppid the parent
     * @param pgid the process group
     * @param sid the session
     * @param startTicks when it started, in clock ticks since boot: with the pid, a process's identity
     * @param name the executable's name, as the kernel keeps it (at most 15 characters)
     */
    record Stat(long pid, char state, long ppid, long pgid, long sid, long startTicks, String name) {

        /** A zombie has ended; it waits only to be reaped (which the machine's init may never do). */
        boolean running() {
            return state != 'Z' && state != 'X';
        }
    }

    static Optional<Stat> stat(long pid) {
        String text;
        try {
            text = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException gone) {
            return Optional.empty();
        }
        // the command name is in parentheses and may itself contain spaces and parentheses
        int open = text.indexOf('(');
        int close = text.lastIndexOf(')');
        if (open < 0 || close < open) {
            return Optional.empty();
        }
        String[] fields = text.substring(close + 1).trim().split(" ");
        // fields[0] is field 3 of proc(5): state; then ppid, pgrp, session; starttime is field 22
        if (fields.length < 20 || fields[0].isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Stat(pid, fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[2]),
                    Long.parseLong(fields[3]), Long.parseLong(fields[19]), text.substring(open + 1, close)));
        } catch (NumberFormatException malformed) {
            return Optional.empty();
        }
    }

    /** The start time of a running process, empty when it is gone (or a zombie). */
    static OptionalLong startTicks(long pid) {
        Optional<Stat> stat = stat(pid);
        return stat.isPresent() && stat.get().running() ? OptionalLong.of(stat.get().startTicks()) : OptionalLong.empty();
    }

    /** Whether the process with this pid still runs and is the one that started at {@code startTicks}. */
    static boolean isSame(long pid, long startTicks) {
        OptionalLong now = startTicks(pid);
        return now.isPresent() && now.getAsLong() == startTicks;
    }

    /** Whether the process runs: a zombie counts as gone. */
    static boolean running(long pid) {
        return stat(pid).map(Stat::running).orElse(false);
    }

    /**
     * A point in the machine's process history: the last pid handed out, the number of processes
     * created since boot, and the time since boot in clock ticks (the unit of {@link Stat#startTicks}).
     * Processes started after it have higher pids, unless the pid counter wrapped, which cannot have
     * happened while fewer processes were created than pids remained; and they have later start times.
     *
     * @param ticks a second before now, counted at 100 ticks a second (Linux's USER_HZ; a kernel with
     *     more ticks a second only makes this earlier, so no later process is missed)
     */
    record Since(long lastPid, long forks, long ticks) {

        /** Now. */
        static Since now() {
            return new Since(Procs.lastPid(), Procs.forks(), Procs.uptimeTicks() - 100);
        }

        /** Whether a process may have started after this point. */
        boolean mayHaveStarted(Stat stat) {
            return ticks <= 0 || stat.startTicks() >= ticks;
        }
    }

    /** Every running process. */
    static List<Stat> processes() {
        return processes(0);
    }

    /** The running processes that may have started after {@code since} (more, never fewer). */
    static List<Stat> processes(Since since) {
        long created = forks() - since.forks();
        long last = lastPid();
        boolean wrapped = since.lastPid() <= 0 || since.forks() <= 0 || created < 0 || last < since.lastPid()
                || created >= pidMax() - since.lastPid();
        // without a wrap, every pid handed out since lies between the last pid then and the last pid now
        List<Stat> found = wrapped ? processes(0, Long.MAX_VALUE, true) : processes(since.lastPid(), last, true);
        found.removeIf(stat -> !since.mayHaveStarted(stat));
        return found;
    }

    private static List<Stat> processes(long floor) {
        return processes(floor, Long.MAX_VALUE, true);
    }

    /** The processes with a pid above {@code floor} and at most {@code ceiling}; only running ones if asked. */
    private static List<Stat> processes(long floor, long ceiling, boolean onlyRunning) {
        List<Stat> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
            for (Path entry : entries) {
                long pid = pidOf(entry.getFileName().toString());
                if (pid > floor && pid <= ceiling) {
                    stat(pid).filter(stat -> !onlyRunning || stat.running()).ifPresent(found::add);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // without /proc only the processes we hold handles for can be found
        }
        return found;
    }

    /**
     * The children of this JVM's main thread, running and zombies: the orphans re-parented to it. The
     * kernel hands an orphan to a subreaper's first live thread, the main one, which in the {@code java}
     * launcher never starts a process itself. Without {@code /proc/PID/task/TID/children} (a kernel
     * built without it) every child of the process is looked at.
     */
    static List<Stat> orphans(long self) {
        List<Stat> found = new ArrayList<>();
        Path task = PROC.resolve(Long.toString(self)).resolve("task").resolve(Long.toString(self)).resolve("children");
        try {
            for (String pid : Files.readString(task, StandardCharsets.ISO_8859_1).trim().split(" ")) {
                if (!pid.isEmpty()) {
                    stat(pidOf(pid)).ifPresent(found::add);
                }
            }
            return found;
        } catch (IOException | RuntimeException noChildrenFile) {
            // looked for among all processes below
        }
        for (Stat stat : processes(0, Long.MAX_VALUE, false)) {
            if (stat.ppid() == self) {
                found.add(stat);
            }
        }
        return found;
    }

    /** Whether the process's environment holds {@code name=value} with a value the predicate accepts. */
    static boolean hasEnvironment(long pid, String name, Predicate<String> value) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | RuntimeException unreadable) {
            return false;
        }
        String prefix = name + "=";
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == 0) {
                if (i - start > prefix.length()) {
                    String entry = new String(bytes, start, i - start, StandardCharsets.ISO_8859_1);
                    if (entry.startsWith(prefix) && value.test(entry.substring(prefix.length()))) {
                        return true;
                    }
                }
                start = i + 1;
            }
        }
        return false;
    }

    private static long lastPid() {
        return number(PROC.resolve("sys/kernel/ns_last_pid"));
    }

    /** Seconds since boot from /proc/uptime, in hundredths (the unit of {@link Stat#startTicks}); 0 when unknown. */
    static long uptimeTicks() {
        try {
            String uptime = Files.readString(PROC.resolve("uptime"), StandardCharsets.ISO_8859_1).trim().split(" ")[0];
            return (long) (Double.parseDouble(uptime) * 100);
        } catch (IOException | RuntimeException unknown) {
            return 0;
        }
    }

    private static long pidMax() {
        long max = number(PROC.resolve("sys/kernel/pid_max"));
        return max > 0 ? max : 32768;
    }

    /** The "processes" line of /proc/stat: forks since boot. */
    private static long forks() {
        try (var lines = Files.lines(PROC.resolve("stat"), StandardCharsets.ISO_8859_1)) {
            return lines.filter(line -> line.startsWith("processes ")).findFirst()
                    .map(line -> Long.parseLong(line.substring("processes ".length()).trim())).orElse(0L);
        } catch (IOException | RuntimeException unknown) {
            return 0;
        }
    }

    private static long number(Path file) {
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | RuntimeException unknown) {
            return 0;
        }
    }

    private static long pidOf(String name) {
        if (name.isEmpty() || name.length() > 10) {
            return -1;
        }
        long pid = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            pid = pid * 10 + (c - '0');
        }
        return pid;
    }
}
