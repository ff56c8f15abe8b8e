package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jail refuses every change in .git and .quiver, however the path is spelled, and names the folder. */
class ProtectedWritesTest {

    @TempDir
    Path dir;
    JailedWorkspace workspace;
    Path root;

    @BeforeEach
    void setUp() throws IOException {
        workspace = JailedWorkspace.open(dir);
        root = workspace.root();
        Files.createDirectories(root.resolve(".git/hooks"));
        Files.writeString(root.resolve(".git/config"), "[core]\n");
        Files.createDirectories(root.resolve(".quiver"));
        Files.createDirectories(root.resolve("a"));
        Files.createSymbolicLink(root.resolve("hooks-link"), root.resolve(".git/hooks"));
        Files.writeString(root.resolve("plain.txt"), "plain\n");
    }

    @Test
    void writesIntoGitAreRefusedInEverySpelling() throws IOException {
        for (String path : List.of(".git/config", ".git/hooks/pre-commit", "a/../.git/hooks/post-checkout",
                "hooks-link/pre-push", ".GIT/config", ".Git/new")) {
            IOException refused = assertThrows(IOException.class,
                    () -> workspace.write(root.resolve(path).normalize(), "x".getBytes()), path);
            assertTrue(refused.getMessage().contains("the workspace's .git folder"), refused.getMessage());
        }
        assertEquals("[core]\n", Files.readString(root.resolve(".git/config")));
        assertFalse(Files.exists(root.resolve(".git/hooks/pre-commit")));
        assertFalse(Files.exists(root.resolve(".git/hooks/pre-push")));
    }

    @Test
    void writesIntoQuiverAreRefused() {
        IOException refused = assertThrows(IOException.class,
                () -> workspace.write(root.resolve(".quiver/settings.json"), "{}".getBytes()));
        assertTrue(refused.getMessage().contains("the workspace's .quiver folder"), refused.getMessage());
        assertFalse(Files.exists(root.resolve(".quiver/settings.json")));
    }

    @Test
    void movesCopiesDeletesAndFoldersAreRefusedThere() throws IOException {
        assertThrows(IOException.class, () -> workspace.move(root.resolve("plain.txt"), root.resolve(".git/hooks/x")));
        assertThrows(IOException.class, () -> workspace.move(root.resolve(".git/config"), root.resolve("config")));
        assertThrows(IOException.class, () -> workspace.copy(root.resolve("plain.txt"), root.resolve(".quiver/p")));
        assertThrows(IOException.class, () -> workspace.delete(root.resolve(".git/config")));
        assertThrows(IOException.class, () -> workspace.createDirectories(root.resolve(".git/hooks/d")));
        assertThrows(IOException.class, () -> workspace.delete(root.resolve(".git")));
        assertTrue(Files.exists(root.resolve("plain.txt")));
        assertTrue(Files.exists(root.resolve(".git/config")));
        assertEquals(List.of(), List.of(root.resolve(".git/hooks").toFile().list()));
    }

    @Test
    void quiversStateFolderInsideTheWorkspaceIsProtected() throws IOException {
        // the home folder as the workspace: Quiver's state for it lies inside, where a forged journal
        // would be carried out by the next start's recovery
        Path state = root.resolve(".local/share/quiver/sessions/ws-1/state");
        JailedWorkspace home = JailedWorkspace.open(dir, state);
        Path journal = state.resolve("changes/forged.journal");
        IOException refused = assertThrows(IOException.class, () -> home.write(journal, "delete x".getBytes()));
        assertTrue(refused.getMessage().contains("Quiver's own state folder"), refused.getMessage());
        assertThrows(IOException.class, () -> home.copy(root.resolve("plain.txt"), state.resolve("p")));
        assertTrue(home.isProtected(journal));
        assertFalse(Files.exists(journal));
        home.write(root.resolve(".local/share/other/notes.txt"), "ok\n".getBytes());
        assertFalse(home.isProtected(root.resolve(".local/share/other/notes.txt")));
        assertFalse(workspace.isProtected(journal), "a workspace opened without that state folder knows none");
        // a folder above it moved away, deleted or replaced by a link to a tree the model wrote
        home.write(root.resolve("dl/quiver/sessions/ws-1/state/changes/evil.journal"), "delete x".getBytes());
        Files.createDirectories(state);
        assertThrows(IOException.class, () -> home.move(root.resolve(".local"), root.resolve("junk")));
        assertThrows(IOException.class, () -> home.move(root.resolve(".local/share"), root.resolve("junk")));
        assertThrows(IOException.class, () -> home.delete(root.resolve(".local/share/quiver")));
        assertThrows(IOException.class, () -> home.createLink(root.resolve(".local/share/quiver/sessions/ws-1/state"),
                root.resolve("dl/quiver/sessions/ws-1/state")));
        assertTrue(Files.isDirectory(state, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(root.resolve("junk")));
        assertTrue(home.isProtected(root.resolve(".LOCAL/Share/quiver/sessions/ws-1/state/x")), "in any case");
    }

    @Test
    void writingElsewhereStillWorks() throws IOException {
        workspace.write(root.resolve("new/dir/file.txt"), "ok\n".getBytes());
        assertEquals("ok\n", Files.readString(root.resolve("new/dir/file.txt")));
        workspace.write(root.resolve("gitignore-like/.git-notes"), "ok\n".getBytes());
        assertTrue(Files.exists(root.resolve("gitignore-like/.git-notes")));
    }
}
