package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import dev.quiver.api.Workspace.Entry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.eclipse.jgit.ignore.IgnoreNode;

/**
 * Reads directories for the workspace's walks, applying the ignore rules along the way.
 *
 * <p>{@link #walk} reads every directory afresh, so sizes and kinds are those of this moment.
 * {@link #files} is made for searching large trees many times in one session: directories are read
 * in parallel, and a directory's listing is kept and reused while the directory's change time,
 * modification time and identity stay the same. Creating, deleting or renaming an entry changes all of
 * them; a listing taken within {@value #RACY_MILLIS} ms of the directory's last change is never reused,
 * so a change within the file system's timestamp granularity cannot hide (the "racily clean" rule of
 * git's index). Ignore files are checked on every call, since editing one changes no directory.
 * {@link #fileList} gives the last walk's files before checking them, for a search that may stop early.
 *
 * <p>A walk of {@link #files} stops when the thread that asked for it is interrupted (the idle warm-up's
 * stop and budget): every directory task checks it, and the stopped walk throws
 * {@link InterruptedIOException} and is not kept, so no later call reuses a partial list. The listings
 * read until then are kept, each a whole directory checked by its stamp like any other.
 */
final class Walker {

    /** A listing read this soon after the directory changed may miss a change with the same timestamp. */
    static final long RACY_MILLIS = 2000;
    /** The listing cache is dropped past this many directories or entries rather than grown without bound. */
    private static final int MAX_CACHED_DIRECTORIES = 200_000;
    private static final long MAX_CACHED_ENTRIES = 2_000_000;
    /** How many directories a list of {@link #fileList} checks at least when a file needs any checked. */
    static final int CHECK_AHEAD = 16;

    private static final byte FILE = 0;
    private static final byte DIRECTORY = 1;
    private static final byte LINK = 2;
    private static final byte OTHER = 3;

    private static final boolean UNIX_VIEW = FileSystems.getDefault().supportedFileAttributeViews().contains("unix");

    /** Orders names by code point, which is the byte order of their UTF-8 form (as git and ripgrep sort). */
    static final Comparator<String> NAME_ORDER = Walker::compareNames;

    private final Path root;
    private final IgnoreRules ignoreRules;
    /** The root's path below the ignore rules' base (the repository top), with a trailing slash; often empty. */
    private final String rootPrefix;
    private final Map<Path, Listing> listings = new ConcurrentHashMap<>();
    /** The last walk of {@link #files}, while it may be reused (see {@link Tree}). */
    private volatile Tree tree;
    /** How many directories {@link #files} read from disk rather than reused; for tests. */
    final AtomicLong directoriesRead = new AtomicLong();
    /** How many times {@link #files} gave the last walk's files again without a walk; for tests. */
    final AtomicLong treesReused = new AtomicLong();
    /** How many directories lists of {@link #fileList} checked before handing out files; for tests. */
    final AtomicLong directoriesChecked = new AtomicLong();
    private final AtomicLong cachedEntries = new AtomicLong();

    Walker(Path root, IgnoreRules ignoreRules) {
        this.root = root;
        this.ignoreRules = ignoreRules;
        String prefix = IgnoreRules.slashes(ignoreRules.base().relativize(root));
        this.rootPrefix = prefix.isEmpty() ? "" : prefix + "/";
    }

    /**
     * One directory's entries as read from disk, sorted by name.
     *
     * @param names the names in their shown form ({@link FileNames})
     * @param escaped for a name whose bytes are not UTF-8, the name as read (its bytes); null for the
     *     others, and for the whole array when the directory has none
     * @param stamp what the directory looked like when read (null when unknown: never reused)
     * @param reusable whether the listing may be reused while the stamp holds
     */
    private record Listing(String[] names, Path[] escaped, byte[] kinds, long[] sizes, Object stamp,
            boolean reusable) {

        boolean has(String name) {
            return Arrays.binarySearch(names, name, NAME_ORDER) >= 0;
        }

        /** The entry's path: through the name's own bytes when they are not UTF-8, never its shown form. */
        Path child(Path dir, int index) {
            return escaped == null || escaped[index] == null ? dir.resolve(names[index]) : dir.resolve(escaped[index]);
        }
    }

    // ------------------------------------------------------------------------------------------ walk

    void walk(Path start, boolean includeIgnored, int maxDepth, Predicate<Entry> visitor) throws IOException {
        Rules rules = prepare(start, includeIgnored);
        walk(start, relative(start), 1, rules.above(), rules.startIgnored(),
                new WalkCall(rules.tracked(), maxDepth, visitor));
    }

    /** What stays the same through one call of {@link #walk(Path, boolean, int, Predicate)}. */
    private record WalkCall(TrackedFiles.Snapshot tracked, int maxDepth, Predicate<Entry> visitor) {
    }

    /**
     * Returns false when the visitor asked to stop.
     *
     * @param chain the ignore rules in force, null when ignored entries are walked too
     * @param insideIgnored whether the directory is ignored and entered for its tracked files only
     */
    private boolean walk(Path dir, String dirRelative, int depth, IgnoreRules.Chain chain, boolean insideIgnored,
            WalkCall call) {
        Listing listing;
        try {
            listing = read(dir, null);
        } catch (IOException unreadable) {
            // an unreadable folder is skipped, as git and ripgrep skip it
            return true;
        }
        IgnoreRules.Chain childChain = chain == null || insideIgnored ? chain : extend(chain, dir, dirRelative, listing);
        String[] names = listing.names();
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            if (name.equals(".git") || Temporaries.isTemporary(name)) {
                continue;
            }
            Path child = listing.child(dir, i);
            Entry.Kind kind;
            long size = 0;
            switch (listing.kinds()[i]) {
                case FILE -> {
                    kind = Entry.Kind.FILE;
                    size = listing.sizes()[i];
                }
                case DIRECTORY -> kind = Entry.Kind.DIRECTORY;
                case LINK -> {
                    kind = linkKind(child);
                    if (kind == Entry.Kind.FILE) {
                        size = sizeOf(child);
                    }
                }
                default -> kind = Entry.Kind.OTHER;
            }
            String relative = dirRelative.isEmpty() ? name : dirRelative + "/" + name;
            // a linked directory is a directory to ignore rules (so "dir/" rules apply) but is not descended
            boolean directory = kind == Entry.Kind.DIRECTORY || kind == Entry.Kind.LINKED_DIRECTORY;
            Keep keep = keep(childChain, insideIgnored, call.tracked(), relative, directory);
            if (keep == Keep.NONE) {
                continue;
            }
            if (!call.visitor().test(new Entry(child, relative, kind, size, depth))) {
                return false;
            }
            if (kind == Entry.Kind.DIRECTORY && depth < call.maxDepth()
                    && !walk(child, relative, depth + 1, childChain, keep == Keep.TRACKED, call)) {
                return false;
            }
        }
        return true;
    }

    /** What a walk does with an entry. */
    private enum Keep {
        /** Lists it, and enters it when a directory. */
        ALL,
        /** Lists an ignored directory that holds tracked files, and enters it for those only. */
        TRACKED,
        /** Leaves it out. */
        NONE
    }

    /**
     * Git applies ignore rules to untracked files only: an entry the rules ignore is kept when the
     * index tracks it, and an ignored directory is entered for the tracked files below it, where
     * nothing untracked is kept.
     *
     * @param chain the ignore rules in force, null when ignored entries are walked too
     * @param insideIgnored whether the entry's directory is ignored and entered for its tracked files only
     * @param relative the entry's path below the walk's root
     */
    private Keep keep(IgnoreRules.Chain chain, boolean insideIgnored, TrackedFiles.Snapshot tracked, String relative,
            boolean directory) {
        if (chain == null || !insideIgnored && !ignoreRules.ignored(chain, rootPrefix + relative, directory)) {
            return Keep.ALL;
        }
        if (!tracked.tracks(rootPrefix + relative, directory)) {
            return Keep.NONE;
        }
        return directory ? Keep.TRACKED : Keep.ALL;
    }

    // ----------------------------------------------------------------------------------------- files

    List<String> files(Path start, boolean includeIgnored) throws IOException {
        return fileList(start, includeIgnored).all();
    }

    /** The files of {@link #files}, checked only as far as they are read: see {@link CheckedFiles}. */
    CheckedFiles fileList(Path start, boolean includeIgnored) throws IOException {
        Rules rules = prepare(start, includeIgnored);
        Tree known = tree;
        if (known != null && known.isFor(start, rules)) {
            return new CheckedFiles(known, 0);
        }
        Tree walked = walkTree(start, rules);
        return new CheckedFiles(walked, walked.visits().length);
    }

    /**
     * What decides which entries a walk of {@link #files} keeps, besides the directories it reads.
     *
     * @param above the ignore rules of the directories above the start; null when ignored files are listed too
     * @param tracked what the index tracks, which no rule hides
     * @param startIgnored whether the start itself is ignored (an enclosing repository's rules match it or a
     *     folder above it): then, as git run there, the walk lists only the tracked files below it
     */
    private record Rules(IgnoreRules.Chain above, TrackedFiles.Snapshot tracked, boolean startIgnored) {

        boolean includeIgnored() {
            return above == null;
        }

        /** The same rules as another's: the same ignore files above, and the same index file. */
        boolean same(Rules other) {
            return Objects.equals(above, other.above) && tracked == other.tracked && startIgnored == other.startIgnored;
        }
    }

    /** What every walk does first. */
    private Rules prepare(Path start, boolean includeIgnored) throws IOException {
        if (!Files.isDirectory(start)) {
            throw new NoSuchFileException(start.toString(), null, "not a directory");
        }
        boundCache();
        ignoreRules.refresh();
        return includeIgnored ? new Rules(null, TrackedFiles.NONE, false)
                : new Rules(ignoreRules.chainAbove(start), ignoreRules.tracked().current(),
                        ignoreRules.matchedOrInsideMatched(start, true));
    }

    private void boundCache() {
        if (listings.size() > MAX_CACHED_DIRECTORIES || cachedEntries.get() > MAX_CACHED_ENTRIES) {
            listings.clear();
            cachedEntries.set(0);
        }
    }

    /** Walks the tree, reusing every listing whose directory is unchanged; keeps the walk when it may be reused. */
    private Tree walkTree(Path start, Rules rules) throws IOException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("The walk of " + start + " stopped: its thread was interrupted");
        }
        ForkJoinPool pool = new ForkJoinPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        // the asking thread waits interruptibly (a fork-join join would not be) and, interrupted, stops
        // every directory's task through this flag
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            Directory top = new Directory(start, relative(start), rules.above(), rules.startIgnored(), rules.tracked(),
                    stop);
            java.util.concurrent.ForkJoinTask<Tree> task = pool.submit(new Root(top, rules));
            Tree walked;
            try {
                walked = task.get();
            } catch (InterruptedException e) {
                stop.set(true);
                Thread.currentThread().interrupt();
                // directories were left out: the walk is not kept, and its caller gets no partial list
                throw new InterruptedIOException("The walk of " + start + " stopped: its thread was interrupted");
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause() instanceof RuntimeException r && r.getCause() instanceof IOException io ? io
                        : e.getCause();
                if (cause instanceof IOException io) {
                    throw io;
                }
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw new IOException(cause);
            }
            tree = walked.reusable() ? walked : null;
            return walked;
        } finally {
            stop.set(true);
            pool.shutdown();
        }
    }

    /** One directory a walk of {@link #files} read: its listing (stamp, ignore files present) and the rules read from them. */
    private record Visit(Path dir, Listing listing, List<IgnoreNode> ignoreNodes) {
    }

    /**
     * One walk of {@link #files}, kept so that the next call can give the same files again while every
     * directory it visited has the same stamp and the same ignore files, the ignore files above the
     * start are the same and the index file is unchanged: then no entry can have appeared, gone or
     * changed kind, and no ignore rule changed, so a walk would list the same files. Checking costs one
     * stat per directory instead of a walk that applies the ignore rules to every entry again. A walk
     * that met a link or an unreadable directory, or read a listing too soon after its directory
     * changed, is not reusable (a link's target can change without its folder changing).
     *
     * @param visits the directories in the order the walk entered them (depth first, by name)
     * @param entered for each file, how many of {@code visits} the walk had entered when it listed the file:
     *     the file's place in the list depends on those directories only
     */
    private record Tree(Path start, Rules rules, Visit[] visits, List<String> files, int[] entered, boolean reusable) {

        boolean isFor(Path start, Rules rules) {
            return this.start.equals(start) && this.rules.same(rules);
        }
    }

    /** Whether a directory of a kept walk is as the walk found it. */
    private boolean unchanged(Tree walked, Visit visit) {
        try {
            if (!stamp(visit.dir()).equals(visit.listing().stamp())) {
                return false;
            }
        } catch (IOException gone) {
            return false;
        }
        // the same ignore files give the same (identical) nodes: IgnoreRules keeps them by content
        return walked.rules().includeIgnored() || ownIgnoreNodes(visit.dir(), visit.listing()) == visit.ignoreNodes();
    }

    /**
     * The files of a walk, handed out before they are checked. The directories of the walk are checked in
     * the order it entered them, each only once a file listed after entering it is asked for: a directory
     * entered later cannot move a file listed earlier. So a search that stops after the first few hundred
     * files of a large tree checks only the directories it reached. The first directory found changed
     * makes a fresh walk (reusing every unchanged listing), whose files up to that directory are the ones
     * already handed out.
     */
    final class CheckedFiles implements Workspace.FileList {

        /** A walk, of which directories {@code [0, checked)} are known to be unchanged since this list was made. */
        private record Checked(Tree walked, int checked) {

            /** How many of the walk's directories decide where the file at {@code index} is. */
            int needed(int index) {
                return index < walked.files().size() ? walked.entered()[index] : walked.visits().length;
            }

            String file(int index) {
                return index < walked.files().size() ? walked.files().get(index) : null;
            }
        }

        /** Replaced, never changed, so that a file already checked is handed out without a lock. */
        private volatile Checked state;

        CheckedFiles(Tree walked, int checked) {
            this.state = new Checked(walked, checked);
        }

        @Override
        public String get(int index) throws IOException {
            Checked known = state;
            return known.needed(index) <= known.checked() ? known.file(index) : check(index);
        }

        private synchronized String check(int index) throws IOException {
            Tree walked = state.walked();
            int checked = state.checked();
            // a few directories past the one needed, so that the workers of a search, which meet a new
            // directory every few files, do not queue here for each
            int needed = Math.min(walked.visits().length, Math.max(state.needed(index), checked + CHECK_AHEAD));
            while (checked < needed) {
                directoriesChecked.incrementAndGet();
                if (!unchanged(walked, walked.visits()[checked])) {
                    return walkAgain().file(index);
                }
                checked++;
            }
            state = new Checked(walked, checked);
            return state.file(index);
        }

        /** Every file: the directories not yet checked are checked at once, on every core, as a walk reads them. */
        synchronized List<String> all() throws IOException {
            Checked known = state;
            Visit[] visits = known.walked().visits();
            if (known.checked() == visits.length) {
                return known.walked().files();
            }
            if (Arrays.stream(visits, known.checked(), visits.length).parallel()
                    .allMatch(visit -> unchanged(known.walked(), visit))) {
                treesReused.incrementAndGet();
                state = new Checked(known.walked(), visits.length);
                return known.walked().files();
            }
            return walkAgain().walked().files();
        }

        /** A fresh walk, current by construction, for a walk found changed. */
        private Checked walkAgain() throws IOException {
            Tree walked = state.walked();
            Tree fresh = walkTree(walked.start(), prepare(walked.start(), walked.rules().includeIgnored()));
            state = new Checked(fresh, fresh.visits().length);
            return state;
        }
    }

    /** Lists the start directory and flattens the whole tree's result in walk order. */
    private static final class Root extends RecursiveTask<Tree> {

        private static final long serialVersionUID = 1L;
        private final transient Directory start;
        private final transient Rules rules;
        private final List<String> files = new ArrayList<>();
        private final List<Visit> visits = new ArrayList<>();
        private int[] entered = new int[256];
        private boolean reusable = true;

        Root(Directory start, Rules rules) {
            this.start = start;
            this.rules = rules;
        }

        @Override
        protected Tree compute() {
            flatten(start, start.compute());
            return new Tree(start.dir, rules, visits.toArray(Visit[]::new),
                    Collections.unmodifiableList(files), Arrays.copyOf(entered, files.size()), reusable);
        }

        private void flatten(Directory directory, List<Object> items) {
            if (directory.visit != null) {
                visits.add(directory.visit);
            }
            reusable &= directory.reusable;
            for (Object item : items) {
                if (item instanceof String file) {
                    if (files.size() == entered.length) {
                        entered = Arrays.copyOf(entered, entered.length * 2);
                    }
                    entered[files.size()] = visits.size();
                    files.add(file);
                } else {
                    Directory below = (Directory) item;
                    flatten(below, below.join());
                }
            }
        }
    }

    /** One directory of {@link #files}: its files as strings, its subdirectories as forked tasks, in order. */
    private final class Directory extends RecursiveTask<List<Object>> {

        private static final long serialVersionUID = 1L;
        private final transient Path dir;
        private final String relative;
        /** The ignore rules in force; null when ignored files are listed too. */
        private final transient IgnoreRules.Chain chain;
        /** Whether this directory is ignored and entered for its tracked files only. */
        private final boolean insideIgnored;
        private final transient TrackedFiles.Snapshot tracked;
        /** Set once the thread that asked for the walk is interrupted: no directory is read after it. */
        private final transient java.util.concurrent.atomic.AtomicBoolean stop;
        /** Set by {@link #compute}: the directory as read (null when unreadable), and whether the walk stays reusable. */
        private transient Visit visit;
        private boolean reusable = true;

        Directory(Path dir, String relative, IgnoreRules.Chain chain, boolean insideIgnored, TrackedFiles.Snapshot tracked,
                java.util.concurrent.atomic.AtomicBoolean stop) {
            this.dir = dir;
            this.stop = stop;
            this.relative = relative;
            this.chain = chain;
            this.insideIgnored = insideIgnored;
            this.tracked = tracked;
        }

        @Override
        protected List<Object> compute() {
            if (stop.get()) {
                reusable = false;
                return List.of();
            }
            Listing listing;
            try {
                listing = cached(dir);
            } catch (IOException unreadable) {
                reusable = false;
                return List.of();
            }
            List<IgnoreNode> own = chain == null ? List.of() : ownIgnoreNodes(dir, listing);
            visit = new Visit(dir, listing, own);
            reusable = listing.reusable();
            IgnoreRules.Chain childChain = chain == null || insideIgnored ? chain : extend(chain, relative, own);
            String[] names = listing.names();
            List<Object> items = new ArrayList<>(names.length);
            for (int i = 0; i < names.length; i++) {
                if ((i & 255) == 255 && stop.get()) {
                    // many ignore rules make every entry costly: a large directory checks as it goes
                    reusable = false;
                    return List.of();
                }
                String name = names[i];
                byte kind = listing.kinds()[i];
                if (kind == OTHER || name.equals(".git") || Temporaries.isTemporary(name)) {
                    continue;
                }
                boolean directory;
                if (kind == LINK) {
                    // a link's target can change without its folder changing, so links are looked at every time
                    reusable = false;
                    Entry.Kind target = linkKind(listing.child(dir, i));
                    if (target == Entry.Kind.OTHER
                            || target == Entry.Kind.FILE && !isSearchableTarget(listing.child(dir, i))) {
                        continue;
                    }
                    directory = target == Entry.Kind.LINKED_DIRECTORY;
                } else {
                    directory = kind == DIRECTORY;
                }
                String childRelative = relative.isEmpty() ? name : relative + "/" + name;
                Keep keep = keep(childChain, insideIgnored, tracked, childRelative, directory);
                if (keep == Keep.NONE) {
                    continue;
                }
                if (!directory) {
                    items.add(childRelative);
                } else if (kind == DIRECTORY) {
                    Directory task = new Directory(listing.child(dir, i), childRelative, childChain, keep == Keep.TRACKED,
                            tracked, stop);
                    task.fork();
                    items.add(task);
                }
            }
            return items;
        }
    }

    private Listing cached(Path dir) throws IOException {
        Object stamp = stamp(dir);
        Listing known = listings.get(dir);
        if (known != null && known.reusable() && stamp.equals(known.stamp())) {
            return known;
        }
        Listing fresh = read(dir, stamp);
        directoriesRead.incrementAndGet();
        Listing replaced = listings.put(dir, fresh);
        cachedEntries.addAndGet(fresh.names().length - (replaced == null ? 0 : replaced.names().length));
        return fresh;
    }

    // -------------------------------------------------------------------------------- secret index

    /**
     * One directory's subdirectories (not linked ones) and those of its files, links to files included,
     * whose name marks them secret ({@link Secrets}), in name order, for {@link SecretIndex}. The listing
     * is the one {@link #files} keeps, read again when the directory changed, so the secret index (which
     * looks at every directory, ignored ones too) and the search walks read each directory once between
     * them: at a session's first call both run at once. {@code .git} and temporaries are left out, as
     * every walk leaves them out.
     *
     * @throws IOException when the directory is gone or cannot be read
     */
    void secretsAndSubdirectories(Path dir, List<Path> secrets, List<Path> subdirectories) throws IOException {
        boundCache();
        Listing listing = cached(dir);
        String[] names = listing.names();
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            byte kind = listing.kinds()[i];
            if (name.equals(".git") || Temporaries.isTemporary(name)) {
                continue;
            }
            if (kind == DIRECTORY) {
                subdirectories.add(listing.child(dir, i));
            } else if (kind == FILE || kind == LINK) {
                // a name not in UTF-8 is judged as its path gives it, as the walks give it
                boolean escaped = listing.escaped() != null && listing.escaped()[i] != null;
                if (escaped ? Secrets.isSecret(listing.child(dir, i)) : Secrets.isSecretName(name)) {
                    Path child = listing.child(dir, i);
                    if (kind == FILE || linkKind(child) == Entry.Kind.FILE) {
                        secrets.add(child);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------- listings

    private IgnoreRules.Chain extend(IgnoreRules.Chain chain, Path dir, String dirRelative, Listing listing) {
        return extend(chain, dirRelative, ownIgnoreNodes(dir, listing));
    }

    private IgnoreRules.Chain extend(IgnoreRules.Chain chain, String dirRelative, List<IgnoreNode> own) {
        if (own.isEmpty()) {
            return chain;
        }
        return ignoreRules.extend(chain, rootPrefix + (dirRelative.isEmpty() ? "" : dirRelative + "/"), own);
    }

    /** A directory's own ignore files, as its listing shows them (none looked for where it shows none). */
    private List<IgnoreNode> ownIgnoreNodes(Path dir, Listing listing) {
        boolean quiverignore = listing.has(IgnoreRules.QUIVERIGNORE);
        boolean gitignore = listing.has(IgnoreRules.GITIGNORE);
        return quiverignore || gitignore ? ignoreRules.nodes(dir, quiverignore, gitignore) : List.of();
    }

    /**
     * Reads a directory: names sorted, kinds from the entries themselves (links not followed), sizes of
     * regular files.
     *
     * @param stamp the directory's stamp taken before reading, or null for a listing that is not kept
     */
    private static Listing read(Path dir, Object stamp) throws IOException {
        long listedAt = System.currentTimeMillis();
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path child : stream) {
                // the name as the stream read it keeps its bytes; its String may not
                children.add(child.getFileName());
            }
        } catch (DirectoryIteratorException refused) {
            // a folder that fails while being listed is unreadable, as one that fails to open
            throw refused.getCause();
        }
        record Named(String shown, Path name) {
        }
        Named[] named = new Named[children.size()];
        for (int i = 0; i < named.length; i++) {
            named[i] = new Named(FileNames.shown(children.get(i)), children.get(i));
        }
        Arrays.sort(named, Comparator.comparing(Named::shown, NAME_ORDER));
        String[] names = new String[named.length];
        Path[] escaped = null;
        byte[] kinds = new byte[names.length];
        long[] sizes = new long[names.length];
        int kept = 0;
        for (Named entry : named) {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(dir.resolve(entry.name()), BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
            } catch (IOException vanished) {
                continue;
            }
            names[kept] = entry.shown();
            if (!entry.shown().equals(entry.name().toString())) {
                if (escaped == null) {
                    escaped = new Path[named.length];
                }
                escaped[kept] = entry.name();
            }
            if (attributes.isDirectory()) {
                kinds[kept] = DIRECTORY;
            } else if (attributes.isRegularFile()) {
                kinds[kept] = FILE;
                sizes[kept] = attributes.size();
            } else if (attributes.isSymbolicLink()) {
                kinds[kept] = LINK;
            } else {
                kinds[kept] = OTHER;
            }
            kept++;
        }
        if (kept < names.length) {
            names = Arrays.copyOf(names, kept);
            escaped = escaped == null ? null : Arrays.copyOf(escaped, kept);
            kinds = Arrays.copyOf(kinds, kept);
            sizes = Arrays.copyOf(sizes, kept);
        }
        boolean reusable = stamp instanceof Stamp s && listedAt - s.changedMillis() > RACY_MILLIS;
        return new Listing(names, escaped, kinds, sizes, stamp, reusable);
    }

    /** What a directory looked like: its change time, modification time and identity. */
    private record Stamp(long changedMillis, FileTime changed, FileTime modified, Object key) {
    }

    private static Object stamp(Path dir) throws IOException {
        if (UNIX_VIEW) {
            Map<String, Object> attributes = Files.readAttributes(dir, "unix:ctime,lastModifiedTime,ino,dev",
                    LinkOption.NOFOLLOW_LINKS);
            FileTime changed = (FileTime) attributes.get("ctime");
            FileTime modified = (FileTime) attributes.get("lastModifiedTime");
            return new Stamp(Math.max(changed.toMillis(), modified.toMillis()), changed, modified,
                    Objects.toString(attributes.get("dev")) + ":" + attributes.get("ino"));
        }
        BasicFileAttributes attributes = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return new Stamp(attributes.lastModifiedTime().toMillis(), attributes.lastModifiedTime(),
                attributes.lastModifiedTime(), attributes.fileKey());
    }

    private static Entry.Kind linkKind(Path link) {
        try {
            BasicFileAttributes target = Files.readAttributes(link, BasicFileAttributes.class);
            if (target.isDirectory()) {
                return Entry.Kind.LINKED_DIRECTORY;
            }
            return target.isRegularFile() ? Entry.Kind.FILE : Entry.Kind.OTHER;
        } catch (IOException dangling) {
            return Entry.Kind.OTHER;
        }
    }

    /**
     * Whether a searcher may read a linked file through its link: only when the target lies inside the
     * workspace and does not hold secrets, so a link can smuggle neither an outside file nor a secret
     * into a search.
     */
    private boolean isSearchableTarget(Path link) {
        try {
            Path real = link.toRealPath();
            return real.startsWith(root) && !Secrets.isSecret(real);
        } catch (IOException e) {
            return false;
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    private String relative(Path path) {
        String text = FileNames.shown(root.relativize(path));
        return text.equals(".") ? "" : text;
    }

    static int compareNames(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                if (x >= 0xD800 && y >= 0xD800) {
                    // surrogates encode code points above U+FFFF, which sort after U+E000..U+FFFF
                    return shifted(x) - shifted(y);
                }
                return x - y;
            }
        }
        return a.length() - b.length();
    }

    private static int shifted(char c) {
        return c >= 0xE000 ? c - 0x800 : c + 0x2000;
    }
}
