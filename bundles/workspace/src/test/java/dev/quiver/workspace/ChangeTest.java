package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compare-before-replace, refusals that name the file, and failures that leave nothing behind. */
class ChangeTest {

    @TempDir
    Path dir;
    Path root;
    Path state;
    JailedWorkspace workspace;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectories(dir.resolve("ws"));
        state = Files.createDirectories(dir.resolve("state"));
        workspace = JailedWorkspace.open(root, state);
    }

    @Test
    void aFileChangedSinceItWasReadIsNotReplaced() throws IOException {
        Path file = Files.createDirectories(root.resolve("src")).resolve("A.java");
        Files.writeString(file, "theirs\n");
        IOException refused = assertThrows(IOException.class, () -> workspace.change("edit_file")
                .replace(file, "what was read\n".getBytes(), "mine\n".getBytes()).commit());
        assertEquals("src/A.java changed while it was being edited; read it again. No file was changed.",
                refused.getMessage());
        assertEquals("theirs\n", Files.readString(file));
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aFolderIsDeletedInOneJournaledChangeItsLinkAsALinkAndAChangedFileStopsItAll() throws IOException {
        Path outside = Files.writeString(dir.resolve("outside.txt"), "outside\n");
        Path folder = Files.createDirectories(root.resolve("gone/sub"));
        Path a = Files.writeString(root.resolve("gone/a.txt"), "a\n");
        Path b = Files.writeString(folder.resolve("b.txt"), "b\n");
        Path link = Files.createSymbolicLink(folder.resolve("link"), outside);

        IOException refused = assertThrows(IOException.class, () -> workspace.change("delete_file")
                .delete(a, "a\n".getBytes()).delete(b, "what was read\n".getBytes()).delete(link, null)
                .delete(folder, null).delete(root.resolve("gone"), null).commit());
        assertTrue(refused.getMessage().endsWith("No file was changed."), refused.getMessage());
        assertTrue(Files.exists(a) && Files.exists(b) && Files.isSymbolicLink(link));

        workspace.change("delete_file").delete(a, "a\n".getBytes()).delete(b, "b\n".getBytes()).delete(link, null)
                .delete(folder, null).delete(root.resolve("gone"), null).commit();
        assertFalse(Files.exists(root.resolve("gone")));
        assertEquals("outside\n", Files.readString(outside));
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aFileThatAppearedMeanwhileIsNotOverwritten() throws IOException {
        Path file = root.resolve("new.txt");
        Files.writeString(file, "made by another program\n");
        assertThrows(IOException.class, () -> workspace.change("write_file").replace(file, null, "x".getBytes()).commit());
        assertEquals("made by another program\n", Files.readString(file));
    }

    @Test
    void aReadOnlyFileIsRefusedNamingItsMode() throws IOException {
        Path file = root.resolve("locked.txt");
        Files.writeString(file, "keep\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
        IOException refused = assertThrows(IOException.class, () -> workspace.change("edit_file")
                .replace(file, "keep\n".getBytes(), "x".getBytes()).commit());
        assertTrue(refused.getMessage().startsWith("locked.txt: it is read-only (mode r--r--r--)"), refused.getMessage());
        assertTrue(refused.getMessage().contains("chmod u+w"), refused.getMessage());
        assertEquals("keep\n", Files.readString(file));
        // a whole write, as undo restores a file, puts its content back whatever the mode, and keeps the mode
        workspace.write(file, "restored\n".getBytes());
        assertEquals("restored\n", Files.readString(file));
        assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void aWriterAppendingEveryMillisecondNeverLosesALine() throws Exception {
        Path file = root.resolve("log.txt");
        Files.writeString(file, "header 0\n");
        int landed = 0;
        int refused = 0;
        Appender appender = new Appender(file);
        try (appender) {
            // until 50 edits landed (each one a rename the appender may race), at most 1000 tries
            for (int edit = 1; edit <= 1000 && landed < 50; edit++) {
                byte[] before = Files.readAllBytes(file);
                String text = new String(before, StandardCharsets.UTF_8);
                byte[] after = text.replaceFirst("header \\d+", "header " + edit).getBytes(StandardCharsets.UTF_8);
                try {
                    workspace.change("edit_file").replace(file, before, after).commit();
                    landed++;
                } catch (IOException e) {
                    assertEquals("log.txt changed while it was being edited; read it again. No file was changed.",
                            e.getMessage());
                    refused++;
                }
            }
        }
        assertEquals(List.of(), appender.lost(), landed + " edits landed, " + refused + " refused");
        System.out.println("concurrent appends: " + appender.appended() + " lines, " + landed + " edits landed, "
                + refused + " refused, none lost");
        assertTrue(landed > 0, "no edit landed");
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aWriterProcessAppendingEveryMillisecondNeverLosesALine() throws Exception {
        Path file = root.resolve("log.txt");
        Files.writeString(file, "header 0\n");
        Path stop = dir.resolve("stop");
        // another program, as a shell loop is: it opens, appends a numbered line and closes, about every
        // millisecond, until told to stop, then says how many lines it appended
        Process writer = new ProcessBuilder("sh", "-c", "i=0; while [ ! -e \"$2\" ]; do echo \"appended line $i\" >> \"$1\"; "
                + "i=$((i+1)); sleep 0.001; done; echo $i", "writer", file.toString(), stop.toString()).start();
        int landed = 0;
        int refused = 0;
        int lastLanded = 0;
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    Files.readAllLines(file).size() < 3 && System.nanoTime() < end; ) {
                Thread.sleep(1); // until it writes
            }
            for (int edit = 1; edit <= 1000 && landed < 50; edit++) {
                byte[] before = Files.readAllBytes(file);
                String text = new String(before, StandardCharsets.UTF_8);
                byte[] after = text.replaceFirst("header \\d+", "header " + edit).getBytes(StandardCharsets.UTF_8);
                try {
                    workspace.change("edit_file").replace(file, before, after).commit();
                    landed++;
                    lastLanded = edit;
                } catch (IOException e) {
                    assertEquals("log.txt changed while it was being edited; read it again. No file was changed.",
                            e.getMessage());
                    refused++;
                }
            }
        } finally {
            Files.writeString(stop, "");
        }
        assertTrue(writer.waitFor(30, TimeUnit.SECONDS), "the writer did not stop");
        int appended = Integer.parseInt(new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        List<String> lines = Files.readAllLines(file);
        List<Integer> lost = new java.util.ArrayList<>();
        for (int n = 0; n < appended; n++) {
            if (!lines.contains("appended line " + n)) {
                lost.add(n);
            }
        }
        assertEquals(List.of(), lost, landed + " edits landed, " + refused + " refused");
        assertEquals(appended + 1, lines.size(), "a line is there twice: " + lines.size() + " lines for " + appended);
        assertEquals("header " + lastLanded, lines.get(0), "the last edit that landed is not there");
        System.out.println("a writer process: " + appended + " lines, " + landed + " edits landed, " + refused
                + " refused, none lost");
        assertTrue(landed > 0, "no edit landed");
        assertEquals(List.of(), temporaries());
    }

    @Test
    void aWriteFailingForSpaceChangesNothingAndRemovesTheFoldersItMade() throws Exception {
        Files.writeString(root.resolve("small.txt"), "old\n");
        // a file-size limit of 64 KB: the JVM ignores SIGXFSZ, so the write fails with EFBIG, as a full disk fails
        String said = child("ulimit -f 128", "small.txt=4", "a/b/c/large.bin=1000000");
        assertTrue(said.startsWith("failed: a/b/c/large.bin: "), said);
        assertTrue(said.endsWith(". No file was changed."), said);
        assertFalse(said.contains(root.toString()) || said.contains(Temporaries.SUFFIX), said);
        assertEquals("old\n", Files.readString(root.resolve("small.txt")));
        assertFalse(Files.exists(root.resolve("a")), "the folders the failed write made are still there");
        assertEquals(List.of(), temporaries());
        assertEquals(List.of(), JailedWorkspace.open(root, state).recovered());
    }

    @Test
    void aFolderWithoutWritePermissionIsNamedRelativeToTheRootNeverByATemporary() throws Exception {
        Path locked = Files.createDirectories(root.resolve("ro"));
        Files.writeString(locked.resolve("b.txt"), "old\n");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assertEquals("failed: ro/b.txt: permission denied. No file was changed.", child(null, "ro/b.txt=3"));
            assertEquals("old\n", Files.readString(locked.resolve("b.txt")));
            // a new folder is made under a temporary name in the root first: that name is never shown either
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("r-xr-xr-x"));
            assertEquals("failed: new/deep/x.txt: permission denied. No file was changed.",
                    child(null, "new/deep/x.txt=3"));
            assertFalse(Files.exists(root.resolve("new")));
        } finally {
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertEquals(List.of(), temporaries());
    }

    /**
     * Runs {@link WriteChild} with the files given, under a shell limit when one is given, and returns
     * what it said. A root test process drops the capability that lets root ignore permissions, so that a
     * folder's mode counts for the child as it does for everybody else.
     */
    private String child(String limit, String... writes) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of("bash", "-c",
                (limit == null ? "" : limit + " && ") + "exec \"$@\"", "child"));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("setpriv", "--bounding-set=-dac_override,-dac_read_search",
                    "--inh-caps=-dac_override,-dac_read_search"));
        }
        command.addAll(List.of(java, "-cp", System.getProperty("java.class.path"), WriteChild.class.getName(),
                root.toString(), state.toString()));
        command.addAll(List.of(writes));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end");
        return said;
    }

    @Test
    void aKilledProcesssTemporariesAreSweptAndNeverWalked() throws IOException {
        Path file = root.resolve("kept.txt");
        Files.writeString(file, "kept\n");
        // what a process killed while staging leaves: a temporary next to the file, registered as pending
        Path stale = root.resolve(Temporaries.name("kept.txt"));
        Files.writeString(stale, "a stale copy\n");
        Files.createDirectories(state.resolve(Transaction.FOLDER));
        Files.writeString(state.resolve(Transaction.FOLDER).resolve("1-dead.pending"),
                "apply_patch\t1700000000000\n" + stale + "\n");
        assertEquals(List.of("kept.txt"), workspace.files(root, true), "a walk showed the temporary");

        List<String> said = JailedWorkspace.open(root, state).recovered();
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).matches("An interrupted apply_patch \\(.+\\) was rolled back: no file changed\\."), said.get(0));
        assertFalse(Files.exists(stale));
        assertEquals("kept\n", Files.readString(file));
    }

    @Test
    void aFolderCopyAKilledProcessLeftIsRemovedWholeWithTheFoldersItMade() throws IOException {
        // what a process killed while copying a folder to new/place/copy leaves: the folders it made on the way
        // and the half-made copy under a temporary name, all registered before they were made
        Path made = Files.createDirectories(root.resolve("new/place"));
        Path copy = made.resolve(Temporaries.name("copy"));
        Files.createDirectories(copy.resolve("inner"));
        Files.writeString(copy.resolve("inner/half.txt"), "half a copy\n");
        Files.createDirectories(state.resolve(Transaction.FOLDER));
        Files.writeString(state.resolve(Transaction.FOLDER).resolve("2-dead.pending"), "copy_path\t1700000000000\n"
                + root.resolve("new") + "\n" + made + "\n" + copy + "\n");
        assertEquals(List.of(), workspace.files(root, true), "a walk showed the half-made copy");

        List<String> said = JailedWorkspace.open(root, state).recovered();
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).matches("An interrupted copy_path \\(.+\\) was rolled back: no file changed\\."), said.get(0));
        assertFalse(Files.exists(root.resolve("new")), "the copy or the folders made for it are still there");
        try (Stream<Path> left = Files.list(state.resolve(Transaction.FOLDER))) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void aJournalStepThatFailsIsNamedTheOthersAreMadeAndItIsToldOnce() throws IOException {
        // a journal whose first step can no longer be made: the folder it deletes is not empty
        Files.createDirectories(root.resolve("dir"));
        Files.writeString(root.resolve("dir/inner.txt"), "someone's\n");
        Path gone = Files.writeString(root.resolve("gone.txt"), "to go\n");
        Path stale = Files.writeString(root.resolve(Temporaries.name("gone.txt")), "staged\n");
        plant("3-dead", "delete_file\t1700000000000\n" + stale + "\n",
                "delete\t" + root.resolve("dir") + "\tany\ndelete\t" + gone + "\tany\nend\n");

        List<String> said = JailedWorkspace.open(root, state).recovered();
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).matches("An interrupted delete_file \\(.+\\) was finished: 1 file; left as they could "
                + "not be changed: dir: the folder is not empty\\."), said.get(0));
        assertFalse(Files.exists(gone), "the step after the failed one was not made");
        assertEquals("someone's\n", Files.readString(root.resolve("dir/inner.txt")));
        assertFalse(Files.exists(stale), "the temporary was not removed");
        assertNoJournals();
        assertEquals(List.of(), JailedWorkspace.open(root, state).recovered(), "the next start told it again");
    }

    @Test
    void aRollBackRemovesOnlyEmptyFoldersNeverAFileOrLinkAPendingFileNames() throws IOException {
        byte[] main = "class Main {}\n\u00e9".getBytes(StandardCharsets.UTF_8);
        Path file = Files.write(Files.createDirectories(root.resolve("src")).resolve("Main.java"), main);
        Path link = Files.createSymbolicLink(root.resolve("link"), Path.of("src"));
        Path empty = Files.createDirectories(root.resolve("made"));
        plant("4-dead", "write_file\t1700000000000\n" + file + "\n" + link + "\n" + empty + "\n", null);

        List<String> said = JailedWorkspace.open(root, state).recovered();
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).matches("An interrupted write_file \\(.+\\) was rolled back: no file changed; left "
                + "alone, as they are not folders it made: link, src/Main.java\\."), said.get(0));
        assertArrayEquals(main, Files.readAllBytes(file));
        assertTrue(Files.isSymbolicLink(link), "the link was removed");
        assertFalse(Files.exists(empty), "the empty folder it made is still there");
        assertNoJournals();
    }

    @Test
    void aMalformedJournalOrPendingLineStopsItsWholeChange() throws IOException {
        Path first = Files.writeString(root.resolve("first.txt"), "first\n");
        Path target = Files.writeString(root.resolve("target.txt"), "target\n");
        Path other = Files.writeString(root.resolve("other.txt"), "not a temporary\n");
        String digest = HexFormat.of().formatHex(Jail.digest("x".getBytes(StandardCharsets.UTF_8)));
        // a step naming a file of the tree as its temporary: rolling forward would rename it over the target
        plant("5-dead", "apply_patch\t1700000000000\n", "delete\t" + first + "\tany\nwrite\t" + target
                + "\tother.txt\tany\t" + digest + "\nend\n");
        // a pending file naming a folder outside the workspace
        Path outside = Files.createDirectories(dir.resolve("outside"));
        plant("6-dead", "apply_patch\t1700000000000\n" + root.resolve(Temporaries.name("x")) + "\n" + outside
                + "\n", null);
        Path stale = Files.writeString(root.resolve(Temporaries.name("first.txt")), "staged\n");
        plant("7-dead", "apply_patch\t1700000000000\n" + stale + "\n", "delete\t" + first + "\tany\nmove\t" + first + "\t"
                + root.resolve("../x") + "\nend\n");

        List<String> said = JailedWorkspace.open(root, state).recovered();
        assertEquals(3, said.size(), said.toString());
        assertTrue(said.get(0).endsWith("was not recovered, and nothing of it was done: line 2 of its journal names "
                + "a temporary that is not one: other.txt."), said.get(0));
        assertTrue(said.get(1).endsWith("was not recovered, and nothing of it was done: line 3 of its pending file "
                + "names a path outside the workspace: " + outside + "."), said.get(1));
        assertTrue(said.get(2).endsWith("was not recovered, and nothing of it was done: line 2 of its journal names "
                + "a path outside the workspace: " + root.resolve("../x") + "."), said.get(2));
        assertEquals("first\n", Files.readString(first));
        assertEquals("target\n", Files.readString(target));
        assertEquals("not a temporary\n", Files.readString(other));
        assertTrue(Files.isDirectory(outside));
        assertTrue(Files.exists(stale), "a temporary of a malformed change was removed");
        assertNoJournals();
    }

    @Test
    void aChangeRecordThatIsAPipeALinkToADeviceOrHugeIsRemovedUnreadInsteadOfHangingEveryStart() throws Exception {
        Path changes = Files.createDirectories(state.resolve(Transaction.FOLDER));
        Path first = Files.writeString(root.resolve("first.txt"), "first\n");
        Files.createSymbolicLink(changes.resolve("1-a.pending"), Path.of("/dev/zero"));
        Process fifo = new ProcessBuilder("mkfifo", changes.resolve("2-b.pending").toString()).start();
        assertEquals(0, fifo.waitFor());
        // a pending file as a commit writes it, whose journal is a link to an endless device
        plant("3-c", "apply_patch\t1700000000000\n", null);
        Files.createSymbolicLink(changes.resolve("3-c.journal"), Path.of("/dev/zero"));
        try (java.io.RandomAccessFile huge = new java.io.RandomAccessFile(changes.resolve("4-d.pending").toFile(), "rw")) {
            huge.setLength(Transaction.MAX_RECORD_BYTES + 1); // sparse: no disk is spent
        }

        List<String> said = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                () -> JailedWorkspace.open(root, state).recovered(), "a start hung on a change record");
        assertEquals(4, said.size(), said.toString());
        assertEquals("A change record (1-a.pending) was removed unread: it is a symbolic link.", said.get(0));
        assertEquals("A change record (2-b.pending) was removed unread: it is not a regular file.", said.get(1));
        assertTrue(said.get(2).endsWith("was not recovered, and nothing of it was done: its journal is a symbolic link."),
                said.get(2));
        assertEquals("A change record (4-d.pending) was removed unread: it is " + (Transaction.MAX_RECORD_BYTES + 1)
                + " bytes, more than a commit writes.", said.get(3));
        assertEquals("first\n", Files.readString(first));
        assertNoJournals();
        assertEquals(List.of(), JailedWorkspace.open(root, state).recovered(), "the next start told it again");
    }

    @Test
    void theJournalsFolderIsTheOwnersOnly() throws IOException {
        workspace.change("write_file").write(root.resolve("a.txt"), new byte[] {1}).commit();
        assertEquals(PosixFilePermissions.fromString("rwx------"),
                Files.getPosixFilePermissions(state.resolve(Transaction.FOLDER)));
    }

    /** What a killed process leaves: a pending file, and, past its journal phase, a journal. */
    private void plant(String id, String pending, String journal) throws IOException {
        Path changes = Files.createDirectories(state.resolve(Transaction.FOLDER));
        Files.writeString(changes.resolve(id + ".pending"), pending);
        if (journal != null) {
            Files.writeString(changes.resolve(id + ".journal"), journal);
        }
    }

    private void assertNoJournals() throws IOException {
        try (Stream<Path> left = Files.list(state.resolve(Transaction.FOLDER))) {
            assertEquals(List.of(), left.toList(), "a pending file or journal is left");
        }
    }

    private List<Path> temporaries() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(path -> Temporaries.isTemporary(path.getFileName().toString())).toList();
        }
    }
}
