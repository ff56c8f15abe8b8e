package dev.quiver.kernel.checkpoint;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What each recorded file looked like when its content was stored, so that a checkpoint of an
 * unchanged file costs one {@code lstat} and no read: path → size, modification and change times,
 * inode, device, mode and the stored object. The change time cannot be set back by any program, so a
 * file rewritten in place with its old size and modification time restored still counts as changed.
 * An entry is trusted only when the file was last changed more than {@value #RACY_MILLIS} ms before
 * the entry was made (git's "racily clean" rule): a change within the file system's timestamp
 * granularity could otherwise hide. Kept in the store ({@code stat-cache}) for the next process and
 * shared by the processes of one workspace: every entry is true of the object it names, so whichever
 * process wrote the file last, an entry is at worst missing, which costs a read.
 */
final class StatCache {

    static final long RACY_MILLIS = 2000;
    private static final int MAGIC = 0x51564331; // "QVC1"

    /** A file as {@code lstat} saw it; times in nanoseconds since the epoch. */
    record Stat(long size, long modified, long changed, long inode, long device, int mode) {
    }

    /** A stored file: how it looked, what it holds, and when that was seen (epoch milliseconds). */
    record Known(Stat stat, ObjectId id, long seen) {

        /** Whether a file that looks like this now holds what was stored. */
        boolean matches(Stat now) {
            long trusted = (seen - RACY_MILLIS) * 1_000_000L;
            return stat.equals(now) && now.modified() < trusted && now.changed() < trusted;
        }
    }

    private final Path file;
    private final Map<String, Known> entries = new ConcurrentHashMap<>();
    /** The cache file as last read or written by this process; another process's write changes it. */
    private Object loaded;
    /** Entries put or forgotten since the file was last written (or read): none, and there is nothing to save. */
    private final java.util.concurrent.atomic.AtomicInteger unsaved = new java.util.concurrent.atomic.AtomicInteger();

    StatCache(Path file) {
        this.file = file;
    }

    Known get(String path) {
        return entries.get(path);
    }

    void put(String path, Known known) {
        entries.put(path, known);
        unsaved.incrementAndGet();
    }

    int unsaved() {
        return unsaved.get();
    }

    /** Forgets the files that are no longer listed. */
    void retain(java.util.Set<String> listed) {
        int before = entries.size();
        entries.keySet().retainAll(listed);
        unsaved.addAndGet(Math.max(0, before - entries.size()));
    }

    /** The objects the entries name, which a prune keeps. */
    java.util.Set<ObjectId> ids() {
        java.util.Set<ObjectId> ids = new java.util.HashSet<>();
        entries.values().forEach(known -> ids.add(known.id()));
        return ids;
    }

    /** Reads the cache file again when another process wrote it since; a damaged file is an empty cache. */
    synchronized void refresh() {
        Object now = stamp();
        if (Objects.equals(now, loaded)) {
            return;
        }
        entries.clear();
        unsaved.set(0);
        loaded = now;
        if (now == null) {
            return;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file,
                LinkOption.NOFOLLOW_LINKS), 64 * 1024))) {
            if (in.readInt() != MAGIC) {
                return;
            }
            int count = in.readInt();
            byte[] id = new byte[Constants.OBJECT_ID_LENGTH];
            for (int i = 0; i < count; i++) {
                byte[] path = new byte[in.readUnsignedShort()];
                in.readFully(path);
                Stat stat = new Stat(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt());
                in.readFully(id);
                entries.put(new String(path, StandardCharsets.UTF_8), new Known(stat, ObjectId.fromRaw(id), in.readLong()));
            }
        } catch (IOException | RuntimeException damaged) {
            // only a hint: a damaged or foreign file costs one read of every file, nothing more
            entries.clear();
        }
    }

    /** Writes the cache when it changed: a temporary file renamed over the old one. */
    synchronized void save() throws IOException {
        if (unsaved.get() == 0) {
            return;
        }
        Path temporary = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temporary,
                    java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE), 64 * 1024))) {
                out.writeInt(MAGIC);
                // no file system allows a longer path; one would never be cached, only read
                java.util.List<Map.Entry<String, Known>> kept = entries.entrySet().stream()
                        .filter(entry -> entry.getKey().length() <= 0x3FFF).toList();
                out.writeInt(kept.size());
                byte[] id = new byte[Constants.OBJECT_ID_LENGTH];
                for (Map.Entry<String, Known> entry : kept) {
                    byte[] path = entry.getKey().getBytes(StandardCharsets.UTF_8);
                    Known known = entry.getValue();
                    Stat stat = known.stat();
                    out.writeShort(path.length);
                    out.write(path);
                    out.writeLong(stat.size());
                    out.writeLong(stat.modified());
                    out.writeLong(stat.changed());
                    out.writeLong(stat.inode());
                    out.writeLong(stat.device());
                    out.writeInt(stat.mode());
                    known.id().copyRawTo(id, 0);
                    out.write(id);
                    out.writeLong(known.seen());
                }
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
        unsaved.set(0);
        loaded = stamp();
    }

    private Object stamp() {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return java.util.List.of(attributes.size(), attributes.lastModifiedTime(), String.valueOf(attributes.fileKey()));
        } catch (IOException missing) {
            return null;
        }
    }

}
