package dev.quiver.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.util.FS;

/**
 * The paths git tracks in a repository: its index, read with JGit. Git applies ignore rules to
 * untracked files only, so a file added with {@code git add -f} is listed although an ignore file
 * matches it, and an ignored folder still holds its tracked files; the walks ask this for every entry
 * the rules ignore, and for no other.
 *
 * <p>A {@link Snapshot} stands for the index file as one {@code stat} found it, and reads the file only
 * when first asked about a path: a tree that ignores nothing never pays for it (reading the index of
 * 15,000 files takes ~20 ms, and ~300 ms more the first time in a JVM, for loading JGit's index code).
 */
final class TrackedFiles {

    /** No repository, or no index yet: nothing is tracked. */
    static final Snapshot NONE = new Snapshot(null, List.of());

    private final Path index;
    private volatile Snapshot last = NONE;

    /** @param index the repository's index file, which may not exist; null outside a repository */
    TrackedFiles(Path index) {
        this.index = index;
    }

    /**
     * A tracked file's content as the index and HEAD record it (one entry when they agree), each at
     * most {@code maxBytes}; empty outside a repository, for an untracked file or an unreadable one.
     * Reads objects only: nothing here runs a hook or a filter.
     */
    List<byte[]> recorded(String path, int maxBytes) {
        if (index == null) {
            return List.of();
        }
        List<byte[]> versions = new java.util.ArrayList<>();
        try (org.eclipse.jgit.lib.Repository repository = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
                .setGitDir(index.getParent().toFile()).setMustExist(true).build();
                org.eclipse.jgit.lib.ObjectReader reader = repository.newObjectReader()) {
            java.util.Set<org.eclipse.jgit.lib.ObjectId> ids = new java.util.LinkedHashSet<>();
            org.eclipse.jgit.dircache.DirCacheEntry entry = plausible(index)
                    ? DirCache.read(index.toFile(), FS.DETECTED).getEntry(path) : null;
            if (entry != null) {
                ids.add(entry.getObjectId());
            }
            org.eclipse.jgit.lib.ObjectId head = repository.resolve("HEAD^{tree}");
            if (head != null) {
                try (org.eclipse.jgit.treewalk.TreeWalk walk = org.eclipse.jgit.treewalk.TreeWalk.forPath(reader, path, head)) {
                    if (walk != null) {
                        ids.add(walk.getObjectId(0));
                    }
                }
            }
            for (org.eclipse.jgit.lib.ObjectId id : ids) {
                org.eclipse.jgit.lib.ObjectLoader loader = reader.open(id, org.eclipse.jgit.lib.Constants.OBJ_BLOB);
                if (loader.getSize() <= maxBytes) {
                    versions.add(loader.getBytes());
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return versions; // what could be read; a broken repository has no more to tell
        }
        return versions;
    }

    /**
     * Whether an index file can hold the entries its header counts: each takes at least 62 bytes. A
     * planted 12-byte index that counts two billion would have JGit allocate for all of them.
     */
    static boolean plausible(Path index) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(index, LinkOption.NOFOLLOW_LINKS)) {
            byte[] header = in.readNBytes(12);
            if (header.length < 12) {
                return false;
            }
            long entries = java.nio.ByteBuffer.wrap(header, 8, 4).getInt() & 0xffffffffL;
            return entries * 62 <= Files.size(index);
        }
    }

    /** The index as a {@code stat} of it finds it now: the same snapshot while the file is unchanged. */
    Snapshot current() {
        if (index == null) {
            return NONE;
        }
        List<Object> stamp;
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(index, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            stamp = List.of(attributes.size(), attributes.lastModifiedTime(), String.valueOf(attributes.fileKey()));
        } catch (IOException noIndex) {
            return last = NONE;
        }
        Snapshot known = last;
        if (stamp.equals(known.stamp)) {
            return known;
        }
        return last = new Snapshot(index, stamp);
    }

    /** The index as one {@code stat} found it; its paths are read on the first question. */
    static final class Snapshot {
        private final Path index;
        private final List<Object> stamp;
        /** The tracked paths below the repository's top, in {@link Walker#NAME_ORDER}; null until read. */
        private volatile String[] paths;

        private Snapshot(Path index, List<Object> stamp) {
            this.index = index;
            this.stamp = stamp;
            this.paths = index == null ? new String[0] : null;
        }

        /** Whether git keeps this entry whatever the ignore rules say: a tracked file, a directory holding one. */
        boolean tracks(String path, boolean directory) {
            return directory ? holds(path) : has(path);
        }

        /** Whether the file (or link) at this path is tracked. */
        private boolean has(String path) {
            return Arrays.binarySearch(paths(), path, Walker.NAME_ORDER) >= 0;
        }

        /** Whether a tracked path lies below this directory (or is the directory itself: a submodule). */
        private boolean holds(String directory) {
            String[] tracked = paths();
            if (Arrays.binarySearch(tracked, directory, Walker.NAME_ORDER) >= 0) {
                return true;
            }
            String below = directory + "/";
            int at = Arrays.binarySearch(tracked, below, Walker.NAME_ORDER);
            int next = at >= 0 ? at : -at - 1;
            return next < tracked.length && tracked[next].startsWith(below);
        }

        private String[] paths() {
            String[] read = paths;
            if (read == null) {
                synchronized (this) {
                    read = paths;
                    if (read == null) {
                        paths = read = read(index);
                    }
                }
            }
            return read;
        }

        private static String[] read(Path index) {
            String[] paths;
            try {
                if (!plausible(index)) {
                    return new String[0];
                }
                DirCache cache = DirCache.read(index.toFile(), FS.DETECTED);
                paths = new String[cache.getEntryCount()];
                for (int i = 0; i < paths.length; i++) {
                    paths[i] = cache.getEntry(i).getPathString();
                }
            } catch (IOException | RuntimeException unreadable) {
                // a corrupt or half-written index: nothing counts as tracked in this snapshot
                return new String[0];
            }
            // the index sorts by bytes, which is code point order; entries in conflict appear once per stage
            Arrays.sort(paths, Walker.NAME_ORDER);
            return Arrays.stream(paths).distinct().toArray(String[]::new);
        }
    }
}
