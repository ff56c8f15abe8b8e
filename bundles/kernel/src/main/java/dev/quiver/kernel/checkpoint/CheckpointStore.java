package dev.quiver.kernel.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * A workspace's checkpoints, in Quiver's state folder for the workspace (never in its {@code .git} or
 * working tree): a bare git repository's layout, so that {@code git --git-dir=...} can read it, with
 * one commit per checkpoint. Its {@code journal} lists the commits in the order they were made, one id
 * a line; each commit's tree is the workspace's files and its message says whose turn it was, which
 * call it preceded, and what was not recorded. The folder is the user's alone (mode 700): it holds
 * copies of the workspace's files. One process at a time changes it, under {@code lock}.
 */
final class CheckpointStore {

    static final String JOURNAL = "journal";
    static final String CACHE = "stat-cache";
    /** Rewritten by every prune, so that a process that remembers objects as stored forgets them. */
    static final String PRUNED = "pruned";
    private static final String LOCK = "lock";
    /** Undo needs the last 20 turns; more are kept for the turns of other sessions in between. */
    static final int KEPT_TURNS = 50;
    /** The journal is pruned when it has this many lines: enough for {@link #KEPT_TURNS} of long turns. */
    static final int PRUNE_LINES = 400;
    /** An object no kept checkpoint names is removed only when older: one being written may not be named yet. */
    private static final long PRUNE_GRACE_MILLIS = 3_600_000;

    /** When in a turn a checkpoint was taken. */
    enum Phase {
        /** Before the turn's first call that may change files. */
        START,
        /** Before a later such call. */
        CALL,
        /** When the turn ended. */
        END,
        /** Before an undo changed anything: what it replaced. */
        UNDO;

        String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A turn of a session: the session's id and the turn's number in it. */
    record TurnKey(String session, int turn) {

        @Override
        public String toString() {
            return session + "/" + turn;
        }

        static TurnKey parse(String text) {
            int slash = text.lastIndexOf('/');
            return new TurnKey(text.substring(0, slash), Integer.parseInt(text.substring(slash + 1)));
        }
    }

    /**
     * What a checkpoint's message records.
     *
     * @param turn whose turn it was taken in
     * @param kind {@code prompt} for a turn of the agent, {@code call} for a call run directly
     * @param phase when in the turn
     * @param tool the call it preceded, with its access class ({@code bash (execute)}); empty otherwise
     * @param skipped a blob listing the files not recorded: path, NUL, why, NUL, for each
     * @param truncated whether the listing was cut at the limit
     * @param undoes with {@link Phase#UNDO}: the turns undone
     */
    record Meta(TurnKey turn, String kind, Phase phase, String tool, Optional<ObjectId> skipped, boolean truncated,
            List<TurnKey> undoes) {
    }

    /** One checkpoint as the journal lists it. */
    record Record(int index, ObjectId commit, ObjectId tree, Instant time, Meta meta) {
    }

    private final Path folder;
    private final LooseObjects objects;
    private final Duration lockWait;

    CheckpointStore(Path folder, Duration lockWait) {
        this.folder = folder;
        this.objects = new LooseObjects(folder.resolve("objects"), this::create);
        this.lockWait = lockWait;
    }

    Path folder() {
        return folder;
    }

    LooseObjects objects() {
        return objects;
    }

    /** Something done while holding the store's lock. */
    interface Locked<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code body} holding the store's lock, which another process (or session) may hold for as
     * long as its checkpoint takes; waits that long at most.
     *
     * @throws IOException when the lock is not had in time, naming the lock file
     */
    <T> T locked(Locked<T> body) throws IOException {
        return locked(body, lockWait);
    }

    /** The lock was not had in time: another process (or session) holds it. */
    static final class LockBusy extends IOException {
        private static final long serialVersionUID = 1L;

        LockBusy(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code body} holding the store's lock, waiting at most {@code wait} for it: with
     * {@link Duration#ZERO}, tries once.
     *
     * @throws LockBusy when the lock is not had in time, naming the lock file
     */
    <T> T locked(Locked<T> body, Duration wait) throws IOException {
        create();
        try (FileChannel channel = FileChannel.open(folder.resolve(LOCK), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            long deadline = System.nanoTime() + wait.toNanos();
            FileLock lock = null;
            while (lock == null) {
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException heldHere) {
                    // another session of this process holds it
                }
                if (lock == null) {
                    if (System.nanoTime() >= deadline) {
                        throw new LockBusy("the checkpoint store is locked by another Quiver session (its lock "
                                + "file " + folder.resolve(LOCK) + (wait.isZero() ? " was held)" : " was held for more than "
                                + wait.toMillis() + " ms)"));
                    }
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while waiting for the checkpoint store's lock");
                    }
                }
            }
            try {
                return body.run();
            } finally {
                lock.release();
            }
        }
    }

    /**
     * Whether the store is a folder; false when nothing is there.
     *
     * @throws IOException when something else is there: a link would take the copies of the workspace's
     *     files wherever it points
     */
    private boolean existingFolder() throws IOException {
        java.nio.file.attribute.BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(folder, java.nio.file.attribute.BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException none) {
            return false;
        }
        if (!attributes.isDirectory()) {
            throw new IOException("the checkpoint store " + folder + " is not a folder (a symbolic link or a file); "
                    + "remove it, and Quiver makes a new one");
        }
        return true;
    }

    /** Makes the folder (its owner's alone) and the files that make it a bare repository to git. */
    private void create() throws IOException {
        // one look at what is there, so a folder made meanwhile by another session is not taken for a link
        if (existingFolder()) {
            return;
        }
        Files.createDirectories(folder.getParent());
        try {
            Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (java.nio.file.FileAlreadyExistsException madeMeanwhile) {
            if (existingFolder()) {
                return;
            }
            throw madeMeanwhile;
        }
        Files.writeString(folder.resolve("HEAD"), "ref: refs/heads/checkpoints\n", StandardCharsets.UTF_8);
        Files.writeString(folder.resolve("config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n",
                StandardCharsets.UTF_8);
        Files.createDirectories(folder.resolve("refs").resolve("heads"));
    }

    /** Records a snapshot as a commit and appends it to the journal; under the lock. */
    ObjectId commit(Snapshotter.Snapshot snapshot, Meta meta, Instant time) throws IOException {
        Optional<ObjectId> skipped = Optional.empty();
        if (!snapshot.skipped().isEmpty()) {
            StringBuilder list = new StringBuilder();
            // NUL-separated, as git's -z output: a path may hold any other character, a newline too
            snapshot.skipped().forEach((path, why) -> list.append(path).append('\0').append(why).append('\0'));
            skipped = Optional.of(objects.insert(Constants.OBJ_BLOB, list.toString().getBytes(StandardCharsets.UTF_8)));
        }
        Meta recorded = new Meta(meta.turn(), meta.kind(), meta.phase(), meta.tool(), skipped, snapshot.truncated(),
                meta.undoes());
        CommitBuilder commit = new CommitBuilder();
        commit.setTreeId(snapshot.tree());
        PersonIdent quiver = new PersonIdent("Quiver", "quiver@localhost", time, ZoneOffset.UTC);
        commit.setAuthor(quiver);
        commit.setCommitter(quiver);
        commit.setMessage(message(recorded));
        ObjectId id = objects.insert(Constants.OBJ_COMMIT, commit.build());
        cutTornTail(folder.resolve(JOURNAL));
        Files.writeString(folder.resolve(JOURNAL), id.name() + "\n", StandardCharsets.US_ASCII,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
        return id;
    }

    private static String message(Meta meta) {
        StringBuilder text = new StringBuilder("Checkpoint ");
        text.append(switch (meta.phase()) {
            case START, CALL -> "before " + meta.tool();
            case END -> "at the end of the turn";
            case UNDO -> "before an undo";
        });
        text.append(", turn ").append(meta.turn().turn()).append(" of session ").append(meta.turn().session());
        text.append("\n\n");
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("turn", meta.turn().toString());
        fields.put("kind", meta.kind());
        fields.put("phase", meta.phase().id());
        if (!meta.tool().isEmpty()) {
            fields.put("tool", meta.tool());
        }
        meta.skipped().ifPresent(id -> fields.put("skipped", id.name()));
        if (meta.truncated()) {
            fields.put("truncated", "yes");
        }
        if (!meta.undoes().isEmpty()) {
            fields.put("undoes", String.join(" ", meta.undoes().stream().map(TurnKey::toString).toList()));
        }
        fields.forEach((key, value) -> text.append(key).append(": ").append(oneLine(value)).append('\n'));
        return text.toString();
    }

    private static String oneLine(String value) {
        return value.replaceAll("[\\r\\n\\t]+", " ");
    }

    /**
     * Every checkpoint the journal lists, oldest first, each commit read and checked.
     *
     * @throws IOException naming what is damaged: a journal line, a missing or damaged commit
     */
    List<Record> journal() throws IOException {
        return read().records();
    }

    /**
     * The journal as read.
     *
     * @param dropped why its last line was left out, when it was damaged and not the only one: a
     *     checkpoint whose line was torn as it was appended (Quiver stopped, the disk filled) costs that
     *     checkpoint alone, not every undo
     */
    record Journal(List<Record> records, Optional<String> dropped) {
    }

    /** Every checkpoint the journal lists, as {@link #journal()}, with a damaged last line left out and said. */
    Journal read() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(folder.resolve(JOURNAL), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return new Journal(List.of(), Optional.empty());
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new LooseObjects.StoreDamaged("its journal holds text that is not a checkpoint id");
        }
        List<String> listed = lines.stream().filter(line -> !line.isBlank()).toList();
        List<Record> records = new ArrayList<>(listed.size());
        ObjectChecker checker = new ObjectChecker();
        for (int i = 0; i < listed.size(); i++) {
            try {
                records.add(record(listed.get(i), records.size(), checker));
            } catch (LooseObjects.StoreDamaged damaged) {
                if (i < listed.size() - 1 || records.isEmpty()) {
                    throw damaged; // damage before the end is not a torn append: nothing of it is trusted
                }
                return new Journal(records, Optional.of(damaged.getMessage()));
            }
        }
        return new Journal(records, Optional.empty());
    }

    private Record record(String line, int index, ObjectChecker checker) throws IOException {
        if (!ObjectId.isId(line.strip())) {
            throw new LooseObjects.StoreDamaged("line " + (index + 1) + " of its journal is not a "
                    + "checkpoint id: " + (line.length() > 60 ? line.substring(0, 60) + "..." : line));
        }
        ObjectId id = ObjectId.fromString(line.strip());
        byte[] raw = objects.read(id, Constants.OBJ_COMMIT, 1 << 20);
        try {
            checker.checkCommit(id, raw);
        } catch (CorruptObjectException e) {
            throw new LooseObjects.StoreDamaged(id, "is not a valid commit (" + e.getMessage() + ")");
        }
        RevCommit commit = RevCommit.parse(raw);
        return new Record(index, id, commit.getTree().getId(), commit.getCommitterIdent().getWhenAsInstant(),
                parse(id, commit.getFullMessage()));
    }

    /**
     * Cuts off a last line an append left unfinished (no newline), so that the next line is not glued
     * to it and the damage stays at the end, where {@link #read()} leaves it out.
     */
    private void cutTornTail(Path journal) throws IOException {
        try (FileChannel channel = FileChannel.open(journal, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = channel.size();
            if (size == 0) {
                return;
            }
            int tail = (int) Math.min(size, 256);
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(tail);
            while (bytes.hasRemaining() && channel.read(bytes, size - tail + bytes.position()) >= 0) {
                // reads the tail
            }
            if (bytes.get(tail - 1) == '\n') {
                return;
            }
            int newline = tail - 1;
            while (newline >= 0 && bytes.get(newline) != '\n') {
                newline--;
            }
            // a torn line is shorter than an id and its newline; longer, it is not one to cut
            if (newline >= 0 || size == tail) {
                channel.truncate(size - tail + newline + 1);
            }
        } catch (NoSuchFileException none) {
            // the first checkpoint
        }
    }

    /**
     * Keeps the checkpoints of the newest {@link #KEPT_TURNS} turns once the journal has grown past
     * {@link #PRUNE_LINES} lines, and removes the objects no kept checkpoint names (nor {@code alsoKeep})
     * that are older than an hour. Under the lock. Nothing is removed when anything kept cannot be read.
     *
     * Once pruned, the journal must grow to twice what the last prune kept before it is looked at again,
     * and nothing is rewritten when no turn would be dropped: every prune makes every process forget
     * the objects it knew as stored, so pruning after every turn would cost each a whole new tree.
     *
     * @return whether it pruned
     */
    boolean prune(Set<ObjectId> alsoKeep) throws IOException {
        Path journal = folder.resolve(JOURNAL);
        List<String> lines = Files.readAllLines(journal, StandardCharsets.US_ASCII);
        if (lines.size() < Math.max(PRUNE_LINES, 2L * keptAtLastPrune())) {
            return false;
        }
        List<Record> records = journal();
        List<TurnKey> turns = records.stream().filter(record -> record.meta().phase() != Phase.UNDO)
                .map(record -> record.meta().turn()).distinct().toList();
        Set<TurnKey> kept = new HashSet<>(turns.subList(Math.max(0, turns.size() - KEPT_TURNS), turns.size()));
        int first = records.stream().filter(record -> kept.contains(record.meta().turn())).findFirst()
                .map(Record::index).orElse(records.size());
        List<Record> keep = records.stream().filter(record -> record.index() >= first
                && (record.meta().phase() == Phase.UNDO || kept.contains(record.meta().turn()))).toList();
        Set<ObjectId> reachable = new HashSet<>(alsoKeep);
        Trees trees = new Trees(objects);
        for (Record record : keep) {
            reachable.add(record.commit());
            record.meta().skipped().ifPresent(reachable::add);
            mark(trees, record.tree(), reachable);
        }
        if (keep.size() == records.size()) {
            return false; // nothing to drop: the journal, the objects and what every process knows stay as they are
        }
        StringBuilder text = new StringBuilder();
        keep.forEach(record -> text.append(record.commit().name()).append('\n'));
        Path temporary = folder.resolve(JOURNAL + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        Files.move(temporary, journal, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(folder.resolve(PRUNED), Instant.now() + "\nkept " + keep.size() + "\n", StandardCharsets.US_ASCII);
        sweep(reachable);
        return true;
    }

    /** How many journal lines the last prune kept; 0 when it never pruned or does not say. */
    private long keptAtLastPrune() {
        try {
            for (String line : Files.readAllLines(folder.resolve(PRUNED), StandardCharsets.US_ASCII)) {
                if (line.startsWith("kept ")) {
                    return Long.parseLong(line.substring(5).strip());
                }
            }
        } catch (IOException | RuntimeException never) {
            // never pruned, or by a version that did not say: the plain threshold
        }
        return 0;
    }

    private static void mark(Trees trees, ObjectId tree, Set<ObjectId> reachable) throws IOException {
        if (!reachable.add(tree)) {
            return; // seen, and all below it
        }
        for (Trees.Entry entry : trees.entries(tree).values()) {
            if (entry.mode() == org.eclipse.jgit.lib.FileMode.TREE.getBits()) {
                mark(trees, entry.id(), reachable);
            } else {
                reachable.add(entry.id());
            }
        }
    }

    /** Removes the objects and the temporary files left by failed writes that nothing names and are old. */
    private void sweep(Set<ObjectId> reachable) throws IOException {
        long before = System.currentTimeMillis() - PRUNE_GRACE_MILLIS;
        Path root = objects.folder();
        try (java.util.stream.Stream<Path> fanOut = Files.list(root)) {
            for (Path entry : fanOut.toList()) {
                String name = entry.getFileName().toString();
                if (name.length() == 2 && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    try (java.util.stream.Stream<Path> files = Files.list(entry)) {
                        for (Path file : files.toList()) {
                            String rest = file.getFileName().toString();
                            if (ObjectId.isId(name + rest) && !reachable.contains(ObjectId.fromString(name + rest))
                                    && old(file, before)) {
                                Files.deleteIfExists(file);
                            }
                        }
                    }
                } else if (name.startsWith("tmp_obj_") && old(entry, before)) {
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    private static boolean old(Path file, long before) throws IOException {
        return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toMillis() < before;
    }

    private static Meta parse(ObjectId id, String message) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : message.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        try {
            List<TurnKey> undoes = new ArrayList<>();
            for (String key : fields.getOrDefault("undoes", "").split(" ")) {
                if (!key.isEmpty()) {
                    undoes.add(TurnKey.parse(key));
                }
            }
            String skipped = fields.get("skipped");
            return new Meta(TurnKey.parse(fields.get("turn")), fields.getOrDefault("kind", "prompt"),
                    Phase.valueOf(fields.get("phase").toUpperCase(java.util.Locale.ROOT)), fields.getOrDefault("tool", ""),
                    skipped == null ? Optional.empty() : Optional.of(ObjectId.fromString(skipped)),
                    "yes".equals(fields.get("truncated")), undoes);
        } catch (RuntimeException e) {
            throw new LooseObjects.StoreDamaged(id, "is a commit whose message is not a checkpoint's");
        }
    }
}
