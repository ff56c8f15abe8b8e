package dev.quiver.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The secret files of one workspace ({@link dev.quiver.api.Workspace#isSecret}), ignored folders
 * included, kept up to date between commands without walking the whole tree again.
 *
 * <p>The first look walks every folder, through the walker's listings, which the search walks share
 * (a session's first search and first look run at the same time, and read each folder once between
 * them). Later looks read only each folder's modification time, which changes whenever an entry is
 * added, removed or renamed in it, and list again only the folders that changed. A folder that changed shortly before it was listed may change again within the same
 * timestamp tick, so it is listed again next time until its time is safely in the past (the
 * "racily clean" rule of git's index). On a tree of 100,000 files in 2,000 folders the first look
 * takes about a second, later ones about 5 ms (docs/benchmarks.md).
 */
final class SecretIndex {

    /** A folder whose modification time is this close to when it was listed is listed again. */
    private static final long RACY_MILLIS = 2000;

    private final Path root;
    private final Walker walker;
    private Map<Path, Folder> folders = new HashMap<>();

    private record Folder(FileTime modified, boolean racy, List<Path> secrets, List<Path> subfolders) {
    }

    /**
     * @param root the workspace's root
     * @param walker the workspace's walker, whose listings of the folders are shared with its searches
     */
    SecretIndex(Path root, Walker walker) {
        this.root = root;
        this.walker = walker;
    }

    /** Every secret file in the workspace now, in walk order. */
    synchronized List<Path> secrets() throws IOException {
        Map<Path, Folder> next = new HashMap<>(Math.max(16, folders.size() * 2));
        List<Path> secrets = new ArrayList<>();
        Deque<Path> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            if (Thread.currentThread().isInterrupted()) {
                // stopped (the idle warm-up's stop or budget): the folders listed so far stay in the walker's cache
                throw new java.io.InterruptedIOException("The look for secret files stopped: its thread was interrupted");
            }
            Path dir = pending.pop();
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException vanished) {
                continue;
            }
            if (!attributes.isDirectory()) {
                continue;
            }
            Folder known = folders.get(dir);
            Folder folder = known != null && !known.racy() && known.modified().equals(attributes.lastModifiedTime())
                    ? known : list(dir, attributes.lastModifiedTime());
            next.put(dir, folder);
            secrets.addAll(folder.secrets());
            for (int i = folder.subfolders().size() - 1; i >= 0; i--) {
                pending.push(folder.subfolders().get(i));
            }
        }
        folders = next;
        return secrets;
    }

    private Folder list(Path dir, FileTime modified) {
        Instant listed = Instant.now();
        List<Path> secrets = new ArrayList<>();
        List<Path> subfolders = new ArrayList<>();
        try {
            walker.secretsAndSubdirectories(dir, secrets, subfolders);
        } catch (IOException goneOrUnreadable) {
            // removed between the look at its time and the listing, or not readable: skipped, as the walks skip it
            secrets.clear();
            subfolders.clear();
        }
        boolean racy = modified.toMillis() > listed.toEpochMilli() - RACY_MILLIS;
        return new Folder(modified, racy, List.copyOf(secrets), List.copyOf(subfolders));
    }
}
