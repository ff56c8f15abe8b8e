package dev.quiver.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 */
final class Journal {

    private static final Logger LOG = Logger.getLogger(Journal.class.getName());
    private static final Pattern FILE = Pattern.compile("commands-(\\d+)-(\\d+)\\.txt");
    /** The line naming the owner part of the commands' tags: {@code tag OWNER}. */
    private static final String TAG = "tag";

    private final Path dir;
    private final Path file;
    private final String owner;
    private final long tagOwner = Marks.newOwner();
    private final AtomicLong commands = new AtomicLong();
    private final Map<String, long[]> entries = new LinkedHashMap<>();
    private boolean broken;
    private boolean opened;

    /**
     * @param dir the state folder of the shell
     * @param ownerPid this process
     * @param ownerStart this process's start time in clock ticks
     */
    Journal(Path dir, long ownerPid, long ownerStart) {
        this.dir = dir;
        this.file = dir.resolve("commands-" + ownerPid + "-" + ownerStart + ".txt");
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
            write();
        }
    }

    /** Records a background command's leader. */
    synchronized void add(String handle, long pid, long startTicks) {
        opened = true;
        entries.put(handle, new long[] {pid, startTicks});
        write();
    }

    /** Forgets a background command that ended. */
    synchronized void remove(String handle) {
        if (entries.remove(handle) != null) {
            write();
        }
    }

    /** Removes the file: nothing of this process runs any more. */
    synchronized void close() {
        entries.clear();
        opened = false;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not remove the shell journal " + file, e);
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
     * that still run are left alone.
     *
     * @return how many processes were killed
     */
    static int cleanUp(Path dir) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "commands-*.txt")) {
            stream.forEach(files::add);
        } catch (IOException noFolder) {
            return 0;
        }
        int killed = 0;
        for (Path journal : files) {
            Matcher name = FILE.matcher(journal.getFileName().toString());
            if (!name.matches()) {
                continue;
            }
            long pid = Long.parseLong(name.group(1));
            long start = Long.parseLong(name.group(2));
            if (Procs.isSame(pid, start)) {
                continue;
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
            killed += count;
            try {
                Files.deleteIfExists(journal);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "Could not remove the shell journal " + journal, e);
            }
        }
        return killed;
    }
}
