package dev.quiver.kernel.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Git objects in git's loose format ({@code objects/ab/cdef...}: the zlib-deflated {@code "blob 12\0"}
 * header and content, named by its SHA-1), written and read here rather than through a JGit
 * repository: opening one reads the user's and the system's git configuration, and finding the
 * latter starts {@code git} from the {@code PATH}, which a checkpoint before every command must not
 * do. Objects are written to a temporary file and renamed into place, so a reader never sees half of
 * one; every read checks the object's hash, so a damaged file is reported, never restored.
 */
final class LooseObjects {

    /** Objects at most this large are hashed in memory before anything is written. */
    private static final int IN_MEMORY = 256 * 1024;

    /** One compressor a thread, reset for each object: making one costs more than deflating a small file. */
    private static final ThreadLocal<Deflater> DEFLATERS = ThreadLocal.withInitial(() -> new Deflater(Deflater.BEST_SPEED));
    private static final AtomicLong TEMPORARIES = new AtomicLong();

    private final Path folder;
    /** Objects this process wrote or found, so a tree that did not change costs no look at the disk. */
    private final Set<ObjectId> present = ConcurrentHashMap.newKeySet();
    /** The fan-out folders ({@code objects/ab}) known to exist, each made once. */
    private final Set<String> folders = ConcurrentHashMap.newKeySet();

    /** The folder's identity when {@link #present} was last known to hold; null before. */
    private Object identity;

    /** Makes the store around the objects folder, or refuses one that is not a plain folder. */
    interface Store {
        void make() throws IOException;
    }

    private final Store store;

    /**
     * @param folder the store's {@code objects} folder
     * @param store made before the first object is written
     */
    LooseObjects(Path folder, Store store) {
        this.folder = folder;
        this.store = store;
    }

    Path folder() {
        return folder;
    }

    /**
     * Whether the folder was removed or replaced since last asked (someone deleted the store), or pruned:
     * what this process remembers as stored is then forgotten, so the next checkpoint writes it again.
     */
    synchronized boolean replaced() {
        Object now;
        try {
            Object key = Files.readAttributes(folder, java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
            // a prune (in any process) rewrites this file: what it removed is no longer stored
            Path pruned = folder.resolveSibling(CheckpointStore.PRUNED);
            now = java.util.List.of(key, Files.exists(pruned) ? Files.getLastModifiedTime(pruned) : "never");
        } catch (IOException missing) {
            now = null;
        }
        boolean replaced = identity != null && !identity.equals(now);
        if (replaced || now == null) {
            present.clear();
            folders.clear();
        }
        identity = now;
        return replaced;
    }

    /** Where an object's file is. */
    Path file(ObjectId id) {
        String name = id.name();
        return folder.resolve(name.substring(0, 2)).resolve(name.substring(2));
    }

    /**
     * Stores an object held in memory; its id.
     *
     * @throws StoreWriteFailed when the store cannot be written
     */
    ObjectId insert(int type, byte[] content) throws StoreWriteFailed {
        MessageDigest digest = sha1();
        digest.update(header(type, content.length));
        digest.update(content);
        ObjectId id = ObjectId.fromRaw(digest.digest());
        if (present.contains(id) || freshen(id)) {
            present.add(id);
            return id;
        }
        ByteArrayOutputStream deflated = new ByteArrayOutputStream(content.length / 2 + 64);
        try (OutputStream out = deflating(deflated, 8 * 1024)) {
            out.write(header(type, content.length));
            out.write(content);
        } catch (IOException inMemory) {
            throw new IllegalStateException(inMemory);
        }
        try {
            Path temporary = temporary();
            try {
                Files.write(temporary, deflated.toByteArray(), java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE);
                place(temporary, id);
            } finally {
                discard(temporary);
            }
        } catch (IOException e) {
            throw new StoreWriteFailed(e);
        }
        present.add(id);
        return id;
    }

    /**
     * Stores a blob read from a channel, expected to hold {@code size} bytes; large ones are streamed
     * through a temporary file rather than held in memory. An error reading the channel is thrown as
     * it came; one writing the store as {@link StoreWriteFailed}.
     *
     * @throws ChangedWhileReading when the channel held more or fewer bytes: the file changed meanwhile
     */
    ObjectId insertBlob(SeekableByteChannel channel, long size) throws IOException {
        if (size <= IN_MEMORY) {
            byte[] content = readExactly(channel, (int) size);
            return insert(Constants.OBJ_BLOB, content);
        }
        MessageDigest digest = sha1();
        byte[] header = header(Constants.OBJ_BLOB, size);
        digest.update(header);
        Path temporary;
        OutputStream out;
        try {
            temporary = temporary();
            out = deflating(Files.newOutputStream(temporary, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE), 64 * 1024);
        } catch (IOException e) {
            throw new StoreWriteFailed(e);
        }
        try {
            long read = 0;
            try {
                write(out, header, header.length);
                ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                int n;
                while ((n = channel.read(buffer)) >= 0) {
                    read += n;
                    if (read > size) {
                        throw new ChangedWhileReading();
                    }
                    digest.update(buffer.array(), 0, n);
                    write(out, buffer.array(), n);
                    buffer.clear();
                }
            } catch (IOException e) {
                // a read error, a changed file or a failed write, each passed on as it is
                try {
                    out.close();
                } catch (IOException ignored) {
                    // the first error is the one to report
                }
                throw e;
            }
            try {
                out.close();
            } catch (IOException e) {
                throw new StoreWriteFailed(e);
            }
            if (read != size) {
                throw new ChangedWhileReading();
            }
            ObjectId id = ObjectId.fromRaw(digest.digest());
            try {
                if (!present.contains(id) && !freshen(id)) {
                    place(temporary, id);
                }
            } catch (IOException e) {
                throw new StoreWriteFailed(e);
            }
            present.add(id);
            return id;
        } finally {
            discard(temporary);
        }
    }

    /** Removes a temporary file that was not renamed into place; one that cannot be removed is left. */
    private static void discard(Path temporary) {
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
            // the store's own error, if any, is the one reported
        }
    }

    private static void write(OutputStream out, byte[] bytes, int length) throws StoreWriteFailed {
        try {
            out.write(bytes, 0, length);
        } catch (IOException e) {
            throw new StoreWriteFailed(e);
        }
    }

    /** The store could not be written (a full disk, a folder made read-only): the checkpoint fails, not one file. */
    static final class StoreWriteFailed extends IOException {
        private static final long serialVersionUID = 1L;

        StoreWriteFailed(IOException cause) {
            super(Snapshotter.reason(cause), cause);
        }
    }

    /** A file that held a different number of bytes than its size said when it was read. */
    static final class ChangedWhileReading extends IOException {
        private static final long serialVersionUID = 1L;

        ChangedWhileReading() {
            super("it changed while it was being recorded");
        }
    }

    private static byte[] readExactly(SeekableByteChannel channel, int size) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(size + 1);
        while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
            // until one byte more than expected, or the end
        }
        if (buffer.position() != size) {
            throw new ChangedWhileReading();
        }
        return java.util.Arrays.copyOf(buffer.array(), size);
    }

    /**
     * Whether the object is stored; if so its time is set to now, as git does, so that pruning (which
     * spares recent objects) never removes one a checkpoint being made is about to name.
     */
    private boolean freshen(ObjectId id) {
        // false when it is missing, without the cost of an exception for every new object
        return file(id).toFile().setLastModified(System.currentTimeMillis());
    }

    /** Deflates into {@code out} with this thread's compressor; closing finishes it and closes {@code out}. */
    private static OutputStream deflating(OutputStream out, int buffer) {
        Deflater deflater = DEFLATERS.get();
        deflater.reset();
        return new DeflaterOutputStream(out, deflater, buffer);
    }

    private Path temporary() throws IOException {
        if (!folders.contains("")) {
            store.make();
        }
        made("", folder);
        return folder.resolve("tmp_obj_" + ProcessHandle.current().pid() + "_" + TEMPORARIES.incrementAndGet());
    }

    /** Makes a folder of the store unless known made: marked only once made, as other threads may be writing. */
    private void made(String key, Path folder) throws IOException {
        if (!folders.contains(key)) {
            Files.createDirectories(folder);
            folders.add(key);
        }
    }

    private void place(Path temporary, ObjectId id) throws IOException {
        Path target = file(id);
        made(id.name().substring(0, 2), target.getParent());
        try {
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException written) {
            // another process stored the same object meanwhile: its content is the same by its name
        }
    }

    /**
     * Reads an object whole, checking its type, its size against {@code maxBytes} and its hash.
     *
     * @throws StoreDamaged when it is missing, cannot be inflated, or is not what its name says
     */
    byte[] read(ObjectId id, int type, long maxBytes) throws IOException {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        read(id, type, maxBytes, content);
        return content.toByteArray();
    }

    /** Reads an object into a stream, with the checks of {@link #read(ObjectId, int, long)}. */
    void read(ObjectId id, int type, long maxBytes, OutputStream content) throws IOException {
        MessageDigest digest = sha1();
        Inflater inflater = new Inflater();
        try (InputStream in = new InflaterInputStream(Files.newInputStream(file(id)), inflater, 64 * 1024)) {
            String header = header(in);
            int space = header.indexOf(' ');
            String word = space < 0 ? header : header.substring(0, space);
            long size;
            try {
                size = Long.parseLong(header.substring(space + 1));
            } catch (RuntimeException e) {
                throw new StoreDamaged(id, "has a header that is not git's");
            }
            if (!word.equals(Constants.typeString(type))) {
                throw new StoreDamaged(id, "is a " + word + ", not a " + Constants.typeString(type));
            }
            if (size < 0 || size > maxBytes) {
                throw new StoreDamaged(id, "says it holds " + size + " bytes, more than the " + maxBytes + " expected");
            }
            digest.update(header(type, size));
            byte[] buffer = new byte[64 * 1024];
            long left = size;
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    throw new StoreDamaged(id, "ends early");
                }
                digest.update(buffer, 0, n);
                content.write(buffer, 0, n);
                left -= n;
            }
            if (in.read() >= 0) {
                throw new StoreDamaged(id, "holds more than its header says");
            }
        } catch (NoSuchFileException e) {
            throw new StoreDamaged(id, "is missing");
        } catch (java.util.zip.ZipException | EOFException e) {
            throw new StoreDamaged(id, "cannot be inflated (" + e.getMessage() + ")");
        } finally {
            inflater.end();
        }
        if (!ObjectId.fromRaw(digest.digest()).equals(id)) {
            throw new StoreDamaged(id, "holds content that does not match its name");
        }
    }

    private static String header(InputStream in) throws IOException {
        StringBuilder header = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("no header");
            }
            if (c == 0) {
                return header.toString();
            }
            header.append((char) c);
        }
        throw new java.util.zip.ZipException("header too long");
    }

    private static byte[] header(int type, long size) {
        return (Constants.typeString(type) + " " + size + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    static MessageDigest sha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An object of the store that cannot be used: missing, not inflatable, or not what its name says. */
    static final class StoreDamaged extends IOException {
        private static final long serialVersionUID = 1L;

        StoreDamaged(ObjectId id, String what) {
            this("object " + id.name() + " " + what);
        }

        StoreDamaged(String message) {
            super(message);
        }
    }
}
