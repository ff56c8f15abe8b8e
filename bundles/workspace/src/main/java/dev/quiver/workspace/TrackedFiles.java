package dev.quiver.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Objects;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.util.FS;

/**
 * The paths git tracks in a repository: its index, read with JGit. Git applies ignore rules to
 * untracked files only, so a file added with {@code git add -f} is listed although an ignore file
 * matches it, and an ignored folder still holds its tracked files; the walks ask this for every entry
 * the rules ignore, and for no other.
 *
 * <p>The index is read again only when its size, modification time or identity changed; a read that
 * finds the same paths keeps the previous {@link Snapshot}, so that a walk kept for reuse stays valid
 * after git merely refreshed the index's stat data (as {@code git status} does).
 */
final class TrackedFiles {

    /** No repository, or no index yet: nothing is tracked. */
    static final Snapshot NONE = new Snapshot(null, new String[0]);

    private final Path index;
    private volatile Snapshot last = NONE;

    /** @param index the repository's index file, which may not exist; null outside a repository */
    TrackedFiles(Path index) {
        this.index = index;
    }

    /**
     * The tracked paths, below the repository's top, in {@link Walker#NAME_ORDER}.
     *
     * @param stamp what the index file looked like when read
     */
    record Snapshot(Object stamp, String[] paths) {

        /** Whether the file (or link) at this path is tracked. */
        boolean has(String path) {
            return Arrays.binarySearch(paths, path, Walker.NAME_ORDER) >= 0;
        }

        /** Whether a tracked path lies below this directory (or is the directory itself: a submodule). */
        boolean holds(String directory) {
            int at = Arrays.binarySearch(paths, directory, Walker.NAME_ORDER);
            if (at >= 0) {
                return true;
            }
            String below = directory + "/";
            int from = Arrays.binarySearch(paths, below, Walker.NAME_ORDER);
            int next = from >= 0 ? from : -from - 1;
            return next < paths.length && paths[next].startsWith(below);
        }
    }

    /** The index as it is now: read again only when the file changed. */
    Snapshot current() {
        if (index == null) {
            return NONE;
        }
        Object stamp;
        try {
            BasicFileAttributes attributes = Files.readAttributes(index, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            stamp = Arrays.asList(attributes.size(), attributes.lastModifiedTime(), attributes.fileKey());
        } catch (IOException noIndex) {
            return last = NONE;
        }
        Snapshot known = last;
        if (Objects.equals(known.stamp(), stamp)) {
            return known;
        }
        String[] paths;
        try {
            DirCache cache = DirCache.read(index.toFile(), FS.DETECTED);
            paths = new String[cache.getEntryCount()];
            for (int i = 0; i < paths.length; i++) {
                paths[i] = cache.getEntry(i).getPathString();
            }
        } catch (IOException | RuntimeException unreadable) {
            // a corrupt or half-written index: nothing counts as tracked until it reads again
            return last = new Snapshot(null, new String[0]);
        }
        // the index sorts by bytes, which is code point order; entries in conflict appear once per stage
        Arrays.sort(paths, Walker.NAME_ORDER);
        paths = Arrays.stream(paths).distinct().toArray(String[]::new);
        Snapshot read = Arrays.equals(paths, known.paths()) ? new Snapshot(stamp, known.paths()) : new Snapshot(stamp, paths);
        last = read;
        return read;
    }
}
