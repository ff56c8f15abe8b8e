package dev.quiver.kernel.checkpoint;

import dev.quiver.api.Workspace;
import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.UndoReport.Change;
import dev.quiver.api.host.UndoReport.Kind;
import dev.quiver.kernel.checkpoint.CheckpointStore.Meta;
import dev.quiver.kernel.checkpoint.CheckpointStore.Phase;
import dev.quiver.kernel.checkpoint.CheckpointStore.Record;
import dev.quiver.kernel.checkpoint.CheckpointStore.TurnKey;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Works out and carries out an undo. A turn's changes are what differs between its first checkpoint
 * and its last (taken when it ended): only those paths are touched, each put back as it was before the
 * first of the undone turns that changed it. A file that is no longer as the last of those turns left
 * it was changed by someone else since, and is skipped and named unless forced. Every stored file
 * needed is read and checked before anything changes, and every change goes through the workspace's
 * jail: a file is written to a temporary file and renamed into place, a link swapped in for a folder
 * on the way never leads out of the workspace, and a folder that became a link is not written through.
 */
final class Undo {

    /** A turn as the journal shows it: its checkpoints in order, and whether an undo undid it. */
    record Turn(TurnKey key, String kind, List<Record> records, boolean undone) {

        Record start() {
            return records.get(0);
        }

        Optional<Record> end() {
            return records.stream().filter(record -> record.meta().phase() == Phase.END).reduce((a, b) -> b);
        }

        /** The turn's last checkpoint: the one taken when it ended, else (it never ended) its last. */
        Record last() {
            return end().orElse(records.get(records.size() - 1));
        }

        List<String> calls() {
            return records.stream().map(record -> record.meta().tool()).filter(tool -> !tool.isEmpty()).toList();
        }
    }

    /** The journal's turns in the order they began; undo records only mark turns. */
    static List<Turn> turns(List<Record> journal) {
        Map<TurnKey, List<Record>> records = new LinkedHashMap<>();
        Map<TurnKey, String> kinds = new LinkedHashMap<>();
        Set<TurnKey> undone = new java.util.HashSet<>();
        for (Record record : journal) {
            Meta meta = record.meta();
            if (meta.phase() == Phase.UNDO) {
                undone.addAll(meta.undoes());
                continue;
            }
            records.computeIfAbsent(meta.turn(), key -> new ArrayList<>()).add(record);
            kinds.putIfAbsent(meta.turn(), meta.kind());
        }
        List<Turn> turns = new ArrayList<>();
        records.forEach((key, list) -> turns.add(new Turn(key, kinds.get(key), List.copyOf(list), undone.contains(key))));
        return turns;
    }

    /** A checkpoint's view of the files: its tree, and what exists but is not in it. */
    private record View(ObjectId tree, Map<String, String> skipped, boolean truncated) {
    }

    /** A path in a view: a file, absent, or not known (exists but was not recorded, with why). */
    private record State(Trees.Entry entry, String unknown) {

        static final State ABSENT = new State(null, null);

        boolean absent() {
            return entry == null && unknown == null;
        }

        boolean known() {
            return unknown == null;
        }

        boolean same(State other) {
            return known() && other.known() && Objects.equals(entry, other.entry);
        }
    }

    /** What the undone turns did to one path. */
    private static final class PathPlan {
        final State target;
        final Turn first;
        State lastAfter;
        Turn lastTurn;
        boolean changedBetween;

        PathPlan(State target, State after, Turn turn) {
            this.target = target;
            this.first = turn;
            this.lastAfter = after;
            this.lastTurn = turn;
        }
    }

    private final Workspace workspace;
    private final CheckpointStore store;
    private final Snapshotter snapshotter;

    Undo(Workspace workspace, CheckpointStore store, Snapshotter snapshotter) {
        this.workspace = workspace;
        this.store = store;
        this.snapshotter = snapshotter;
    }

    /** The turns that can be undone, newest first, numbered from 1. */
    List<Checkpoint> list(List<Turn> turns) throws IOException {
        Trees trees = new Trees(store.objects());
        List<Turn> open = turns.stream().filter(turn -> !turn.undone()).toList();
        List<Checkpoint> listed = new ArrayList<>();
        for (int i = open.size() - 1; i >= 0; i--) {
            listed.add(checkpoint(trees, open.get(i), listed.size() + 1));
        }
        return listed;
    }

    private static Checkpoint checkpoint(Trees trees, Turn turn, int number) throws IOException {
        int changed = trees.diff(turn.start().tree(), turn.last().tree()).size();
        return new Checkpoint(number, turn.key().session(), turn.key().turn(), turn.start().time(), changed, turn.calls());
    }

    /**
     * Undoes (or, without {@code apply}, only works out) the given turns, oldest first.
     *
     * @param by the turn the undo is recorded under
     * @param rewound how many conversation turns go with it, for the report
     */
    UndoReport run(List<Turn> chosen, boolean force, boolean apply, TurnKey by, int rewound)
            throws IOException {
        if (chosen.isEmpty()) {
            return new UndoReport(List.of(), List.of(), List.of(), apply, rewound); // turns that changed no file
        }
        Trees trees = new Trees(store.objects());
        Map<String, PathPlan> plans = new TreeMap<>();
        SortedMap<String, String> unrecorded = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        boolean truncated = false;
        List<Checkpoint> turns = new ArrayList<>();
        for (Turn turn : chosen) {
            View start = view(trees, turn.start());
            View end = view(trees, turn.last());
            truncated |= start.truncated() || end.truncated();
            Map<String, Trees.Change> changes = trees.diff(start.tree(), end.tree());
            for (Map.Entry<String, Trees.Change> change : changes.entrySet()) {
                String path = change.getKey();
                State before = state(start, change.getValue().before(), path);
                State after = state(end, change.getValue().after(), path);
                PathPlan plan = plans.get(path);
                if (plan == null) {
                    plans.put(path, new PathPlan(before, after, turn));
                } else {
                    plan.changedBetween |= !plan.lastAfter.same(before);
                    plan.lastAfter = after;
                    plan.lastTurn = turn;
                }
            }
            unrecorded.putAll(start.skipped());
            unrecorded.putAll(end.skipped());
            if (turn.end().isEmpty()) {
                notes.add("Turn " + name(turn) + " did not record its end (Quiver stopped during it), so what its "
                        + "last call (" + turn.last().meta().tool() + ") changed is not known and not restored.");
            }
            turns.add(0, new Checkpoint(chosen.size() - turns.size(), turn.key().session(), turn.key().turn(),
                    turn.start().time(), changes.size(), turn.calls()));
        }
        Snapshotter.Snapshot now = snapshotter.take();
        View current = new View(now.tree(), now.skipped(), now.truncated());
        List<Change> changes = new ArrayList<>();
        List<String> restore = new ArrayList<>();
        for (Map.Entry<String, PathPlan> entry : plans.entrySet()) {
            String path = entry.getKey();
            PathPlan plan = entry.getValue();
            State currently = state(current, trees.lookup(current.tree(), path), path);
            Kind kind = plan.target.absent() ? Kind.CREATED : plan.lastAfter.absent() ? Kind.DELETED : Kind.MODIFIED;
            String skipped = null;
            if (!plan.target.known()) {
                skipped = "it was not recorded when turn " + name(plan.first) + " began: " + plan.target.unknown();
            } else if (currently.same(plan.target)) {
                continue; // already as it was
            } else if (plan.changedBetween && !force) {
                skipped = "something other than these turns (you, another program or session) also changed it "
                        + "between them; --force restores it anyway";
            } else if (!currently.same(plan.lastAfter) && !force) {
                skipped = currently.known()
                        ? "it changed after turn " + name(plan.lastTurn) + " ended (by you, another program or session, "
                                + "or a background command); --force restores it anyway"
                        : "it cannot be compared with what turn " + name(plan.lastTurn) + " left: "
                                + currently.unknown() + "; --force restores it anyway";
            } else if (kind == Kind.CREATED && !force && existedBefore(path, plan.first.start().time())) {
                // a file the turn did not make: it was there, unrecorded (ignored until the turn changed an
                // ignore file), so deleting it would lose what no checkpoint holds
                skipped = "it was there before turn " + name(plan.first) + " began, unrecorded (ignored then?), so it "
                        + "is not deleted; --force deletes it anyway";
            } else if (kind == Kind.DELETED && !force && existsThere(path)) {
                // the checkpoints cannot see it (a turn that made it ignored records it as deleted, and
                // so does the view now), so whether it is what the turn left is not known
                skipped = "it exists but is not recorded now (ignored?); --force restores it anyway";
            }
            unrecorded.remove(path);
            changes.add(new Change(path, kind, Optional.ofNullable(skipped)));
            if (skipped == null) {
                restore.add(path);
            }
        }
        notes.addAll(0, notes(chosen, unrecorded, truncated));
        verify(plans, restore);
        if (!apply) {
            return new UndoReport(turns, changes, notes, false, rewound);
        }
        Map<String, String> failed = carryOut(trees, plans, restore, chosen);
        // the turns are marked undone now, so advice to undo again cannot be followed: say where the content is
        changes = changes.stream().map(change -> {
            String why = failed.getOrDefault(change.path(), change.skipped().orElse(null));
            return why == null ? change : new Change(change.path(), change.kind(),
                    Optional.of(leftBehind(why, change.path(), plans.get(change.path()))));
        }).toList();
        try {
            store.commit(now, new Meta(by, "undo", Phase.UNDO, "", Optional.empty(), false,
                    chosen.stream().map(Turn::key).toList()), Instant.now());
        } catch (IOException e) {
            // the files are restored by now: what failed is only the mark that they were
            notes.add("The undo could not be recorded in the checkpoint store (" + Snapshotter.reason(e) + "), so "
                    + (chosen.size() == 1 ? "this turn is" : "these turns are") + " still listed as undoable.");
        }
        return new UndoReport(turns, changes, notes, true, rewound);
    }

    /** Why a file was left as it is, and how its content from before the turns can still be had. */
    private String leftBehind(String why, String path, PathPlan plan) {
        String reason = why.replaceFirst("; (--force (restores|deletes) it anyway|move it away and undo again)$", "");
        if (!plan.target.known()) {
            return reason;
        }
        if (plan.target.absent()) {
            return reason + "; it did not exist before turn " + name(plan.first);
        }
        return reason + "; its content before turn " + name(plan.first) + " stays in the checkpoint store: git --git-dir="
                + store.folder() + " show " + plan.first.start().commit().name() + ":" + path;
    }

    private static String name(Turn turn) {
        return turn.key().turn() + " of session " + turn.key().session();
    }

    private View view(Trees trees, Record record) throws IOException {
        return new View(record.tree(), trees.skipped(record.meta().skipped()), record.meta().truncated());
    }

    private static State state(View view, Trees.Entry entry, String path) {
        if (entry != null) {
            return new State(entry, null);
        }
        String skipped = view.skipped().get(path);
        if (skipped != null) {
            return new State(null, skipped);
        }
        return view.truncated() ? new State(null, "the workspace had more files than a checkpoint records") : State.ABSENT;
    }

    /** What no undo of these turns brings back, in sentences. */
    private List<String> notes(List<Turn> chosen, SortedMap<String, String> unrecorded, boolean truncated) {
        List<String> notes = new ArrayList<>();
        Map<String, Integer> commands = new TreeMap<>();
        for (Turn turn : chosen) {
            for (String call : turn.calls()) {
                if (call.endsWith("(execute)")) {
                    commands.merge(call.substring(0, call.indexOf(' ')), 1, Integer::sum);
                }
            }
        }
        String these = chosen.size() == 1 ? "this turn" : "these turns";
        if (!commands.isEmpty()) {
            List<String> counted = new ArrayList<>();
            commands.forEach((tool, count) -> counted.add(count == 1 ? tool : tool + " ×" + count));
            notes.add(Character.toUpperCase(these.charAt(0)) + these.substring(1) + " ran commands ("
                    + String.join(", ", counted) + "). What they did beyond the workspace's files is not undone: "
                    + "network requests, processes they started, files outside the workspace.");
        }
        notes.add("Files git ignores (such as build output and dependencies) are not recorded, so what " + these
                + " did to them is not undone.");
        if (!unrecorded.isEmpty()) {
            List<String> named = new ArrayList<>();
            unrecorded.entrySet().stream().limit(10).forEach(entry -> named.add(entry.getKey() + " (" + entry.getValue() + ")"));
            notes.add("Not recorded, so not restored if " + these + " changed them: " + String.join(", ", named)
                    + (unrecorded.size() > 10 ? " and " + (unrecorded.size() - 10) + " more" : "") + ".");
        }
        if (truncated) {
            notes.add("The workspace had more than " + snapshotter.limits().files() + " files; checkpoints recorded the "
                    + "first " + snapshotter.limits().files() + " (in path order), so the rest are not restored.");
        }
        return notes;
    }

    /** Reads every stored file the restore needs and checks it, so that a damaged store changes nothing. */
    private void verify(Map<String, PathPlan> plans, List<String> restore) throws IOException {
        for (String path : restore) {
            Trees.Entry target = plans.get(path).target.entry();
            if (target != null) {
                store.objects().read(target.id(), Constants.OBJ_BLOB, snapshotter.limits().fileBytes(),
                        OutputStream.nullOutputStream());
            }
        }
    }

    /**
     * Deletes what the turns created, removes the folders that left empty and that did not hold files
     * before, then writes back what they changed or deleted. A path that cannot be restored is named
     * with why; the others go on.
     */
    private Map<String, String> carryOut(Trees trees, Map<String, PathPlan> plans, List<String> restore,
            List<Turn> chosen) {
        Map<String, String> failed = new LinkedHashMap<>();
        Path root = workspace.root();
        ObjectId before = chosen.get(0).start().tree();
        TreeSet<String> emptied = new TreeSet<>(java.util.Comparator.reverseOrder());
        for (String path : restore) {
            if (plans.get(path).target.absent()) {
                try {
                    workspace.delete(root.resolve(path));
                    for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
                        emptied.add(path.substring(0, slash));
                    }
                } catch (NoSuchFileException gone) {
                    // already gone: as it was
                } catch (IOException e) {
                    failed.put(path, "it could not be deleted: " + Snapshotter.reason(e));
                }
            }
        }
        for (String folder : emptied) {
            try {
                if (!trees.hasFolder(before, folder) && isEmptyFolder(root.resolve(folder))) {
                    workspace.delete(root.resolve(folder));
                }
            } catch (IOException e) {
                // an empty folder left behind loses nothing
            }
        }
        for (String path : restore) {
            Trees.Entry target = plans.get(path).target.entry();
            if (target == null) {
                continue;
            }
            try {
                restore(path, target);
            } catch (IOException e) {
                failed.put(path, "it could not be restored: " + Snapshotter.reason(e));
            }
        }
        return failed;
    }

    private static boolean isEmptyFolder(Path folder) {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (java.util.stream.Stream<Path> entries = Files.list(folder)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    /** Puts one file or link back as recorded. */
    private void restore(String path, Trees.Entry target) throws IOException {
        Path root = workspace.root();
        Path file = root.resolve(path);
        // a folder on the way that is a link now would take the write elsewhere in the workspace
        for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
            BasicFileAttributes folder = attributes(root.resolve(path.substring(0, slash)));
            if (folder != null && !folder.isDirectory()) {
                throw new IOException(path.substring(0, slash) + " is now " + (folder.isSymbolicLink()
                        ? "a symbolic link" : "a file") + ", not the folder it was; move it away and undo again");
            }
        }
        BasicFileAttributes there = attributes(file);
        if (there != null && there.isDirectory()) {
            if (!isEmptyFolder(file)) {
                throw new IOException("it is now a folder that holds files; move it away and undo again");
            }
            workspace.delete(file);
        } else if (there != null && (target.isLink() || !there.isRegularFile())) {
            workspace.delete(file); // a link is replaced, never written through
        }
        byte[] content = store.objects().read(target.id(), Constants.OBJ_BLOB, snapshotter.limits().fileBytes());
        if (target.isLink()) {
            workspace.createLink(file, Path.of(new String(content, StandardCharsets.UTF_8)));
            return;
        }
        workspace.write(file, content);
        Set<PosixFilePermission> now = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> wanted = EnumSet.noneOf(PosixFilePermission.class);
        wanted.addAll(now);
        wanted.removeAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                PosixFilePermission.OTHERS_EXECUTE));
        if (target.isExecutable()) {
            // as git checks out an executable: executable by whoever may read it
            wanted.add(PosixFilePermission.OWNER_EXECUTE);
            if (now.contains(PosixFilePermission.GROUP_READ)) {
                wanted.add(PosixFilePermission.GROUP_EXECUTE);
            }
            if (now.contains(PosixFilePermission.OTHERS_READ)) {
                wanted.add(PosixFilePermission.OTHERS_EXECUTE);
            }
        }
        if (!wanted.equals(now)) {
            workspace.setPermissions(file, wanted);
        }
    }

    /**
     * Whether something is at the path itself, through real folders only: behind a folder that became a
     * link is somewhere else, which the restore refuses on its own.
     */
    private boolean existsThere(String path) {
        Path root = workspace.root();
        for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
            BasicFileAttributes folder = attributes(root.resolve(path.substring(0, slash)));
            if (folder == null || !folder.isDirectory()) {
                return false;
            }
        }
        return attributes(root.resolve(path)) != null;
    }

    /**
     * Whether the file at {@code path} is older than {@code start}: made before it (its creation time,
     * where the file system keeps one) or last modified before it, which it cannot be if it was made
     * after. A command can set an old modification time; that only leaves a file undeleted, and named.
     * The store keeps a turn's start to the second, so a file made in that same second before the turn
     * counts as the turn's.
     */
    private boolean existedBefore(String path, Instant start) {
        if (!existsThere(path)) {
            return false;
        }
        BasicFileAttributes file = attributes(workspace.root().resolve(path));
        return file != null && (file.creationTime().toInstant().isBefore(start)
                || file.lastModifiedTime().toInstant().isBefore(start));
    }

    private static BasicFileAttributes attributes(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException missing) {
            return null;
        }
    }
}
