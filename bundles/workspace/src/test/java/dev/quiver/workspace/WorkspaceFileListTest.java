package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace;
import dev.quiver.api.Workspace.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code Workspace.files}: the same files as a walk, in the same order, and fresh after every change. */
class WorkspaceFileListTest {

    @TempDir
    Path root;

    private void write(String relative, String content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private void files(String... relatives) throws IOException {
        for (String relative : relatives) {
            write(relative, relative + "\n");
        }
    }

    private static List<String> walkedFiles(JailedWorkspace workspace, Path start, boolean includeIgnored)
            throws IOException {
        List<String> files = new ArrayList<>();
        workspace.walk(start, includeIgnored, Integer.MAX_VALUE, entry -> {
            if (entry.kind() == Entry.Kind.FILE) {
                files.add(entry.relativePath());
            }
            return true;
        });
        return files;
    }

    /** Waits until listings read now count as settled, so the next call may reuse them. */
    private static void letListingsSettle() throws InterruptedException {
        Thread.sleep(Walker.RACY_MILLIS + 300);
    }

    @Test
    void listsTheFilesOfAWalkInWalkOrder() throws IOException {
        files("b/2.txt", "b/1.txt", "a.txt", "c.txt", "b/sub/x.txt", "B.txt", "b.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> expected = List.of("B.txt", "a.txt", "b/1.txt", "b/2.txt", "b/sub/x.txt", "b.txt", "c.txt");
        assertEquals(expected, workspace.files(workspace.root(), false));
        assertEquals(expected, walkedFiles(workspace, workspace.root(), false));
    }

    @Test
    void agreesWithGitAndTheWalkOnNestedIgnoreFilesNegationsAndAnchors() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        write(".gitignore", "*.log\n!keep.log\nbuild/\n/root-only.txt\n**/cache/\ndocs/**/draft-*.md\n");
        write("src/.gitignore", "!debug.log\nlocal/\n/anchored.txt\n");
        write("src/main/.gitignore", "*.tmp\n");
        files("README.md", "app.log", "keep.log", "src/debug.log", "root-only.txt", "src/root-only.txt",
                "build/x.class", "src/build/y.class", "lib/build.txt", "cache/c", "src/cache/d", "docs/draft-1.md",
                "docs/a/draft-2.md", "docs/a/final.md", "src/local/z.txt", "src/anchored.txt",
                "src/main/anchored.txt", "src/main/t.tmp", "t.tmp", "src/main/java/App.java");
        Git.run(root, "add", "README.md", "src/main/java/App.java");
        String listed = Git.run(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard");
        Set<String> expected = Arrays.stream(listed.split("\0")).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> files = workspace.files(workspace.root(), false);
        assertEquals(expected, new TreeSet<>(files));
        assertEquals(walkedFiles(workspace, workspace.root(), false), files);
        assertEquals(walkedFiles(workspace, workspace.root(), true), workspace.files(workspace.root(), true));
        Path src = workspace.root().resolve("src");
        assertEquals(walkedFiles(workspace, src, false), workspace.files(src, false));
        assertTrue(workspace.files(src, false).stream().allMatch(p -> p.startsWith("src/")));
    }

    @Test
    void dotGitIsNeverListedAndLinksAreListedLikeTheWalkDoes() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("real/inside.txt", "top.txt");
        Files.createSymbolicLink(root.resolve("linked"), root.resolve("real"));
        Files.createSymbolicLink(root.resolve("file-link.txt"), root.resolve("top.txt"));
        Files.createSymbolicLink(root.resolve("dangling"), root.resolve("nowhere"));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertEquals(List.of("file-link.txt", "real/inside.txt", "top.txt"), workspace.files(workspace.root(), true));
    }

    @Test
    void linksLeadingOutsideOrToSecretsAreNotListed(@TempDir Path outside) throws IOException {
        files("inside.txt", ".env");
        Files.writeString(outside.resolve("passwd"), "root:x:0:0\n");
        Files.createSymbolicLink(root.resolve("out-link.txt"), outside.resolve("passwd"));
        Files.createSymbolicLink(root.resolve("notes.txt"), root.resolve(".env"));
        Files.createSymbolicLink(root.resolve("in-link.txt"), root.resolve("inside.txt"));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertEquals(List.of(".env", "in-link.txt", "inside.txt"), workspace.files(workspace.root(), false));
    }

    @Test
    void settledListingsAreReusedAndChangedDirectoriesAreReadAgain() throws IOException, InterruptedException {
        files("a/one.txt", "a/deep/two.txt", "b/three.txt", "c/four.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of("a/deep/two.txt", "a/one.txt", "b/three.txt", "c/four.txt"),
                workspace.files(workspace.root(), false));
        long afterFirst = workspace.walker.directoriesRead.get();
        assertEquals(5, afterFirst, "root, a, a/deep, b and c were read");

        workspace.files(workspace.root(), false);
        assertEquals(afterFirst, workspace.walker.directoriesRead.get(), "nothing changed, nothing was read again");

        files("a/deep/new.txt");
        Files.delete(root.resolve("b/three.txt"));
        Files.delete(root.resolve("b"));
        assertEquals(List.of("a/deep/new.txt", "a/deep/two.txt", "a/one.txt", "c/four.txt"),
                workspace.files(workspace.root(), false));
        assertEquals(afterFirst + 2, workspace.walker.directoriesRead.get(), "only the root and a/deep changed");
    }

    @Test
    void theSecretIndexAndTheSearchWalksReadEachFolderOnceBetweenThem() throws Exception {
        files("a/one.txt", "a/.env", "b/server.key", "ignored/id_rsa", ".gitignore");
        Files.writeString(root.resolve(".gitignore"), "ignored/\n");
        Files.createSymbolicLink(root.resolve("a/linked.pem"), root.resolve("a/one.txt"));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of(root.resolve("a/.env"), root.resolve("a/linked.pem"), root.resolve("b/server.key"),
                root.resolve("ignored/id_rsa")), workspace.secretFiles());
        long read = workspace.walker.directoriesRead.get();
        assertEquals(4, read, "the root, a, b and the ignored folder");
        assertEquals(List.of(".gitignore", "a/.env", "a/linked.pem", "a/one.txt", "b/server.key"),
                workspace.files(workspace.root(), false));
        assertEquals(read, workspace.walker.directoriesRead.get(), "the search walk read no folder again");

        files("b/new.pem");
        assertEquals(List.of(root.resolve("a/.env"), root.resolve("a/linked.pem"), root.resolve("b/new.pem"),
                root.resolve("b/server.key"), root.resolve("ignored/id_rsa")), workspace.secretFiles());
    }

    @Test
    void aFileReplacedByADirectoryOfTheSameNameIsSeenAtOnce() throws IOException, InterruptedException {
        files("x", "keep.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of("keep.txt", "x"), workspace.files(workspace.root(), false));
        Files.delete(root.resolve("x"));
        files("x/inner.txt");
        assertEquals(List.of("keep.txt", "x/inner.txt"), workspace.files(workspace.root(), false));
    }

    @Test
    void aLinkWhoseTargetChangesKindIsFollowedAfresh() throws IOException, InterruptedException {
        files("targets/t", "links/other.txt");
        Files.createSymbolicLink(root.resolve("links/l"), root.resolve("targets/t"));
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of("links/l", "links/other.txt", "targets/t"), workspace.files(workspace.root(), false));
        Files.delete(root.resolve("targets/t"));
        Files.createDirectories(root.resolve("targets/t"));
        assertEquals(List.of("links/other.txt"), workspace.files(workspace.root(), false),
                "the link now leads to a directory, which is not descended");
    }

    @Test
    void anIgnoreFileEditedInPlaceAppliesAtTheNextCallEvenWithTheSameSize() throws IOException, InterruptedException {
        files("app.log", "keep.txt");
        write(".gitignore", "*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of(".gitignore", "keep.txt"), workspace.files(workspace.root(), false));
        write(".gitignore", "*.txt\n");
        assertEquals(List.of(".gitignore", "app.log"), workspace.files(workspace.root(), false));
    }

    @Test
    void anUnchangedTreeIsGivenAgainWithoutAWalkUntilAnythingItWasMadeOfChanges() throws IOException, InterruptedException {
        files("a/one.txt", "a/deep/two.log", "a/deep/three.txt", "b/four.txt");
        write("a/.gitignore", "*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        List<String> first = workspace.files(workspace.root(), false);
        assertEquals(List.of("a/.gitignore", "a/deep/three.txt", "a/one.txt", "b/four.txt"), first);
        assertEquals(first, workspace.files(workspace.root(), false));
        assertEquals(1, workspace.walker.treesReused.get(), "the second call walked nothing");
        assertThrows(UnsupportedOperationException.class, () -> first.add("x"), "a list given twice cannot be changed");

        // an ignore file below the root, edited in place: no directory changes, the rules do
        write("a/.gitignore", "*.txt\n");
        assertEquals(List.of("a/.gitignore", "a/deep/two.log", "b/four.txt"), workspace.files(workspace.root(), false));
        assertEquals(1, workspace.walker.treesReused.get());
        // what a call asks for is part of it: the ignored files, another start
        assertTrue(workspace.files(workspace.root(), true).contains("a/one.txt"));
        assertEquals(List.of("b/four.txt"), workspace.files(root.resolve("b"), false));
        assertEquals(1, workspace.walker.treesReused.get());
        // a file in a deep folder, made just now: that folder's listing is racy, so nothing is reused
        files("a/deep/five.log");
        assertTrue(workspace.files(workspace.root(), false).contains("a/deep/five.log"));
        assertTrue(workspace.files(workspace.root(), false).contains("a/deep/five.log"));
        assertEquals(1, workspace.walker.treesReused.get(), "a listing taken right after a change is never reused");
    }

    @Test
    void aWorkspaceInsideARepositoryFollowsAnIgnoreFileAboveIt() throws IOException, InterruptedException {
        Files.createDirectories(root.resolve(".git"));
        write(".gitignore", "*.log\n");
        files("ws/keep.txt", "ws/app.log", "ws/tmp.bak");
        JailedWorkspace workspace = JailedWorkspace.open(root.resolve("ws"));
        letListingsSettle();
        assertEquals(List.of("keep.txt", "tmp.bak"), workspace.files(workspace.root(), false));
        assertEquals(List.of("keep.txt", "tmp.bak"), workspace.files(workspace.root(), false));
        assertEquals(1, workspace.walker.treesReused.get());
        write(".gitignore", "*.bak\n");
        assertEquals(List.of("app.log", "keep.txt"), workspace.files(workspace.root(), false),
                "the repository's ignore file above the workspace changed in place");
    }

    private static List<String> readSome(Workspace.FileList list, int count) throws IOException {
        List<String> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(list.get(i));
        }
        return files;
    }

    /** Every file of a checked list, read by index until it ends. */
    private static List<String> readAll(Workspace.FileList list) throws IOException {
        List<String> files = new ArrayList<>();
        for (String file = list.get(0); file != null; file = list.get(files.size())) {
            files.add(file);
        }
        return files;
    }

    @Test
    void aCheckedListHoldsTheFilesOfFilesWhetherFreshOrKept() throws IOException, InterruptedException {
        files("a/one.txt", "a/deep/two.log", "b/three.txt", "b/c/four.txt", "z.txt");
        write("a/.gitignore", "*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> expected = List.of("a/.gitignore", "a/one.txt", "b/c/four.txt", "b/three.txt", "z.txt");
        assertEquals(expected, readAll(workspace.fileList(workspace.root(), false)), "a fresh walk");
        letListingsSettle();
        assertEquals(expected, workspace.files(workspace.root(), false));
        Workspace.FileList kept = workspace.fileList(workspace.root(), false);
        assertEquals(expected, readAll(kept), "the kept walk, checked to the end");
        assertEquals(null, kept.get(1000));
        assertTrue(readAll(workspace.fileList(workspace.root(), true)).contains("a/deep/two.log"));
        assertEquals(List.of("b/c/four.txt", "b/three.txt"), readAll(workspace.fileList(root.resolve("b"), false)));
    }

    @Test
    void aCheckedListChecksOnlyTheFoldersEnteredBeforeWhatIsRead() throws IOException, InterruptedException {
        int folders = 3 * Walker.CHECK_AHEAD;
        for (int i = 0; i < folders; i++) {
            files(String.format("f%02d/one.txt", i));
        }
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        List<String> before = workspace.files(workspace.root(), false);
        String last = String.format("f%02d/", folders - 1);
        files(last + "two.txt");
        long read = workspace.walker.directoriesRead.get();

        Workspace.FileList list = workspace.fileList(workspace.root(), false);
        assertEquals("f00/one.txt", list.get(0));
        assertEquals(Walker.CHECK_AHEAD, workspace.walker.directoriesChecked.get(),
                "the root and f00 were needed, and a few more are checked while at it");
        assertEquals(String.format("f%02d/one.txt", Walker.CHECK_AHEAD - 2), list.get(Walker.CHECK_AHEAD - 2));
        assertEquals(Walker.CHECK_AHEAD, workspace.walker.directoriesChecked.get());
        assertEquals(before.subList(0, Walker.CHECK_AHEAD), readSome(list, Walker.CHECK_AHEAD));
        assertEquals(read, workspace.walker.directoriesRead.get(), "no folder was read again");

        // the last folder changed: reaching it walks again, and the files before it keep their places
        assertEquals(last + "one.txt", list.get(folders - 1));
        assertEquals(last + "two.txt", list.get(folders));
        assertEquals(null, list.get(folders + 1));
        assertEquals(read + 1, workspace.walker.directoriesRead.get(), "only the changed folder was read again");
        List<String> after = new ArrayList<>(before);
        after.add(last + "two.txt");
        assertEquals(after, readAll(list));
    }

    @Test
    void aCheckedListSeesAChangeBeforeTheFirstFileItHandsOut() throws IOException, InterruptedException {
        files("a/one.txt", "b/two.txt");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        workspace.files(workspace.root(), false);
        files("a/0.txt");
        Files.delete(root.resolve("b/two.txt"));
        Workspace.FileList list = workspace.fileList(workspace.root(), false);
        assertEquals("a/0.txt", list.get(0));
        assertEquals(List.of("a/0.txt", "a/one.txt"), readAll(list));
    }

    @Test
    void aCheckedListSeesAnIgnoreFileEditedInPlaceInTheFolderItReaches() throws IOException, InterruptedException {
        files("a/one.txt", "b/app.log", "b/keep.txt");
        write("b/.gitignore", "*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        workspace.files(workspace.root(), false);
        write("b/.gitignore", "*.txt\n");
        Workspace.FileList list = workspace.fileList(workspace.root(), false);
        assertEquals("a/one.txt", list.get(0));
        assertEquals(List.of("a/one.txt", "b/.gitignore", "b/app.log"), readAll(list));
    }

    @Test
    void aCheckedListReadFromSeveralThreadsGivesEveryFileAtItsIndex() throws Exception {
        for (int folder = 0; folder < 40; folder++) {
            for (int file = 0; file < 5; file++) {
                files("f" + folder + "/s/" + file + ".txt");
            }
        }
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        List<String> expected = workspace.files(workspace.root(), false);
        files("f20/s/new.txt"); // a change half-way, found by whichever thread gets there first
        expected = new ArrayList<>(expected);
        expected.add(expected.indexOf("f20/s/4.txt") + 1, "f20/s/new.txt");
        Workspace.FileList list = workspace.fileList(workspace.root(), false);
        String[] seen = new String[expected.size() + 1];
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < seen.length; i = next.getAndIncrement()) {
                        seen[i] = list.get(i);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), failures);
        List<String> got = new ArrayList<>(Arrays.asList(seen));
        assertEquals(null, got.remove(got.size() - 1));
        assertEquals(expected, got);
    }

    @Test
    void aFileAddedToTheIndexIsListedAlthoughNoFolderChanged() throws IOException, InterruptedException {
        Git.run(root, "init", "-q");
        files("app.log", "keep.txt");
        write(".gitignore", "*.log\n");
        JailedWorkspace workspace = JailedWorkspace.open(root);
        letListingsSettle();
        assertEquals(List.of(".gitignore", "keep.txt"), workspace.files(workspace.root(), false));
        assertEquals(List.of(".gitignore", "keep.txt"), workspace.files(workspace.root(), false));
        assertEquals(1, workspace.walker.treesReused.get());
        Git.run(root, "add", "-f", "app.log");
        assertEquals(List.of(".gitignore", "app.log", "keep.txt"), workspace.files(workspace.root(), false));
        assertEquals(List.of(".gitignore", "app.log", "keep.txt"), readAll(workspace.fileList(workspace.root(), false)));
        Git.run(root, "rm", "-q", "--cached", "app.log");
        assertEquals(List.of(".gitignore", "keep.txt"), readAll(workspace.fileList(workspace.root(), false)));
    }

    @Test
    void aMissingStartIsAnError() throws IOException {
        JailedWorkspace workspace = JailedWorkspace.open(root);
        assertThrows(NoSuchFileException.class, () -> workspace.files(workspace.root().resolve("nope"), false));
    }

    @Test
    void namesSortByCodePointLikeTheirUtf8Bytes() {
        List<String> names = new ArrayList<>(List.of("\uD83D\uDE00.txt", "\uFF21.txt", "a.txt", "B.txt", "\u00e9.txt"));
        names.sort(Walker.NAME_ORDER);
        assertEquals(List.of("B.txt", "a.txt", "\u00e9.txt", "\uFF21.txt", "\uD83D\uDE00.txt"), names);
    }

    @Test
    void aWalkStoppedByItsThreadsInterruptThrowsAndLeavesNoPartialListForTheNextCall() throws Exception {
        for (int i = 0; i < 40; i++) {
            files("d" + i + "/a.txt", "d" + i + "/sub/b.txt");
        }
        letListingsSettle();
        JailedWorkspace workspace = JailedWorkspace.open(root);
        List<String> expected = walkedFiles(workspace, workspace.root(), false);
        assertEquals(80, expected.size());
        Thread.currentThread().interrupt();
        try {
            assertThrows(java.io.InterruptedIOException.class, () -> workspace.files(workspace.root(), false));
        } finally {
            Thread.interrupted();
        }
        assertEquals(expected, workspace.files(workspace.root(), false), "the stopped walk was not kept");
    }

    /**
     * An interrupt that comes while the walk runs stops it there: the asking thread gets an
     * InterruptedIOException at once and no more folders are read (review: a fork-join wait ignored the
     * interrupt, so the walk ran to its end on every core and was thrown away only then).
     */
    @Test
    void anInterruptWhileTheWalkRunsStopsItsFolders() throws Exception {
        StringBuilder rules = new StringBuilder();
        for (int i = 0; i < 2_000; i++) {
            rules.append("*never-").append(i).append("-[a-z]*/**/x").append(i).append("?.log\n");
        }
        Files.writeString(root.resolve(".gitignore"), rules);
        for (int i = 0; i < 1_500; i++) {
            files("d" + i + "/a.txt");
        }
        JailedWorkspace workspace = JailedWorkspace.open(root);
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread asker = new Thread(() -> {
            try {
                workspace.files(workspace.root(), false);
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        asker.start();
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (workspace.walker.directoriesRead.get() < 20 && asker.isAlive() && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        asker.interrupt();
        asker.join(60_000);
        assertTrue(thrown.get() instanceof java.io.InterruptedIOException, String.valueOf(thrown.get()));
        Thread.sleep(500); // what the pool's threads had begun ends; nothing new starts
        long read = workspace.walker.directoriesRead.get();
        assertTrue(read < 1_000, "the walk went on after the interrupt: " + read + " folders read");
    }
}
