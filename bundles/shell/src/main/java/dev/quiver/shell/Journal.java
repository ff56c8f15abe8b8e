package dev.quiver.shell;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What this Quiver process has running, on disk, so that the next start can kill what a crash left.
 *
 * <p>One file per Quiver process in the state folder, named after the process's pid and start time
 * ({@code commands-PID-START.txt}), exists while that process runs commands. It holds the owner part
 * of the tags its commands carry ({@link Marks}) and lists each background command's process-group
 * leader by pid and start time. Every command, foreground or background, also carries the
 * environment marker {@code QUIVER_SHELL_RUN=PID.START/ID}. A file whose process no longer runs was
 * left by a crash: its leaders (only where pid and start time both still match, so a reused pid is
 * never touched), every process carrying its marker and every process carrying one of its tags are
 * killed. A tag is read from the process itself, so a pid reused since never carries it.
 *
 * <p>Whether the process still runs is told by an OS file lock, not by its pid: while the file
 * exists its process holds a lock on {@code commands-PID-START.lock} next to it, which the kernel
 * drops when the process dies, however it dies. A Quiver in another pid namespace sharing the state
 * folder (a container) has a pid that looks dead from here, but its lock is held, so its commands are
 * left alone. The locks are POSIX record locks ({@link FileChannel#tryLock}), which a process loses
 * when it closes any descriptor of the file, so this process never opens its own lock file twice.
 */
final class Journal {

    private static final Logger LOG = Logger.getLogger(Journal.class.getName());
    private static final Pattern FILE = Pattern.compile("commands-(\\d+)-(\\d+)\\.(txt|lock)");
    /** The lock files this process holds: a second shell of the same process in the same folder takes none. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();
    /** The line naming the owner part of the commands' tags: {@code tag OWNER}. */
    private static final String TAG = "tag";

    private final Path dir;
    private final Path file;
    private final Path lockFile;
    private final String owner;
    private final long tagOwner = Marks.newOwner();
    private final AtomicLong commands = new AtomicLong();
    private final Map<String, long[]> entries = new LinkedHashMap<>();
    private boolean broken;
    private boolean opened;
    /** The lock on {@link #lockFile} while this journal holds it. */
    private FileLock lock;

    /**
     * @param dir the state folder of the shell
     * @param ownerPid this process
     * @param ownerStart this process's start time in clock ticks
     */
    Journal(Path dir, long ownerPid, long ownerStart) {
        this.dir = dir;
        this.file = dir.resolve("commands-" + ownerPid + "-" + ownerStart + ".txt");
        this.lockFile = dir.resolve("commands-" + ownerPid + "-" + ownerStart + ".lock");
        this.owner = ownerPid + "." + ownerStart;
    }

    /** The marker prefix of this process's commands: {@code PID.START}. */
    String owner() {
        return owner;
    }

    /** The marks of a new command; {@code id} names it in the environment marker. */
    Marks.Mark mark(String id) {
        return new Marks.Mark(owner + "/" + id, Marks.tag(tagOwner, commands.incrementAndGet()));
    }

    /** Notes that a command runs; the file exists from the first one on. */
    synchronized void open() {
        if (!opened) {
            opened = true;
            hold();
            write();
        }
    }

    /** Records a background command's leader. */
    synchronized void add(String handle, long pid, long startTicks) {
        open();
        entries.put(handle, new long[] {pid, startTicks});
        write();
    }

    /** Forgets a background command that ended. */
    synchronized void remove(String handle) {
        if (entries.remove(handle) != null) {
            write();
        }
    }

    /** Removes the file and then its lock: nothing of this process runs any more. */
    synchronized void close() {
        entries.clear();
        if (!opened) {
            return;
        }
        opened = false;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not remove the shell journal " + file, e);
        }
        if (lock != null) {
            try (FileChannel channel = lock.channel()) {
                Files.deleteIfExists(lockFile);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "Could not remove the shell journal's lock " + lockFile, e);
            } finally {
                lock = null;
                HELD.remove(lockFile);
            }
        }
    }

    /** Takes the lock that tells other processes this journal is in use, before the journal exists. */
    private void hold() {
        if (broken || !HELD.add(lockFile)) {
            // another shell of this process holds it, which says the same
            return;
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = channel.tryLock();
            if (lock == null) {
                throw new IOException("another process holds it");
            }
        } catch (IOException e) {
            HELD.remove(lockFile);
            closeQuietly(channel);
            LOG.log(Level.WARNING, "Could not lock the shell journal's lock file " + lockFile + "; a Quiver in "
                    + "another pid namespace sharing this state folder may take this run for a crashed one", e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was written through it
            }
        }
    }

    private void write() {
        if (broken) {
            return;
        }
        StringBuilder text = new StringBuilder("# Quiver shell journal of process ").append(owner.replace('.', ' '))
                .append(" (pid, start ticks). Background commands: handle pid start-ticks\n")
                .append(TAG).append(' ').append(tagOwner).append('\n');
        for (Map.Entry<String, long[]> entry : entries.entrySet()) {
            text.append(entry.getKey()).append(' ').append(entry.getValue()[0]).append(' ').append(entry.getValue()[1])
                    .append('\n');
        }
        try {
            Files.createDirectories(dir);
            Path temporary = dir.resolve(file.getFileName() + ".tmp");
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // commands still run; a crash would then leave them to the marker scan of no one
            broken = true;
            LOG.log(Level.WARNING, "Could not write the shell journal " + file
                    + "; background commands of a crashed run will not be cleaned up", e);
        }
    }

    /**
     * Kills what crashed Quiver processes left running and removes their files. Files of processes
     * that still run, here or in another pid namespace (their lock is held), are left alone.
     *
     * @return how many processes were killed
     */
    static int cleanUp(Path dir) {
        // by name without extension: a journal, its lock, or a lock a crash left before its journal was written
        Set<String> runs = new TreeSet<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "commands-*")) {
            for (Path found : stream) {
                Matcher name = FILE.matcher(found.getFileName().toString());
                if (name.matches()) {
                    runs.add(name.group(1) + "-" + name.group(2));
                }
            }
        } catch (IOException noFolder) {
            return 0;
        }
        int killed = 0;
        for (String run : runs) {
            String[] fields = run.split("-");
            long pid = Long.parseLong(fields[0]);
            long start = Long.parseLong(fields[1]);
            // a process here that is that one: running; its lock file is not opened, for it may be this one's
            if (Procs.isSame(pid, start)) {
                continue;
            }
            Path journal = dir.resolve("commands-" + run + ".txt");
            Path lockFile = dir.resolve("commands-" + run + ".lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
                FileLock lock = channel.tryLock();
                if (lock == null) {
                    continue;
                }
                killed += cleanUp(journal, pid, start);
                Files.deleteIfExists(lockFile);
            } catch (NoSuchFileException noLock) {
                // a journal from before journals were locked, or whose lock could not be made
                killed += cleanUp(journal, pid, start);
            } catch (OverlappingFileLockException heldHere) {
                // another shell of this process holds it
            } catch (IOException e) {
                LOG.log(Level.WARNING, "Could not look at the shell journal's lock " + lockFile
                        + "; its commands are left alone", e);
            }
        }
        return killed;
    }

    /** Kills what the crashed process {@code pid} left, by its journal, and removes the journal. */
    private static int cleanUp(Path journal, long pid, long start) {
        if (!Files.exists(journal)) {
            return 0;
        }
        Map<Long, Long> leaders = new LinkedHashMap<>();
        long tagOwner = 0;
        try {
            for (String line : Files.readAllLines(journal, StandardCharsets.UTF_8)) {
                String[] fields = line.trim().split(" ");
                if (fields.length == 2 && fields[0].equals(TAG)) {
                    tagOwner = Long.parseLong(fields[1]);
                } else if (fields.length == 3 && !line.startsWith("#")) {
                    leaders.put(Long.parseLong(fields[1]), Long.parseLong(fields[2]));
                }
            }
        } catch (IOException | NumberFormatException unreadable) {
            LOG.log(Level.WARNING, "Unreadable shell journal " + journal + "; only its marker is used", unreadable);
        }
        String marker = pid + "." + start + "/";
        int count = ProcessGroups.killLeftovers(value -> value.startsWith(marker), tagOwner, leaders);
        if (count > 0) {
            LOG.warning("Killed " + count + " processes left running by Quiver process " + pid
                    + ", which ended without stopping them");
        }
        try {
            Files.deleteIfExists(journal);
            // what a crash in the middle of a write left
            Files.deleteIfExists(journal.resolveSibling(journal.getFileName() + ".tmp"));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not remove the shell journal " + journal, e);
        }
        return count;
    }
}
