package dev.quiver.kernel.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace;
import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.UndoReport.Kind;
import dev.quiver.testing.FileTrees;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints and undo on real files in temporary folders: what a turn changed, created or deleted
 * comes back byte for byte with its mode, nothing else is touched, and a store that is damaged,
 * missing, unwritable or locked is said, never a reason to change files or to stop a call.
 */
class CheckpointsTest {

    private static final Snapshotter.Limits LIMITS = Snapshotter.Limits.DEFAULT;

    @TempDir
    Path temp;

    private Path root;
    private Path store;
    private Workspace workspace;
    private Checkpoints checkpoints;

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        store = temp.resolve("state").resolve(Checkpoints.FOLDER);
        workspace = new WorkspaceFactoryComponent().open(root);
        checkpoints = open(LIMITS);
    }

    private Checkpoints open(Snapshotter.Limits limits) {
        return new Checkpoints(workspace, store, Runnable::run, limits, Duration.ofMillis(300));
    }

    /** What changes the workspace during a turn: a tool, a command, or (between turns) the user. */
    private interface Change {
        void run() throws Exception;
    }

    /** One turn of session {@code s1}: a checkpoint before the call, the call's change, the turn's end. */
    private void turn(int number, Change change) throws Exception {
        checkpoints.beginTurn("s1", number, "prompt", false);
        assertEquals(Optional.empty(), checkpoints.beforeCall("bash (execute)"));
        change.run();
        assertEquals(Optional.empty(), checkpoints.endTurn());
    }

    private Path write(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }

    private void sh(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command).directory(root.toFile()).inheritIO().start();
        assertEquals(0, process.waitFor(), command);
    }

    /** Everything under the root but .git: each file's bytes and mode, each link's text, each folder. */
    private Map<String, String> tree() throws IOException {
        return FileTrees.of(root, relative -> !relative.startsWith(".git"));
    }

    /** The store's objects, to look at and to damage. */
    private LooseObjects objects() {
        return new LooseObjects(store.resolve("objects"), () -> { });
    }

    private static Map<String, Kind> kinds(UndoReport report) {
        Map<String, Kind> kinds = new TreeMap<>();
        report.changes().forEach(change -> kinds.put(change.path(), change.kind()));
        return kinds;
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void whatATurnModifiedCreatedAndDeletedComesBackByteForByteWithItsMode() throws Exception {
        write("src/main/A.java", "class A {}\n");
        write("src/main/B.java", "class B {}\n");
        write("src/test/T.java", "class T {}\n");
        Path script = write("run.sh", "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.write(root.resolve("data.bin"), random(300_000, 1)); // streamed, not held in memory
        Map<String, String> before = tree();
        turn(1, () -> {
            write("src/main/A.java", "class A { int changed; }\n");
            Files.delete(root.resolve("src/main/B.java"));
            write("src/new/deep/N.txt", "new\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
            Files.write(root.resolve("data.bin"), random(300_000, 2));
        });
        assertNotEquals(before, tree());

        UndoReport report = checkpoints.undoNewest(1, false, "test");

        assertEquals(before, tree(), "every file as it was, the new folders gone");
        assertEquals(Map.of("data.bin", Kind.MODIFIED, "run.sh", Kind.MODIFIED, "src/main/A.java", Kind.MODIFIED,
                "src/main/B.java", Kind.DELETED, "src/new/deep/N.txt", Kind.CREATED), kinds(report));
        assertTrue(report.applied());
        assertEquals(report.changes(), report.restored(), "nothing skipped: " + report.skipped());
        assertEquals(1, report.turns().size());
        assertEquals("s1", report.turns().get(0).session());
        assertTrue(report.notes().get(0).startsWith("This turn ran commands (bash)."), report.notes().toString());
        assertTrue(report.notes().get(1).contains("Files git ignores"), report.notes().toString());
        assertEquals(List.of(), checkpoints.list(), "an undone turn is not listed again");
    }

    @Test
    void aFolderARealCommandDeletedComesBackByteForByte() throws Exception {
        write("src/Main.java", "public class Main {}\n");
        write("src/util/Strings.java", "final class Strings {}\n");
        Files.write(root.resolve("src/util/table.bin"), random(4096, 3));
        Map<String, String> before = tree();
        turn(1, () -> sh("rm -rf src"));
        assertFalse(Files.exists(root.resolve("src")));
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(before, tree());
        assertEquals(3, report.restored().size());
        assertTrue(report.restored().stream().allMatch(change -> change.kind() == Kind.DELETED));
    }

    @Test
    void filesGitIgnoresAreNeitherRecordedNorTouchedAndUndoSaysSo() throws Exception {
        sh("git init -q");
        write(".gitignore", "build/\n*.log\n");
        write("README.md", "read me\n");
        write("build/out.txt", "built\n");
        write("debug.log", "log\n");
        turn(1, () -> {
            Files.delete(root.resolve("README.md"));
            write("build/out.txt", "built again\n");
            Files.delete(root.resolve("debug.log"));
            write(".git/description", "changed by a command\n");
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(Map.of("README.md", Kind.DELETED), kinds(report), "only what git does not ignore; never .git");
        assertEquals("read me\n", Files.readString(root.resolve("README.md")));
        assertEquals("built again\n", Files.readString(root.resolve("build/out.txt")));
        assertFalse(Files.exists(root.resolve("debug.log")));
        assertEquals("changed by a command\n", Files.readString(root.resolve(".git/description")));
        assertTrue(report.notes().stream().anyMatch(note -> note.startsWith("Files git ignores (such as build output")),
                report.notes().toString());
    }

    @Test
    void aFileATurnMadeIgnoredIsNotOverwrittenUnlessForced() throws Exception {
        sh("git init -q");
        write(".gitignore", "*.log\n");
        write("gen.txt", "as it was\n");
        turn(1, () -> {
            write(".gitignore", "*.log\ngen.txt\n"); // the checkpoints no longer see gen.txt
            write("gen.txt", "newer, and the user's\n");
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(Map.of(".gitignore", Kind.MODIFIED, "gen.txt", Kind.DELETED), kinds(report));
        assertEquals("*.log\n", Files.readString(root.resolve(".gitignore")));
        assertEquals("newer, and the user's\n", Files.readString(root.resolve("gen.txt")), "not overwritten unseen");
        assertEquals(List.of("gen.txt"), report.skipped().stream().map(UndoReport.Change::path).toList());
        assertTrue(report.skipped().get(0).skipped().orElseThrow().startsWith("it exists but is not recorded now (ignored?)"),
                report.toString());
    }

    @Test
    void filesThatWereIgnoredBeforeATurnChangedTheIgnoreRulesAreNotDeletedByUndo() throws Exception {
        sh("git init -q");
        write(".gitignore", ".env\nbuild/\n");
        write(".env", "KEY=the user's only copy\n");
        write("build/app.bin", "built\n");
        Thread.sleep(1100); // the files are older than the turn, whose start the store keeps to the second
        turn(1, () -> Files.delete(root.resolve(".gitignore"))); // the checkpoints now see .env and build/
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(".env\nbuild/\n", Files.readString(root.resolve(".gitignore")));
        assertEquals("KEY=the user's only copy\n", Files.readString(root.resolve(".env")), "never deleted");
        assertEquals("built\n", Files.readString(root.resolve("build/app.bin")));
        assertEquals(List.of(".env", "build/app.bin"), report.skipped().stream().map(UndoReport.Change::path).toList());
        assertTrue(report.skipped().get(0).skipped().orElseThrow().startsWith("it was there before turn"), report.toString());

        // a file the turn itself made is still deleted
        turn(2, () -> write("made.txt", "by the turn\n"));
        checkpoints.undoNewest(1, false, "test");
        assertFalse(Files.exists(root.resolve("made.txt")));
    }

    @Test
    void aFileAnUndoLeftBehindNamesTheCommandThatStillGivesItsEarlierContent() throws Exception {
        write("a.txt", "before the turn\n");
        write("b.txt", "b before\n");
        turn(1, () -> {
            write("a.txt", "the turn's\n");
            write("b.txt", "b the turn's\n");
        });
        write("a.txt", "the user's, since\n");
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals("b before\n", Files.readString(root.resolve("b.txt")));
        String why = report.skipped().get(0).skipped().orElseThrow();
        assertFalse(why.contains("--force"), "the turn is undone now: --force could not reach it: " + why);
        String command = why.substring(why.indexOf("git --git-dir="));
        Process git = new ProcessBuilder("sh", "-c", command).directory(root.toFile()).start();
        assertEquals("before the turn\n", new String(git.getInputStream().readAllBytes()), command);
        assertEquals(0, git.waitFor());
        assertEquals("the user's, since\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void namesGitRefusesAreSkippedAndNamedAndOddNamesKept() throws Exception {
        write("sub/.GIT/config", "a hostile repository's folder\n");
        write(".Git", "a file\n");
        write("tab\tand\nnewline.txt", "odd but legal\n");
        write("plain.txt", "plain\n");
        Files.write(root.resolve("big.bin"), random(3000, 6));
        checkpoints = open(new Snapshotter.Limits(2000, 100_000, 1L << 30, Duration.ofSeconds(30)));
        turn(1, () -> {
            write("plain.txt", "changed\n");
            write("tab\tand\nnewline.txt", "changed too\n");
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(Map.of("plain.txt", Kind.MODIFIED, "tab\tand\nnewline.txt", Kind.MODIFIED), kinds(report));
        assertEquals("odd but legal\n", Files.readString(root.resolve("tab\tand\nnewline.txt")));
        String notes = String.join("\n", report.notes());
        assertTrue(notes.contains(".Git (git records nothing named .git, in any case)"), notes);
        assertTrue(notes.contains("sub/.GIT/config (git records nothing named .git, in any case)"), notes);
        assertTrue(notes.contains("big.bin (it is over 2000 bytes)"), notes);
    }

    @Test
    void aLinkIsRecordedAndRestoredAsALinkNeverFollowed() throws Exception {
        write("README.md", "the real text\n");
        Files.createDirectories(root.resolve("docs"));
        Files.createSymbolicLink(root.resolve("docs/readme.md"), Path.of("../README.md"));
        Path outside = Files.writeString(temp.resolve("outside.txt"), "outside\n");
        Files.createSymbolicLink(root.resolve("out.txt"), outside); // leads out: never recorded
        turn(1, () -> {
            Files.delete(root.resolve("docs/readme.md"));
            write("docs/readme.md", "a plain file now\n");
            Files.delete(root.resolve("out.txt"));
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(Map.of("docs/readme.md", Kind.MODIFIED), kinds(report));
        Path link = root.resolve("docs/readme.md");
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(Path.of("../README.md"), Files.readSymbolicLink(link));
        assertEquals("the real text\n", Files.readString(root.resolve("README.md")));
        assertFalse(Files.exists(root.resolve("out.txt"), LinkOption.NOFOLLOW_LINKS), "a link out was never recorded");
        assertEquals("outside\n", Files.readString(outside));
    }

    @Test
    void aFolderSwappedForALinkIsNotWrittenThroughInsideOrOut() throws Exception {
        write("src/a.txt", "a\n");
        write("lib/b.txt", "b\n");
        write("other/a.txt", "other's a\n");
        Path outside = Files.createDirectories(temp.resolve("outside"));
        turn(1, () -> {
            sh("rm -rf src lib");
            Files.createSymbolicLink(root.resolve("src"), Path.of("other"));
            Files.createSymbolicLink(root.resolve("lib"), outside);
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        Map<String, String> skipped = new TreeMap<>();
        report.skipped().forEach(change -> skipped.put(change.path(), change.skipped().orElseThrow()));
        assertEquals(List.of("lib/b.txt", "src/a.txt"), List.copyOf(skipped.keySet()), report.toString());
        assertTrue(skipped.get("src/a.txt").startsWith("it could not be restored: src is now a symbolic link"),
                skipped.get("src/a.txt"));
        assertEquals("other's a\n", Files.readString(root.resolve("other/a.txt")));
        try (Stream<Path> written = Files.list(outside)) {
            assertEquals(0, written.count(), "nothing was written outside the workspace");
        }
    }

    @Test
    void aFileChangedSinceTheTurnEndedIsSkippedAndNamedUnlessForced() throws Exception {
        write("a.txt", "before\n");
        write("b.txt", "b before\n");
        turn(1, () -> {
            write("a.txt", "by quiver\n");
            write("b.txt", "b by quiver\n");
        });
        write("a.txt", "by the user afterwards\n");
        UndoReport preview = checkpoints.undoSession("s1", List.of(1), false, false, 1);
        assertFalse(preview.applied());
        assertEquals("b by quiver\n", Files.readString(root.resolve("b.txt")), "a preview changes nothing");

        UndoReport report = checkpoints.undoSession("s1", List.of(1), false, true, 1);
        assertEquals(List.of("b.txt"), report.restored().stream().map(UndoReport.Change::path).toList());
        UndoReport.Change skipped = report.skipped().get(0);
        assertEquals("a.txt", skipped.path());
        assertTrue(skipped.skipped().orElseThrow().startsWith("it changed after turn 1 of session s1 ended"),
                skipped.toString());
        assertEquals("by the user afterwards\n", Files.readString(root.resolve("a.txt")));
        assertEquals("b before\n", Files.readString(root.resolve("b.txt")));
    }

    @Test
    void forceRestoresAFileChangedSinceAndTheStoreKeepsWhatItReplaced() throws Exception {
        write("a.txt", "before\n");
        turn(1, () -> write("a.txt", "by quiver\n"));
        write("a.txt", "by the user afterwards\n");
        UndoReport report = checkpoints.undoNewest(1, true, "test");
        assertEquals(1, report.restored().size());
        assertEquals("before\n", Files.readString(root.resolve("a.txt")));
        // the undo recorded what it overwrote: the user's text is in the store
        ObjectId users = new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB,
                "by the user afterwards\n".getBytes(StandardCharsets.UTF_8));
        assertTrue(Files.isRegularFile(objects().file(users)));
    }

    @Test
    void undoingSeveralTurnsPutsBackTheStateBeforeTheFirstAndKeepsTheUsersOwnChanges() throws Exception {
        write("a.txt", "a0\n");
        write("mine.txt", "mine 0\n");
        turn(1, () -> write("a.txt", "a1\n"));
        write("mine.txt", "mine 1, between the turns\n");
        turn(2, () -> write("b.txt", "b2\n"));
        turn(3, () -> {
            write("a.txt", "a3\n");
            Files.delete(root.resolve("b.txt"));
        });
        List<Checkpoint> listed = checkpoints.list();
        assertEquals(List.of(1, 2, 3), listed.stream().map(Checkpoint::number).toList());
        assertEquals(List.of(3, 2, 1), listed.stream().map(Checkpoint::turn).toList(), "newest first");
        assertEquals(List.of(2, 1, 1), listed.stream().map(Checkpoint::changedFiles).toList());
        assertEquals(List.of("bash (execute)"), listed.get(0).calls());

        HostException tooMany = assertThrows(HostException.class, () -> checkpoints.undoNewest(4, false, "test"));
        assertTrue(tooMany.getMessage().startsWith("Only 3 turns have changes that can be undone"), tooMany.getMessage());

        UndoReport report = checkpoints.undoNewest(3, false, "test");
        assertEquals(List.of(3, 2, 1), report.turns().stream().map(Checkpoint::turn).toList());
        assertEquals("a0\n", Files.readString(root.resolve("a.txt")));
        assertFalse(Files.exists(root.resolve("b.txt")));
        assertEquals("mine 1, between the turns\n", Files.readString(root.resolve("mine.txt")));
        assertEquals(Map.of("a.txt", Kind.MODIFIED), kinds(report), "b.txt came and went within the turns");
    }

    @Test
    void twentyTurnsBackIsReachable() throws Exception {
        write("count.txt", "0\n");
        for (int turn = 1; turn <= 25; turn++) {
            int value = turn;
            turn(turn, () -> write("count.txt", value + "\n"));
        }
        assertEquals(25, checkpoints.list().size());
        checkpoints.undoNewest(20, false, "test");
        assertEquals("5\n", Files.readString(root.resolve("count.txt")));
        assertEquals(5, checkpoints.list().size());
    }

    @Test
    void aLongJournalIsPrunedToTheNewestTurnsAndWhatOnlyOldTurnsNamedIsRemoved() throws Exception {
        write("count.txt", "0\n");
        ObjectInserter.Formatter ids = new ObjectInserter.Formatter();
        ObjectId first = ids.idFor(Constants.OBJ_BLOB, "1\n".getBytes(StandardCharsets.UTF_8));
        LooseObjects objects = objects();
        int turns = CheckpointStore.PRUNE_LINES / 2; // two checkpoints a turn: the last turn's end prunes
        for (int turn = 1; turn < turns; turn++) {
            int value = turn;
            turn(turn, () -> write("count.txt", value + "\n"));
        }
        assertTrue(Files.isRegularFile(objects.file(first)));
        try (Stream<Path> files = Files.walk(store.resolve("objects"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() - 7_200_000));
            }
        }
        turn(turns, () -> write("count.txt", turns + "\n"));

        assertEquals(2 * CheckpointStore.KEPT_TURNS, Files.readAllLines(store.resolve(CheckpointStore.JOURNAL)).size());
        assertFalse(Files.exists(objects.file(first)), "the content only pruned turns named is gone");
        List<Checkpoint> listed = checkpoints.list();
        assertEquals(CheckpointStore.KEPT_TURNS, listed.size());
        assertEquals(turns, listed.get(0).turn());
        checkpoints.undoNewest(CheckpointStore.KEPT_TURNS, false, "test");
        assertEquals((turns - CheckpointStore.KEPT_TURNS) + "\n", Files.readString(root.resolve("count.txt")));

        write("count.txt", "after\n");
        UndoReport old = checkpoints.undoSession("s1", List.of(3), false, true, 1);
        assertEquals(List.of(), old.changes());
        assertTrue(old.notes().contains("The checkpoints keep the newest 50 turns of the workspace; turn 3 left "
                + "none, so what it changed, if anything, is not restored."), old.notes().toString());
    }

    @Test
    void aLongJournalWithNothingToDropIsNotRewritten() throws Exception {
        write("a.txt", "a\n");
        checkpoints.beginTurn("s1", 1, "prompt", false);
        for (int call = 0; call < CheckpointStore.PRUNE_LINES; call++) {
            assertEquals(Optional.empty(), checkpoints.beforeCall("bash (execute)"));
        }
        write("a.txt", "b\n");
        assertEquals(Optional.empty(), checkpoints.endTurn());
        assertEquals(CheckpointStore.PRUNE_LINES + 1, Files.readAllLines(store.resolve(CheckpointStore.JOURNAL)).size());
        assertFalse(Files.exists(store.resolve(CheckpointStore.PRUNED)),
                "one turn, all kept: no prune, so no process forgets what it knew as stored");
        checkpoints.undoNewest(1, false, "test");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void theStatCacheIsSavedAtTheEndOfATurnThatRecordedNothing() throws Exception {
        write("a.txt", "a\n");
        checkpoints.beginTurn("s1", 1, "prompt", true); // looks at the workspace ahead, then no call changes files
        assertEquals(Optional.empty(), checkpoints.endTurn());
        assertTrue(Files.exists(store.resolve(CheckpointStore.CACHE)), "what was read is kept for the next process");
        assertFalse(Files.exists(store.resolve(CheckpointStore.JOURNAL)), "and no checkpoint recorded");
    }

    @Test
    void aDamagedObjectMakesUndoSaySoAndChangeNothing() throws Exception {
        write("a.txt", "the original text\n");
        turn(1, () -> write("a.txt", "changed\n"));
        ObjectId original = new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB,
                "the original text\n".getBytes(StandardCharsets.UTF_8));
        Path object = objects().file(original);
        byte[] bytes = Files.readAllBytes(object);
        bytes[bytes.length / 2] ^= 0x55;
        Files.write(object, bytes);
        HostException damaged = assertThrows(HostException.class, () -> checkpoints.undoNewest(1, false, "test"));
        assertTrue(damaged.getMessage().startsWith("The checkpoint store " + store + " is damaged: object "
                + original.name()), damaged.getMessage());
        assertTrue(damaged.getMessage().contains("Nothing was changed."), damaged.getMessage());
        assertEquals("changed\n", Files.readString(root.resolve("a.txt")));
        assertEquals(1, checkpoints.list().size(), "not marked undone");
    }

    @Test
    void aDamagedJournalOrCommitMakesUndoSaySo() throws Exception {
        write("a.txt", "a\n");
        turn(1, () -> write("a.txt", "b\n"));
        Path journal = store.resolve(CheckpointStore.JOURNAL);
        List<String> lines = Files.readAllLines(journal);
        Files.delete(objects().file(ObjectId.fromString(lines.get(0))));
        HostException missing = assertThrows(HostException.class, () -> checkpoints.undoNewest(1, false, "test"));
        assertTrue(missing.getMessage().contains("is damaged: object " + lines.get(0) + " is missing."),
                missing.getMessage());
        Files.writeString(journal, "not an id\n");
        HostException garbled = assertThrows(HostException.class, checkpoints::list);
        assertTrue(garbled.getMessage().contains("is damaged: line 1 of its journal is not a checkpoint id: not an id."),
                garbled.getMessage());
        assertEquals("b\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void aTornLastJournalLineIsLeftOutAndSaidNotADisabledUndo() throws Exception {
        write("a.txt", "a\n");
        turn(1, () -> write("a.txt", "b\n"));
        Path journal = store.resolve(CheckpointStore.JOURNAL);
        Files.writeString(journal, "3f5e1c", StandardOpenOption.APPEND); // an append cut short
        assertEquals(1, checkpoints.list().size());

        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
        assertTrue(report.notes().stream().anyMatch(note -> note.startsWith("The last line of the checkpoint journal")
                && note.contains("line 3 of its journal is not a checkpoint id: 3f5e1c")), report.notes().toString());

        Files.writeString(journal, "3f5e1c", StandardOpenOption.APPEND);
        turn(2, () -> write("a.txt", "c\n")); // appends after it: the torn line is cut, not glued to
        assertEquals(1, checkpoints.list().size());
        checkpoints.undoNewest(1, false, "test");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void aMissingStoreMakesUndoSaySo() throws Exception {
        write("a.txt", "a\n");
        turn(1, () -> write("a.txt", "b\n"));
        sh("rm -rf " + store);
        HostException missing = assertThrows(HostException.class, () -> checkpoints.undoNewest(1, false, "test"));
        assertEquals("No checkpoints are recorded for " + root + " (there is no store at " + store + "), so there is "
                + "nothing to undo. Quiver records one before every call that can change files.", missing.getMessage());
        assertThrows(HostException.class, () -> checkpoints.undoSession("s1", List.of(1), false, true, 1),
                "a session that recorded the turn needs its store");
        assertEquals("b\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void anUnwritableStoreFailsTheCheckpointButIsToldOnceAndChangesNothingElse() throws Exception {
        write("a.txt", "a\n");
        turn(1, () -> write("a.txt", "b\n")); // the store exists
        sh("rm -rf " + store.resolve("objects") + " && echo not a folder > " + store.resolve("objects"));
        write("a.txt", "c\n"); // something new to store
        checkpoints.beginTurn("s1", 2, "prompt", false);
        Optional<String> first = checkpoints.beforeCall("bash (execute)");
        assertTrue(first.isPresent());
        assertTrue(first.get().startsWith("Quiver could not record a checkpoint before this call ("), first.get());
        assertTrue(first.get().contains("it runs all the same"), first.get());
        write("a.txt", "d\n");
        assertEquals(Optional.empty(), checkpoints.beforeCall("bash (execute)"), "told once");
        assertEquals(Optional.empty(), checkpoints.endTurn(), "the turn recorded nothing, so no end either");
        assertEquals("d\n", Files.readString(root.resolve("a.txt")));

        Files.delete(store.resolve("objects"));
        turn(3, () -> write("a.txt", "e\n"));
        sh("rm -rf " + store.resolve("objects") + " && echo not a folder > " + store.resolve("objects"));
        write("a.txt", "f\n");
        checkpoints.beginTurn("s1", 4, "prompt", false);
        assertTrue(checkpoints.beforeCall("bash (execute)").isPresent(), "a new failure after a success is told again");
    }

    @Test
    void aStoreThatIsALinkIsNeverWrittenThrough() throws Exception {
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        Files.createDirectories(store.getParent());
        Files.createSymbolicLink(store, elsewhere);
        write("a.txt", "a\n");
        checkpoints.beginTurn("s1", 1, "prompt", false);
        Optional<String> problem = checkpoints.beforeCall("bash (execute)");
        assertTrue(problem.isPresent() && problem.get().contains("is not a folder (a symbolic link or a file)"),
                problem.toString());
        try (Stream<Path> written = Files.list(elsewhere)) {
            assertEquals(0, written.count());
        }
    }

    @Test
    void aLockedStoreFailsTheCheckpointInTimeAndSaysWhy() throws Exception {
        write("a.txt", "a\n");
        turn(1, () -> write("a.txt", "b\n"));
        try (FileChannel channel = FileChannel.open(store.resolve("lock"), StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            checkpoints.beginTurn("s1", 2, "prompt", false);
            long started = System.nanoTime();
            Optional<String> problem = checkpoints.beforeCall("bash (execute)");
            long waited = (System.nanoTime() - started) / 1_000_000;
            assertTrue(problem.isPresent());
            assertTrue(problem.get().contains("the checkpoint store is locked by another Quiver session"), problem.get());
            assertTrue(waited < 3000, waited + " ms");
        }
    }

    @Test
    void aLockStillHeldAfterACheckpointFailedOnItIsTriedOnceNotWaitedForAgain() throws Exception {
        write("a.txt", "a\n");
        checkpoints = new Checkpoints(workspace, store, Runnable::run, LIMITS, Duration.ofMillis(1500));
        turn(1, () -> write("a.txt", "b\n"));
        try (FileChannel channel = FileChannel.open(store.resolve("lock"), StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            checkpoints.beginTurn("s1", 2, "prompt", false);
            assertTrue(checkpoints.beforeCall("bash (execute)").isPresent(), "the first waits its time and fails");
            long started = System.nanoTime();
            assertEquals(Optional.empty(), checkpoints.beforeCall("bash (execute)"), "told once");
            long waited = (System.nanoTime() - started) / 1_000_000;
            assertTrue(waited < 1000, "a lock held all along is not waited for again: " + waited + " ms");
        }
        write("a.txt", "c\n");
        checkpoints.beginTurn("s1", 3, "prompt", false);
        assertEquals(Optional.empty(), checkpoints.beforeCall("bash (execute)"), "free again: had at once");
    }

    @Test
    void largeFilesAndFilesPastTheLimitsAreNotRecordedAndUndoNamesThem() throws Exception {
        checkpoints = open(new Snapshotter.Limits(1000, 100_000, 1L << 30, Duration.ofSeconds(30)));
        write("a.txt", "a\n");
        Files.write(root.resolve("big.bin"), random(2000, 4));
        turn(1, () -> {
            write("a.txt", "b\n");
            Files.write(root.resolve("big.bin"), random(2000, 5));
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals(Map.of("a.txt", Kind.MODIFIED), kinds(report));
        assertTrue(report.notes().contains("Not recorded, so not restored if this turn changed them: big.bin (it is "
                + "over 1000 bytes)."), report.notes().toString());
        assertArrayEquals(random(2000, 5), Files.readAllBytes(root.resolve("big.bin")));
    }

    @Test
    void aListingPastTheLimitIsCutAndAFileBeyondItIsNeverDeleted() throws Exception {
        checkpoints = open(new Snapshotter.Limits(1L << 20, 2, 1L << 30, Duration.ofSeconds(30)));
        write("a.txt", "a\n");
        write("b.txt", "b\n");
        turn(1, () -> {
            write("a.txt", "a1\n");
            write("c.txt", "c\n"); // beyond the first two: absent from the cut listing before, present after
        });
        UndoReport report = checkpoints.undoNewest(1, false, "test");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
        assertEquals("c\n", Files.readString(root.resolve("c.txt")), "not known to be new, so not deleted");
        assertTrue(report.notes().stream().anyMatch(note -> note.startsWith("The workspace had more than 2 files")),
                report.notes().toString());
    }

    @Test
    void aNewFileBeyondTheByteBudgetIsNamedAndTheRestRecorded() throws Exception {
        checkpoints = open(new Snapshotter.Limits(1L << 20, 100_000, 10, Duration.ofSeconds(30)));
        write("a.txt", "12345678\n");
        write("b.txt", "abcdefgh\n");
        Snapshotter.Snapshot snapshot = checkpoints.snapshotter().take();
        assertEquals(1, snapshot.files());
        assertEquals(List.of("the checkpoint had already read its 10 bytes of new content"),
                List.copyOf(snapshot.skipped().values()));
    }

    @Test
    void aPipeInTheWorkspaceIsNeverOpened() throws Exception {
        write("a.txt", "a\n");
        sh("mkfifo pipe");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> turn(1, () -> write("a.txt", "b\n")));
        checkpoints.undoNewest(1, false, "test");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
    }

    @Test
    void anUnchangedTreeCostsAStatAFileAndAChangeKeepingSizeAndTimeIsStillSeen() throws Exception {
        for (int i = 0; i < 50; i++) {
            write("src/f" + i + ".txt", "file " + i + "\n");
        }
        Thread.sleep(StatCache.RACY_MILLIS + 100); // older than the racy window, so the cache may vouch for them
        Snapshotter snapshotter = checkpoints.snapshotter();
        Snapshotter.Snapshot first = snapshotter.take();
        long read = snapshotter.filesRead.get();
        assertEquals(50, read);
        assertEquals(first, snapshotter.take());
        assertEquals(read, snapshotter.filesRead.get(), "nothing read when nothing changed");

        Path file = root.resolve("src/f7.txt");
        FileTime modified = Files.getLastModifiedTime(file);
        Files.writeString(file, "FILE 7\n", StandardOpenOption.TRUNCATE_EXISTING); // same size, same inode
        Files.setLastModifiedTime(file, modified);
        Snapshotter.Snapshot second = snapshotter.take();
        assertEquals(read + 1, snapshotter.filesRead.get(), "the change time gave it away");
        assertNotEquals(first.tree(), second.tree());

        for (int i = 0; i < 50; i += 10) {
            write("src/f" + i + ".txt", "changed " + i + "\n"); // the same listing: only changed folders are built
        }
        Snapshotter.Snapshot third = snapshotter.take();

        snapshotter.saveCache(true);
        Checkpoints fresh = open(LIMITS);
        Snapshotter.Snapshot rebuilt = fresh.snapshotter().take();
        assertEquals(third.tree(), rebuilt.tree(), "the folders kept from the last pass make the same tree");
        assertTrue(fresh.snapshotter().filesRead.get() <= 6, "a new process reads the stat cache the store keeps: "
                + fresh.snapshotter().filesRead.get());
    }
}
