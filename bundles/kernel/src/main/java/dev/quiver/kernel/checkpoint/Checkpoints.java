package dev.quiver.kernel.checkpoint;

import dev.quiver.api.Workspace;
import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.UndoReport;
import dev.quiver.kernel.checkpoint.CheckpointStore.Meta;
import dev.quiver.kernel.checkpoint.CheckpointStore.Phase;
import dev.quiver.kernel.checkpoint.CheckpointStore.TurnKey;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A workspace's checkpoints, as a session takes them and as undo uses them. A session begins a turn
 * (the workspace is looked at in the background meanwhile, so that the first checkpoint, which reads
 * every file, costs the model's thinking time rather than the call's), records a checkpoint before
 * every call that can change files, and one when the turn ends if it recorded any. A checkpoint that
 * fails never stops the call: the failure is logged and told once, until one succeeds again.
 */
public final class Checkpoints {

    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
    /** The store's folder in the workspace's state folder. */
    public static final String FOLDER = "checkpoints";
    /** How long a checkpoint waits for another session's; then it fails (and the call runs). */
    static final Duration LOCK_WAIT = Duration.ofSeconds(5);

    private final Workspace workspace;
    private final Path folder;
    private final Snapshotter.Limits limits;
    private final Duration lockWait;
    private final Executor background;
    /** Made when first needed: a session that never changes a file loads none of it. */
    private Parts parts;
    private TurnKey turn;
    private String kind = "call";
    private boolean recorded;
    private boolean failing;
    /**
     * The last checkpoint failed on the lock: another process holds it, perhaps stopped while holding
     * it, so the next ones try it once instead of making every call wait.
     */
    private boolean lockBusy;
    /** The turns this object recorded checkpoints in: undoing them needs the store. */
    private final Set<TurnKey> recordedTurns = new HashSet<>();

    /** The store, what records the workspace into it, and what undoes from it. */
    private record Parts(CheckpointStore store, Snapshotter snapshotter, Undo undo) {
    }

    /**
     * @param stateFolder Quiver's state folder for the workspace, outside its working tree
     * @param background where the start of a turn looks at the workspace
     */
    public Checkpoints(Workspace workspace, Path stateFolder, Executor background) {
        this(workspace, stateFolder.resolve(FOLDER), background, Snapshotter.Limits.DEFAULT, LOCK_WAIT);
    }

    Checkpoints(Workspace workspace, Path folder, Executor background, Snapshotter.Limits limits, Duration lockWait) {
        this.workspace = workspace;
        this.folder = folder;
        this.background = background;
        this.limits = limits;
        this.lockWait = lockWait;
    }

    private synchronized Parts parts() {
        if (parts == null) {
            CheckpointStore store = new CheckpointStore(folder, lockWait);
            Snapshotter snapshotter = new Snapshotter(workspace, store.objects(),
                    new StatCache(folder.resolve(CheckpointStore.CACHE)), limits);
            parts = new Parts(store, snapshotter, new Undo(workspace, store, snapshotter));
        }
        return parts;
    }

    /** What records the workspace; for tests. */
    Snapshotter snapshotter() {
        return parts().snapshotter();
    }

    /** Where the checkpoints are stored. */
    public Path folder() {
        return folder;
    }

    /**
     * A turn begins: {@code prompt} for one of the agent, {@code call} for a call run directly.
     *
     * @param lookAhead look at the workspace (and store new files) in the background now, for the
     *     first checkpoint: worth it while a model thinks, not before a call that runs at once
     */
    public synchronized void beginTurn(String session, int number, String turnKind, boolean lookAhead) {
        turn = new TurnKey(session, number);
        kind = turnKind;
        recorded = false;
        if (!lookAhead) {
            return;
        }
        Snapshotter snapshotter = parts().snapshotter();
        try {
            background.execute(() -> {
                try {
                    snapshotter.take();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Looking at the workspace ahead of a checkpoint failed", e);
                }
            });
        } catch (RejectedExecutionException closing) {
            // the session is closing: the checkpoint looks for itself
        }
    }

    /**
     * Records the workspace before a call that can change files.
     *
     * @param tool the call, with its access class: {@code bash (execute)}
     * @return what to tell the user when it failed (once, until a checkpoint succeeds again)
     */
    public synchronized Optional<String> beforeCall(String tool) {
        Optional<String> problem = record(recorded ? Phase.CALL : Phase.START, tool);
        return problem.map(reason -> "Quiver could not record a checkpoint before this call (" + reason + "), so undo "
                + "cannot bring back what it changes; it runs all the same. The checkpoints are kept in "
                + folder + ".");
    }

    /**
     * The turn ended: records the workspace once more if any checkpoint was taken in it, so that a
     * change made after it counts as someone else's.
     *
     * @return what to tell the user when it failed (once, until a checkpoint succeeds again)
     */
    public synchronized Optional<String> endTurn() {
        if (turn == null || !recorded) {
            turn = null;
            saveCacheIfFree();
            return Optional.empty();
        }
        Optional<String> problem = record(Phase.END, "");
        turn = null;
        return problem.map(reason -> "Quiver could not record the checkpoint at the end of this turn (" + reason
                + "), so undo will count what the turn's last call changed as changed by someone else.");
    }

    /**
     * A turn that recorded nothing may still have read files (looking ahead, or a checkpoint that
     * failed): their stat cache entries are saved for the next process, when the lock is free at once.
     */
    private void saveCacheIfFree() {
        Parts made = parts;
        if (made == null || !made.snapshotter().cacheUnsaved()) {
            return;
        }
        try {
            made.store().locked(() -> {
                made.snapshotter().saveCache(true);
                return null;
            }, Duration.ZERO);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Saving the stat cache of {} failed", folder, e);
        }
    }

    private Optional<String> record(Phase phase, String tool) {
        try {
            if (turn == null) {
                // a caller that began no turn: told like any failure, never thrown at the call
                throw new IllegalStateException("a checkpoint outside a turn");
            }
            Parts made = parts();
            Snapshotter.Snapshot snapshot = made.snapshotter().take();
            Meta meta = new Meta(turn, kind, phase, tool, Optional.empty(), false, List.of());
            made.store().locked(() -> {
                made.store().commit(snapshot, meta, Instant.now());
                made.snapshotter().saveCache(phase == Phase.END);
                if (phase == Phase.END) {
                    prune(made);
                }
                return null;
            }, lockBusy ? Duration.ZERO : lockWait);
            recorded = true;
            recordedTurns.add(turn);
            failing = false;
            lockBusy = false;
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            lockBusy = e instanceof CheckpointStore.LockBusy;
            if (failing) {
                LOG.debug("A checkpoint failed again", e);
                return Optional.empty();
            }
            failing = true;
            LOG.warn("A checkpoint of {} in {} failed", workspace.root(), folder, e);
            return Optional.of(e instanceof IOException io ? Snapshotter.reason(io) : String.valueOf(e));
        }
    }

    /** Prunes the store after a turn; a failure costs only space, so it is logged, never told. */
    private void prune(Parts made) {
        try {
            if (made.store().prune(made.snapshotter().cached())) {
                LOG.debug("Pruned the checkpoints of {} to the newest {} turns", workspace.root(),
                        CheckpointStore.KEPT_TURNS);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Pruning the checkpoint store {} failed", folder, e);
        }
    }

    /** The workspace's turns that can be undone, newest first. */
    public List<Checkpoint> list() {
        requireStore();
        Parts made = parts();
        try {
            CheckpointStore.Journal journal = made.store().read();
            journal.dropped().ifPresent(why -> LOG.warn("The last line of the checkpoint journal in {} is damaged and "
                    + "left out: {}", folder, why));
            return made.undo().list(Undo.turns(journal.records()));
        } catch (IOException e) {
            throw failure(e, false);
        }
    }

    /**
     * Undoes the workspace's newest {@code count} turns, of any session.
     *
     * @param by who undoes, for the record: a session's id, or {@code quiver undo}'s name
     */
    public UndoReport undoNewest(int count, boolean force, String by) {
        requireCount(count);
        requireStore();
        Parts made = parts();
        try {
            return made.store().locked(() -> {
                CheckpointStore.Journal journal = made.store().read();
                List<Undo.Turn> open = Undo.turns(journal.records()).stream().filter(turn -> !turn.undone())
                        .toList();
                if (open.isEmpty()) {
                    throw new HostException("No turn in " + workspace.root() + " has changes left to undo.");
                }
                if (count > open.size()) {
                    throw new HostException("Only " + open.size() + " turn" + (open.size() == 1 ? " has" : "s have")
                            + " changes that can be undone in " + workspace.root() + ", not " + count
                            + "; quiver undo --list shows them.");
                }
                List<Undo.Turn> chosen = open.subList(open.size() - count, open.size());
                UndoReport report = made.undo().run(chosen, force, true, new TurnKey(by, 0), 0);
                return withDropped(withConversations(report, chosen), journal);
            });
        } catch (IOException e) {
            throw failure(e, true);
        }
    }

    /**
     * A turn that recorded no checkpoint changed no file, unless the store was pruned since: then it may
     * be one of those pruned, which is said.
     */
    private UndoReport withPruned(UndoReport report, Set<TurnKey> wanted, List<Undo.Turn> chosen) {
        Set<TurnKey> missing = new TreeSet<>(java.util.Comparator.comparing(TurnKey::turn));
        missing.addAll(wanted);
        chosen.forEach(turn -> missing.remove(turn.key()));
        if (missing.isEmpty() || !java.nio.file.Files.exists(folder.resolve(CheckpointStore.PRUNED))) {
            return report;
        }
        List<String> notes = new ArrayList<>(report.notes());
        notes.add("The checkpoints keep the newest " + CheckpointStore.KEPT_TURNS + " turns of the workspace; "
                + (missing.size() == 1 ? "turn " : "turns ") + String.join(", ", missing.stream().map(key -> String.valueOf(key.turn())).toList())
                + " left none, so what it changed, if anything, is not restored.");
        return new UndoReport(report.turns(), report.changes(), notes, report.applied(), report.rewound());
    }

    /** The journal's damaged last line, left out: said, as what it named is not used. */
    private UndoReport withDropped(UndoReport report, CheckpointStore.Journal journal) {
        if (journal.dropped().isEmpty()) {
            return report;
        }
        List<String> notes = new ArrayList<>(report.notes());
        notes.add("The last line of the checkpoint journal in " + folder + " is damaged (" + journal.dropped().get()
                + "; Quiver was probably stopped while recording it), so that checkpoint is left out: what the turn "
                + "it belonged to changed after the one before it is not restored.");
        return new UndoReport(report.turns(), report.changes(), notes, report.applied(), report.rewound());
    }

    /** A stored conversation still holds the turns {@code quiver undo} undid: said, so the model is told. */
    private static UndoReport withConversations(UndoReport report, List<Undo.Turn> chosen) {
        Set<String> sessions = new TreeSet<>();
        chosen.stream().filter(turn -> turn.kind().equals("prompt")).forEach(turn -> sessions.add(turn.key().session()));
        if (sessions.isEmpty()) {
            return report;
        }
        List<String> notes = new ArrayList<>(report.notes());
        notes.add("The conversation of session " + String.join(", ", sessions) + " still holds "
                + (chosen.size() == 1 ? "this turn" : "these turns") + "; if you continue it (quiver --resume ID), "
                + "tell the model what was undone.");
        return new UndoReport(report.turns(), report.changes(), notes, report.applied(), report.rewound());
    }

    /**
     * Undoes (or, without {@code apply}, only works out) turns of one session: those of the given
     * numbers that recorded checkpoints. Turns that recorded none changed no file.
     *
     * @param rewound how many conversation turns the session rewinds with it, for the report
     */
    public UndoReport undoSession(String session, List<Integer> numbers, boolean force, boolean apply, int rewound) {
        requireCount(numbers.size());
        Set<TurnKey> wanted = new HashSet<>();
        numbers.forEach(number -> wanted.add(new TurnKey(session, number)));
        if (!exists()) {
            if (wanted.stream().anyMatch(recordedTurns::contains)) {
                requireStore();
            }
            return new UndoReport(List.of(), List.of(), List.of(), apply, rewound);
        }
        Parts made = parts();
        try {
            CheckpointStore.Locked<UndoReport> body = () -> {
                CheckpointStore.Journal journal = made.store().read();
                List<Undo.Turn> chosen = Undo.turns(journal.records()).stream()
                        .filter(turn -> wanted.contains(turn.key()) && !turn.undone()).toList();
                UndoReport report = made.undo().run(chosen, force, apply, new TurnKey(session, 0), rewound);
                return withDropped(withPruned(report, wanted, chosen), journal);
            };
            return apply ? made.store().locked(body) : body.run();
        } catch (IOException e) {
            throw failure(e, apply);
        }
    }

    private static void requireCount(int count) {
        if (count < 1) {
            throw new HostException("Give a number of turns to undo of 1 or more.");
        }
    }

    /** Whether checkpoints were ever recorded here: a journal exists. */
    private boolean exists() {
        return java.nio.file.Files.isRegularFile(folder.resolve(CheckpointStore.JOURNAL),
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    private void requireStore() {
        if (!exists()) {
            throw new HostException("No checkpoints are recorded for " + workspace.root() + " (there is no store at "
                    + folder + "), so there is nothing to undo. Quiver records one before every call that can "
                    + "change files.");
        }
    }

    private HostException failure(IOException e, boolean changing) {
        String nothing = changing ? " Nothing was changed." : "";
        if (e instanceof LooseObjects.StoreDamaged) {
            return new HostException("The checkpoint store " + folder + " is damaged: " + e.getMessage() + "."
                    + nothing + " Undo cannot use it; remove that folder to start a new one (the turns it recorded "
                    + "can no longer be undone then).", e);
        }
        return new HostException("Cannot use the checkpoint store " + folder + ": " + Snapshotter.reason(e)
                + "." + nothing, e);
    }
}
