package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretIndexTest {

    @TempDir
    Path dir;

    private Path root;
    private SecretIndex index;

    @BeforeEach
    void open() throws Exception {
        root = dir.toRealPath();
        index = new SecretIndex(root, JailedWorkspace.open(root).walker);
    }

    private List<String> secrets() throws Exception {
        return index.secrets().stream().map(path -> root.relativize(path).toString()).toList();
    }

    private void write(String path) throws Exception {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "x");
    }

    @Test
    void findsSecretsEverywhereButTemplatesAndGit() throws Exception {
        write(".env");
        write(".env.example");
        write("src/Main.java");
        write("deploy/prod.env.local");
        write("ignored/keys/id_ed25519");
        write("ignored/keys/id_ed25519.pub");
        write(".git/secret.pem");
        Files.writeString(root.resolve(".gitignore"), "ignored/\n");
        assertEquals(List.of(".env", "deploy/prod.env.local", "ignored/keys/id_ed25519"), secrets());
    }

    @Test
    void followsChangesWithoutMissingOneThatCameRightAfterALook() throws Exception {
        write("a/b/readme.txt");
        assertEquals(List.of(), secrets());
        // no pause: the folder's time may not have moved on since the look
        write("a/b/.env");
        assertEquals(List.of("a/b/.env"), secrets());
        write("a/b/c/d/server.key");
        assertEquals(List.of("a/b/.env", "a/b/c/d/server.key"), secrets());
        Files.move(root.resolve("a/b/c"), root.resolve("a/moved"));
        assertEquals(List.of("a/b/.env", "a/moved/d/server.key"), secrets());
        Files.move(root.resolve("a/b/.env"), root.resolve("a/b/env.txt"));
        assertEquals(List.of("a/moved/d/server.key"), secrets());
        Files.delete(root.resolve("a/moved/d/server.key"));
        Files.delete(root.resolve("a/moved/d"));
        assertEquals(List.of(), secrets());
        Files.move(root.resolve("a/b/env.txt"), root.resolve("a/b/.netrc"));
        assertEquals(List.of("a/b/.netrc"), secrets());
    }

    @Test
    void unchangedFoldersAreNotListedAgain() throws Exception {
        write("old/keys/site.pem");
        assertEquals(List.of("old/keys/site.pem"), secrets());
        // made to look long unchanged: the next looks take the folders' times as they are
        Files.setLastModifiedTime(root.resolve("old/keys"), java.nio.file.attribute.FileTime.fromMillis(1_000_000));
        Files.setLastModifiedTime(root.resolve("old"), java.nio.file.attribute.FileTime.fromMillis(1_000_000));
        Files.setLastModifiedTime(root, java.nio.file.attribute.FileTime.fromMillis(1_000_000));
        assertEquals(List.of("old/keys/site.pem"), secrets());
        // a file added behind the index's back with the folder's time put back is not seen: proof that the
        // folder was not listed again; a real change always moves the folder's time
        write("old/keys/other.pem");
        Files.setLastModifiedTime(root.resolve("old/keys"), java.nio.file.attribute.FileTime.fromMillis(1_000_000));
        assertEquals(List.of("old/keys/site.pem"), secrets());
        Files.setLastModifiedTime(root.resolve("old/keys"), java.nio.file.attribute.FileTime.fromMillis(2_000_000));
        assertEquals(List.of("old/keys/other.pem", "old/keys/site.pem"), secrets());
    }
}
