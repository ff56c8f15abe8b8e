package dev.quiver.kernel.checkpoint;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.TreeFormatter;

/**
 * Records the workspace's files as a git tree: the files its ignore-aware listing gives
 * ({@link Workspace#files}, which never walks {@code .git} and leaves out what git ignores, links to
 * folders, links leading out of the workspace or to secrets, pipes, sockets and devices). Every file
 * is looked at with one {@code lstat}, on all cores; only a file that is new or changed since the
 * {@link StatCache} saw it is read, through the workspace's jail. A link is recorded as a link (its
 * text), never followed. What is not recorded is named with the reason, never left out silently: a
 * file over the size limit, one that cannot be read, and what is left when a checkpoint's budget of
 * new bytes or time is spent.
 */
final class Snapshotter {

    /**
     * What one checkpoint takes on at most: files larger than {@code fileBytes} are not stored, a
     * listing is cut at {@code files}, and new content is read up to {@code bytes} and {@code time}.
     */
    record Limits(long fileBytes, int files, long bytes, Duration time) {

        static final Limits DEFAULT = new Limits(50L << 20, 100_000, 512L << 20, Duration.ofSeconds(30));

        static String describe(long bytes) {
            return bytes >= 1 << 20 ? (bytes >> 20) + " MB" : bytes + " bytes";
        }
    }

    /**
     * The workspace as recorded.
     *
     * @param tree the files, as a git tree
     * @param skipped files that exist but are not in the tree, with why
     * @param truncated whether the listing was longer than the limit, so that a path missing from the
     *     tree may exist all the same
     * @param files how many files the tree holds
     */
    record Snapshot(ObjectId tree, SortedMap<String, String> skipped, boolean truncated, int files) {
    }

    private static final String ATTRIBUTES = "unix:size,lastModifiedTime,ctime,ino,dev,mode";
    private static final int TYPE_MASK = 0170000;
    private static final int REGULAR = 0100000;
    private static final int LINK = 0120000;
    private static final int CHUNK = 256;
    private static final java.util.regex.Pattern GIT_NAME = java.util.regex.Pattern.compile("(^|/)\\.git(/|$)",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    private final Workspace workspace;
    private final Path root;
    private final LooseObjects objects;
    private final StatCache cache;
    private final Limits limits;
    /** How many files' contents were read; for tests. */
    final AtomicLong filesRead = new AtomicLong();

    /** The last snapshot and what it was made of, for the next when nothing changed. */
    private List<String> lastListed;
    private ObjectId[] lastIds;
    private int[] lastModes;
    private int[] lastOrder;
    private Path[] lastPaths;
    /** The tree of every folder of the last snapshot, by its path with a trailing slash. */
    private Map<String, ObjectId> lastFolders = new HashMap<>();
    private Snapshot last;

    Snapshotter(Workspace workspace, LooseObjects objects, StatCache cache, Limits limits) {
        this.workspace = workspace;
        this.root = workspace.root();
        this.objects = objects;
        this.cache = cache;
        this.limits = limits;
    }

    Limits limits() {
        return limits;
    }

    /** One pass over the listed files, filled in place by the stat and read passes. */
    private final class Pass {
        final List<String> listed;
        final int count;
        final long started = System.currentTimeMillis();
        final long deadline = System.nanoTime() + limits.time().toNanos();
        final AtomicLong budget = new AtomicLong(limits.bytes());
        final ObjectId[] ids;
        /** The git mode of each file; 0 when it is not recorded. */
        final int[] modes;
        final StatCache.Stat[] unknown;
        final String[] skipped;
        /** Each file's path, kept from the last pass when the listing is the same one. */
        final Path[] paths;

        Pass(List<String> listed) {
            this.listed = listed;
            this.count = Math.min(listed.size(), limits.files());
            this.paths = listed == lastListed && lastPaths != null ? lastPaths : new Path[count];
            this.ids = new ObjectId[count];
            this.modes = new int[count];
            this.unknown = new StatCache.Stat[count];
            this.skipped = new String[count];
        }

        void look(int i) {
            String path = listed.get(i);
            if (paths[i] == null) {
                paths[i] = root.resolve(path);
            }
            Map<String, Object> attributes;
            try {
                attributes = Files.readAttributes(paths[i], ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException gone) {
                return; // removed since the listing: not there
            } catch (IOException e) {
                skipped[i] = "it could not be looked at (" + reason(e) + ")";
                return;
            }
            int mode = (Integer) attributes.get("mode");
            int type = mode & TYPE_MASK;
            if (type != REGULAR && type != LINK) {
                return; // no longer a file (a folder or a pipe took its place): not one to record
            }
            StatCache.Stat stat = new StatCache.Stat((Long) attributes.get("size"),
                    ((FileTime) attributes.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS),
                    ((FileTime) attributes.get("ctime")).to(TimeUnit.NANOSECONDS),
                    (Long) attributes.get("ino"), (Long) attributes.get("dev"), mode);
            modes[i] = type == LINK ? FileMode.TYPE_SYMLINK
                    : (mode & 0100) != 0 ? FileMode.EXECUTABLE_FILE.getBits() : FileMode.REGULAR_FILE.getBits();
            StatCache.Known known = cache.get(path);
            if (known != null && known.matches(stat)) {
                ids[i] = known.id(); // never such a name: those are never cached
            } else if (GIT_NAME.matcher(path).find()) {
                // git refuses the name in a tree (a file system that folds case reads it as .git)
                modes[i] = 0;
                skipped[i] = "git records nothing named .git, in any case";
            } else {
                unknown[i] = stat;
            }
        }

        /**
         * Reads the files of one folder: through the folder held open when there are several, which
         * opens each by name instead of walking its path from the root again.
         */
        void readFolder(String folder, List<Integer> files) {
            if (files.size() == 1) {
                read(files.get(0), null);
                return;
            }
            try (Workspace.Folder held = workspace.openFolder(folder.isEmpty() ? root : root.resolve(folder))) {
                files.forEach(i -> read(i, held));
            } catch (IOException e) {
                // the folder changed under us: each file the long way, which says what is wrong with it
                files.stream().filter(i -> ids[i] == null && skipped[i] == null).forEach(i -> read(i, null));
            }
        }

        void read(int i, Workspace.Folder folder) {
            String path = listed.get(i);
            StatCache.Stat stat = unknown[i];
            Path file = paths[i];
            ObjectId id;
            try {
                if ((stat.mode() & TYPE_MASK) == LINK) {
                    // the link's own text, never what it leads to
                    id = objects.insert(Constants.OBJ_BLOB, Files.readSymbolicLink(file).toString()
                            .getBytes(StandardCharsets.UTF_8));
                } else if (stat.size() > limits.fileBytes()) {
                    skip(i, "it is over " + Limits.describe(limits.fileBytes()));
                    return;
                } else if (System.nanoTime() > deadline) {
                    skip(i, "the checkpoint ran out of its " + limits.time().toSeconds() + " s for reading new files");
                    return;
                } else if (budget.addAndGet(-stat.size()) < 0) {
                    skip(i, "the checkpoint had already read its " + Limits.describe(limits.bytes()) + " of new content");
                    return;
                } else {
                    filesRead.incrementAndGet();
                    try (SeekableByteChannel channel = folder != null ? folder.openRead(file.getFileName().toString())
                            : workspace.openRead(file)) {
                        id = objects.insertBlob(channel, stat.size());
                    }
                }
            } catch (LooseObjects.StoreWriteFailed e) {
                throw new StoreFailure(e);
            } catch (LooseObjects.ChangedWhileReading e) {
                skip(i, e.getMessage());
                return;
            } catch (NoSuchFileException gone) {
                modes[i] = 0;
                return;
            } catch (IOException e) {
                skip(i, "it could not be read (" + reason(e) + ")");
                return;
            }
            ids[i] = id;
            cache.put(path, new StatCache.Known(stat, id, started));
        }

        private void skip(int i, String why) {
            modes[i] = 0;
            skipped[i] = why;
        }
    }

    /** A failure of the store itself rather than of one file: the checkpoint fails. */
    static final class StoreFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StoreFailure(IOException cause) {
            super(cause);
        }
    }

    /**
     * Records the workspace now.
     *
     * @throws IOException when the workspace cannot be listed or the store cannot be written
     */
    synchronized Snapshot take() throws IOException {
        if (objects.replaced()) {
            last = null; // its trees went with the old store
            lastListed = null;
        }
        cache.refresh();
        List<String> listed = workspace.files(root, false);
        Pass pass = new Pass(listed);
        int chunks = (pass.count + CHUNK - 1) / CHUNK;
        IntStream.range(0, chunks).parallel().forEach(chunk -> {
            for (int i = chunk * CHUNK, end = Math.min(pass.count, i + CHUNK); i < end; i++) {
                pass.look(i);
            }
        });
        Map<String, List<Integer>> toRead = new LinkedHashMap<>();
        for (int i = 0; i < pass.count; i++) {
            if (pass.unknown[i] != null) {
                String path = listed.get(i);
                toRead.computeIfAbsent(path.substring(0, Math.max(0, path.lastIndexOf('/'))), folder -> new ArrayList<>())
                        .add(i);
            }
        }
        try {
            toRead.entrySet().parallelStream().forEach(folder -> pass.readFolder(folder.getKey(), folder.getValue()));
        } catch (StoreFailure e) {
            throw (IOException) e.getCause();
        }
        SortedMap<String, String> skipped = new TreeMap<>();
        for (int i = 0; i < pass.count; i++) {
            if (pass.skipped[i] != null) {
                skipped.put(listed.get(i), pass.skipped[i]);
            }
        }
        boolean truncated = listed.size() > pass.count;
        if (last != null && listed == lastListed && skipped.isEmpty() && !truncated
                && Arrays.equals(pass.ids, lastIds) && Arrays.equals(pass.modes, lastModes)) {
            return last; // the same files, each as it was: the same tree
        }
        if (listed != lastListed) {
            cache.retain(new HashSet<>(listed.subList(0, pass.count)));
        }
        boolean sameListing = listed == lastListed && lastOrder != null;
        int[] order = sameListing ? lastOrder : gitOrder(listed, pass.count);
        ObjectId tree = tree(listed, order, pass, sameListing ? changedFolders(listed, pass) : null);
        int files = (int) Arrays.stream(pass.modes).filter(mode -> mode != 0).count();
        last = new Snapshot(tree, Collections.unmodifiableSortedMap(skipped), truncated, files);
        lastListed = listed;
        lastIds = pass.ids;
        lastModes = pass.modes;
        lastOrder = order;
        lastPaths = pass.paths;
        return last;
    }

    /**
     * Saves the stat cache for the next process (under the store's lock): at the end of a turn, or when
     * many files were read since it was saved; writing it costs more than the few reads it spares.
     */
    void saveCache(boolean endOfTurn) throws IOException {
        if (endOfTurn || cache.unsaved() > 1000) {
            cache.save();
        }
    }

    /** Whether the stat cache holds what its file does not. */
    boolean cacheUnsaved() {
        return cache.unsaved() > 0;
    }

    /** The objects the stat cache names, which the next checkpoint may name without storing them again. */
    java.util.Set<ObjectId> cached() {
        return cache.ids();
    }

    /** The indexes of the listed files in git's order: by the bytes of their UTF-8 paths. */
    private static int[] gitOrder(List<String> listed, int count) {
        byte[][] bytes = new byte[count][];
        for (int i = 0; i < count; i++) {
            bytes[i] = listed.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return IntStream.range(0, count).boxed().sorted((a, b) -> Arrays.compareUnsigned(bytes[a], bytes[b]))
                .mapToInt(Integer::intValue).toArray();
    }

    /** The folders (with a trailing slash) holding a file that differs from the last pass over the same listing. */
    private Set<String> changedFolders(List<String> listed, Pass pass) {
        Set<String> changed = new HashSet<>();
        for (int i = 0; i < pass.count; i++) {
            if (pass.modes[i] != lastModes[i] || !java.util.Objects.equals(pass.ids[i], lastIds[i])) {
                String path = listed.get(i);
                for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
                    changed.add(path.substring(0, slash + 1));
                }
            }
        }
        return changed;
    }

    /** One folder of the tree being built: its path with a trailing slash, its name, its entries so far. */
    private record Level(String prefix, String name, TreeFormatter entries) {
    }

    /**
     * Builds the trees bottom-up in one pass over the files in git's order, where every folder's files
     * come together and after every name that sorts before the folder's name plus {@code /}, which is
     * the order git wants a tree's entries in. A folder none of whose files changed since the last
     * pass over the same listing keeps its tree, and its files are passed over.
     *
     * @param changed the folders to build again; null to build every one
     */
    private ObjectId tree(List<String> listed, int[] order, Pass pass, Set<String> changed) throws IOException {
        Map<String, ObjectId> folders = changed == null ? new HashMap<>() : lastFolders;
        Deque<Level> open = new ArrayDeque<>();
        open.push(new Level("", "", new TreeFormatter()));
        int k = 0;
        files:
        while (k < order.length) {
            int i = order[k];
            if (pass.modes[i] == 0) {
                k++;
                continue;
            }
            String path = listed.get(i);
            while (!path.startsWith(open.peek().prefix())) {
                close(open, folders);
            }
            String rest = path.substring(open.peek().prefix().length());
            for (int slash = rest.indexOf('/'); slash >= 0; slash = rest.indexOf('/')) {
                String name = rest.substring(0, slash);
                String prefix = open.peek().prefix() + name + "/";
                ObjectId kept = changed == null || changed.contains(prefix) ? null : folders.get(prefix);
                if (kept != null) {
                    open.peek().entries().append(name, FileMode.TREE, kept);
                    while (k < order.length && listed.get(order[k]).startsWith(prefix)) {
                        k++;
                    }
                    continue files;
                }
                open.push(new Level(prefix, name, new TreeFormatter()));
                rest = rest.substring(slash + 1);
            }
            open.peek().entries().append(rest, FileMode.fromBits(pass.modes[i]), pass.ids[i]);
            k++;
        }
        while (open.size() > 1) {
            close(open, folders);
        }
        lastFolders = folders;
        return objects.insert(Constants.OBJ_TREE, open.pop().entries().toByteArray());
    }

    private void close(Deque<Level> open, Map<String, ObjectId> folders) throws IOException {
        Level level = open.pop();
        ObjectId id = objects.insert(Constants.OBJ_TREE, level.entries().toByteArray());
        folders.put(level.prefix(), id);
        open.peek().entries().append(level.name(), FileMode.TREE, id);
    }

    /** An I/O error in words: the file system's reason, or what the exception's kind says, with the file. */
    static String reason(IOException e) {
        if (e instanceof FileSystemException fs) {
            if (fs.getReason() != null) {
                return fs.getReason();
            }
            String what = e instanceof NoSuchFileException ? "no such file or folder"
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e instanceof java.nio.file.NotDirectoryException ? "not a folder"
                    : e instanceof java.nio.file.FileAlreadyExistsException ? "already exists"
                    : e.getClass().getSimpleName();
            return fs.getFile() == null ? what : what + ": " + fs.getFile();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
