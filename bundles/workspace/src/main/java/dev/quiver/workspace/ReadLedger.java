package dev.quiver.workspace;

import dev.quiver.api.FileReads;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link FileReads} of one workspace, opened per session: how each file looked when it was last read or written. */
final class ReadLedger implements FileReads {

    private final Workspace workspace;
    private final Map<Path, Stamp> stamps = new ConcurrentHashMap<>();

    /** A file as it was: its size and the digest of its content. */
    private record Stamp(long size, byte[] digest) {
        boolean same(Stamp other) {
            return size == other.size && Arrays.equals(digest, other.digest);
        }
    }

    ReadLedger(Workspace workspace) {
        this.workspace = workspace;
    }

    @Override
    public void read(Path file) {
        stamp(file).ifPresent(stamp -> stamps.put(key(file), stamp));
    }

    @Override
    public void wrote(Path file) {
        read(file);
    }

    @Override
    public void requireFresh(Path file) throws ToolException {
        if (!Files.exists(file)) {
            return; // a new file needs no read
        }
        String name = workspace.relativize(file);
        Stamp seen = stamps.get(key(file));
        if (seen == null) {
            throw new ToolException(name + " has not been read in this session. Read it with read_file first.");
        }
        java.util.Optional<Stamp> now = stamp(file);
        // the content decides: a rewrite of the same size within one timestamp tick keeps size and time
        if (now.isEmpty() || !now.get().same(seen)) {
            throw new ToolException(name + " changed since it was last read. Read it again before changing it.");
        }
    }

    private static Path key(Path file) {
        return file.toAbsolutePath().normalize();
    }

    /** The file's size and digest, read through the jail, as every file tool reads. */
    private java.util.Optional<Stamp> stamp(Path file) {
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            long size = 0;
            int read;
            while ((read = channel.read(buffer)) >= 0) {
                digest.update(buffer.array(), 0, read);
                size += read;
                buffer.clear();
            }
            return java.util.Optional.of(new Stamp(size, digest.digest()));
        } catch (IOException | NoSuchAlgorithmException e) {
            return java.util.Optional.empty();
        }
    }
}
