package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace.Folder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Folder.openFolder}: a folder opened by name relative to a held one, as a search holds the
 * folders of its path. It must open what {@code Workspace.openFolder} of the same path opens, and never a
 * folder outside the workspace, whatever is swapped in after the parent was opened.
 */
class HeldFolderTest {

    @TempDir
    Path base;
    Path root;
    Path outside;
    JailedWorkspace workspace;

    @BeforeEach
    void tree() throws IOException {
        root = Files.createDirectories(base.resolve("ws")).toRealPath();
        outside = Files.createDirectories(base.resolve("outside")).toRealPath();
        Files.createDirectories(root.resolve("a/b/c"));
        Files.writeString(root.resolve("a/b/one.txt"), "inside one");
        Files.writeString(root.resolve("a/b/c/deep.txt"), "inside deep");
        Files.createDirectories(outside.resolve("b/c"));
        Files.writeString(outside.resolve("b/one.txt"), "OUTSIDE one");
        Files.writeString(outside.resolve("b/c/deep.txt"), "OUTSIDE deep");
        workspace = JailedWorkspace.open(root);
    }

    @Test
    void aChildIsOpenedByNameAndReadLikeTheSamePathOpenedFromTheRoot() throws IOException {
        try (Folder top = workspace.openFolder(root); Folder a = top.openFolder("a"); Folder b = a.openFolder("b");
                Folder c = b.openFolder("c")) {
            assertEquals("inside one", read(b, "one.txt"));
            assertEquals("inside deep", read(c, "deep.txt"));
            // a path of several names below a child is still walked from the root
            assertEquals("inside deep", read(b, "c/deep.txt"));
        }
    }

    @Test
    void closingAParentLeavesItsChildOpen() throws IOException {
        Folder a = workspace.openFolder(root.resolve("a"));
        try (Folder b = a.openFolder("b")) {
            a.close();
            assertEquals("inside one", read(b, "one.txt"));
        }
    }

    @Test
    void aHeldFolderSwappedForALinkOutsideKeepsReadingTheFolderItOpened() throws IOException {
        try (Folder top = workspace.openFolder(root); Folder a = top.openFolder("a"); Folder b = a.openFolder("b")) {
            Files.move(root.resolve("a"), root.resolve("a-moved"));
            Files.createSymbolicLink(root.resolve("a"), outside);
            // the handles are the folders that were checked: the original inodes, not what the name leads to now
            assertEquals("inside one", read(b, "one.txt"));
            // a folder below it is opened only while its path still names it: b's path leads outside now
            IOException below = assertThrows(IOException.class, () -> b.openFolder("c"));
            assertTrue(below.getMessage().contains("leads out of the workspace"), below.getMessage());
            // a folder opened after the swap, by the name that is a link now, is never the outside one
            IOException refused = assertThrows(IOException.class, () -> top.openFolder("a"));
            assertTrue(refused.getMessage().contains("leads out of the workspace"), refused.getMessage());
        }
    }

    /**
     * A held folder moved out of the workspace (a background process can rename within one file system):
     * nothing below it is opened any more, whatever was written there since (attack review: the stack
     * held a whole subtree where opening every folder from the root refused it).
     */
    @Test
    void aHeldFolderMovedOutOfTheWorkspaceOpensNothingBelowIt() throws IOException {
        try (Folder top = workspace.openFolder(root); Folder a = top.openFolder("a")) {
            Files.move(root.resolve("a"), outside.resolve("a"));
            Files.writeString(outside.resolve("a/b/one.txt"), "OUTSIDE written after the move");
            IOException refused = assertThrows(IOException.class, () -> a.openFolder("b"));
            assertTrue(refused instanceof NoSuchFileException, refused.toString());
            // linked back in its place, the path leads to the same folder, outside: still nothing below it
            Files.createSymbolicLink(root.resolve("a"), outside.resolve("a"));
            IOException linkedBack = assertThrows(IOException.class, () -> a.openFolder("b"));
            assertTrue(linkedBack.getMessage().contains("leads out of the workspace"), linkedBack.getMessage());
        }
    }

    /** A named pipe in a folder's place is refused at once; an open of it would wait for a writer for ever. */
    @Test
    void aPipeInAFoldersPlaceIsRefusedNotWaitedOn() throws Exception {
        shell("mkfifo a/pipe");
        try (Folder top = workspace.openFolder(root); Folder a = top.openFolder("a")) {
            IOException refused = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                    () -> assertThrows(IOException.class, () -> a.openFolder("pipe")));
            assertTrue(refused.getMessage().contains("not a folder"), refused.getMessage());
            IOException byPath = assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                    () -> assertThrows(IOException.class, () -> workspace.openFolder(root.resolve("a/pipe"))));
            assertTrue(byPath.getMessage().contains("not a folder"), byPath.getMessage());
        }
    }

    @Test
    void aChildNotYetOpenedThatBecomesALinkOutsideIsRefused() throws IOException {
        try (Folder top = workspace.openFolder(root); Folder a = top.openFolder("a")) {
            Files.move(root.resolve("a/b"), root.resolve("b-moved"));
            Files.createSymbolicLink(root.resolve("a/b"), outside.resolve("b"));
            IOException refused = assertThrows(IOException.class, () -> a.openFolder("b"));
            assertTrue(refused.getMessage().contains("leads out of the workspace"), refused.getMessage());
            Files.delete(root.resolve("a/b"));
            Files.createSymbolicLink(root.resolve("a/b"), Path.of("../../outside/b"));
            refused = assertThrows(IOException.class, () -> a.openFolder("b"));
            assertTrue(refused.getMessage().contains("leads out of the workspace"), refused.getMessage());
        }
    }

    @Test
    void aChildThatIsALinkInsideTheWorkspaceOpensItsTargetAsOpenFolderOfThePathDoes() throws IOException {
        Files.createSymbolicLink(root.resolve("linked"), Path.of("a/b"));
        Files.createSymbolicLink(root.resolve("a/chain"), Path.of("../linked"));
        try (Folder top = workspace.openFolder(root); Folder linked = top.openFolder("linked");
                Folder a = top.openFolder("a"); Folder chain = a.openFolder("chain");
                Folder byPath = workspace.openFolder(root.resolve("a/chain"))) {
            assertEquals("inside one", read(linked, "one.txt"));
            assertEquals("inside one", read(chain, "one.txt"));
            assertEquals(read(byPath, "one.txt"), read(chain, "one.txt"));
            try (Folder c = chain.openFolder("c")) {
                assertEquals("inside deep", read(c, "deep.txt"));
            }
        }
    }

    @Test
    void aNameWithEscapedBytesOpensTheFolderWithThoseBytesUnlessOneIsLiterallySoCalled() throws Exception {
        shell("mkdir \"$(printf 'sub\\376')\" && printf raw > \"$(printf 'sub\\376/x.txt')\" "
                + "&& mkdir 'lit\\xFF' \"$(printf 'lit\\377')\" && printf literal > 'lit\\xFF/x.txt' "
                + "&& printf bytes > \"$(printf 'lit\\377/x.txt')\"");
        try (Folder top = workspace.openFolder(root); Folder sub = top.openFolder("sub\\xFE");
                Folder literal = top.openFolder("lit\\xFF")) {
            assertEquals("raw", read(sub, "x.txt"));
            assertEquals("literal", read(literal, "x.txt"));
        }
    }

    @Test
    void whatIsNotOneFolderNameIsRefusedNamingIt() throws IOException {
        Files.writeString(root.resolve("a/file.txt"), "a file");
        try (Folder a = workspace.openFolder(root.resolve("a"))) {
            for (String name : new String[] {"", ".", "..", "b/c", "../a", "x\0y"}) {
                IOException refused = assertThrows(IOException.class, () -> a.openFolder(name), name);
                assertTrue(refused.getMessage().contains("not one folder name"), refused.getMessage());
            }
            IOException missing = assertThrows(NoSuchFileException.class, () -> a.openFolder("missing"));
            assertTrue(missing.getMessage().contains("a/missing"), missing.getMessage());
            IOException file = assertThrows(IOException.class, () -> a.openFolder("file.txt"));
            assertTrue(file.getMessage().contains("a/file.txt") && file.getMessage().contains("not a folder"),
                    file.getMessage());
        }
    }

    /** Reading is allowed in Quiver's state folder inside the workspace, as openFolder and openRead allow it. */
    @Test
    void theStateFolderInsideTheWorkspaceIsReadAsOpenFolderOfItsPathReadsIt() throws IOException {
        Path state = Files.createDirectories(root.resolve(".local/share/quiver/state"));
        Files.writeString(state.resolve("notes.txt"), "state");
        JailedWorkspace home = JailedWorkspace.open(root, state);
        try (Folder top = home.openFolder(root); Folder local = top.openFolder(".local");
                Folder share = local.openFolder("share"); Folder quiver = share.openFolder("quiver");
                Folder held = quiver.openFolder("state"); Folder byPath = home.openFolder(state)) {
            assertEquals("state", read(held, "notes.txt"));
            assertEquals(read(byPath, "notes.txt"), read(held, "notes.txt"));
        }
        assertThrows(IOException.class, () -> home.write(state.resolve("notes.txt"), new byte[0]));
    }

    @Test
    void openingAndClosingThousandsOfChildrenLeavesNoFolderOpen() throws IOException {
        Files.createSymbolicLink(root.resolve("a/out"), outside);
        Files.writeString(root.resolve("a/file.txt"), "a file");
        try (Folder a = workspace.openFolder(root.resolve("a"))) {
            long before = openFiles();
            for (int i = 0; i < 2_000; i++) {
                try (Folder b = a.openFolder("b"); Folder c = b.openFolder("c")) {
                    assertEquals("inside deep", read(c, "deep.txt"));
                }
                for (String refused : new String[] {"out", "missing", "file.txt"}) {
                    assertThrows(IOException.class, () -> a.openFolder(refused).close());
                }
            }
            // a leak of one handle per open or per refusal would be thousands
            assertTrue(openFiles() < before + 20, "open files went from " + before + " to " + openFiles());
        }
    }

    private static long openFiles() throws IOException {
        try (var list = Files.list(Path.of("/proc/self/fd"))) {
            return list.count();
        }
    }

    private static String read(Folder folder, String name) throws IOException {
        try (SeekableByteChannel channel = folder.openRead(name)) {
            ByteBuffer bytes = ByteBuffer.allocate(64);
            channel.read(bytes);
            return new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8);
        }
    }

    private void shell(String script) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", script).directory(root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
    }
}
