package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** move_file, delete_file, create_directory and copy_path. */
class FileOperationsTest {

    @TempDir
    Path root;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private Path file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    private String move(String from, String to) throws ToolException {
        return new MoveFileTool().call(Arguments.of(Map.of("from", from, "to", to)), context).text();
    }

    private String copy(String from, String to) throws ToolException {
        return new CopyPathTool().call(Arguments.of(Map.of("from", from, "to", to)), context).text();
    }

    private String delete(String path) throws ToolException {
        return new DeleteFileTool().call(Arguments.of(Map.of("path", path)), context).text();
    }

    private String mkdir(String path) throws ToolException {
        return new CreateDirectoryTool().call(Arguments.of(Map.of("path", path)), context).text();
    }

    // ------------------------------------------------------------------------------------ move

    @Test
    void moveRenamesAFileIntoNewParentsKeepingItsBytesAndPermissions() throws Exception {
        Path source = file("a.sh", "echo hi\n");
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxr-x---"));
        assertEquals("Moved a.sh to bin/tools/a.sh.", move("a.sh", "bin/tools/a.sh"));
        assertFalse(Files.exists(source));
        Path target = root.resolve("bin/tools/a.sh");
        assertEquals("echo hi\n", Files.readString(target));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
    }

    @Test
    void moveRefusesAMissingSourceAndAnOccupiedTarget() throws Exception {
        assertEquals("No such file or directory: nope.txt",
                assertThrows(ToolException.class, () -> move("nope.txt", "b.txt")).getMessage());
        file("a.txt", "a\n");
        file("b.txt", "b\n");
        assertEquals("b.txt already exists. Delete it first or choose another target; move_file never overwrites.",
                assertThrows(ToolException.class, () -> move("a.txt", "b.txt")).getMessage());
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
        assertEquals("b\n", Files.readString(root.resolve("b.txt")));
    }

    @Test
    void aFailedMoveOrCopyLeavesNoNewFoldersBehind() throws Exception {
        file("a.txt", "a\n");
        file("d/inner.txt", "i\n");
        String tooLong = "new/deeper/" + "n".repeat(300); // the folders can be made, the name cannot
        for (ToolException error : List.of(
                assertThrows(ToolException.class, () -> move("a.txt", tooLong)),
                assertThrows(ToolException.class, () -> copy("a.txt", tooLong)),
                assertThrows(ToolException.class, () -> copy("d", tooLong)))) {
            assertTrue(error.getMessage().startsWith("Cannot "), error.getMessage());
        }
        assertFalse(Files.exists(root.resolve("new")), "the folders made for the target are gone again");
        assertEquals("a\n", Files.readString(root.resolve("a.txt")));
        assertEquals("i\n", Files.readString(root.resolve("d/inner.txt")));
    }

    @Test
    void moveOfADirectoryAndIntoItself() throws Exception {
        file("src/a/x.txt", "x");
        assertEquals("Moved directory src/a to lib/a.", move("src/a", "lib/a"));
        assertTrue(Files.exists(root.resolve("lib/a/x.txt")));
        assertEquals("Cannot move lib into itself (lib/a/deeper).",
                assertThrows(ToolException.class, () -> move("lib", "lib/a/deeper")).getMessage());
    }

    @Test
    void moveHasBothEndsAsSubjects() throws ToolException {
        assertEquals(List.of(Subject.path("a.txt"), Subject.path("../b.txt")),
                new MoveFileTool().subjects(Arguments.of(Map.of("from", "a.txt", "to", "../b.txt"))));
    }

    @Test
    void moveOutOfTheWorkspaceIsRefused(@TempDir Path outside) throws Exception {
        file("a.txt", "a");
        Files.createSymbolicLink(root.resolve("out"), outside);
        assertEquals("Path escapes workspace: ../a.txt",
                assertThrows(ToolException.class, () -> move("a.txt", "../a.txt")).getMessage());
        assertEquals("Path escapes workspace: out/a.txt",
                assertThrows(ToolException.class, () -> move("a.txt", "out/a.txt")).getMessage());
        assertTrue(Files.exists(root.resolve("a.txt")));
    }

    @Test
    void moveOfALinkMovesTheLinkNotItsTarget(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("t.txt"), "outside");
        Files.createSymbolicLink(root.resolve("link"), outside.resolve("t.txt"));
        assertEquals("Moved link to renamed-link.", move("link", "renamed-link"));
        assertTrue(Files.isSymbolicLink(root.resolve("renamed-link")));
        assertTrue(Files.exists(outside.resolve("t.txt")));
    }

    @Test
    void aMovedFileThatWasReadCanBeEditedAtItsNewPath() throws Exception {
        file("a.txt", "alpha\n");
        context.read("a.txt");
        move("a.txt", "b.txt");
        new MultiEditTool().call(Arguments.of(Map.of("path", "b.txt", "edits",
                List.of(Map.of("oldString", "alpha", "newString", "beta")))), context);
        assertEquals("beta\n", Files.readString(root.resolve("b.txt")));
    }

    @Test
    void aSecretKeepsASecretName() throws Exception {
        file(".env", "KEY=1");
        assertEquals(".env holds secrets by its name; moving it to notes.txt, a name that does not, would let it be "
                + "read. Keep a secret name (such as .env or *.pem) for it.",
                assertThrows(ToolException.class, () -> move(".env", "notes.txt")).getMessage());
        assertEquals("Moved .env to config/.env.", move(".env", "config/.env"));
    }

    // ---------------------------------------------------------------------------------- delete

    @Test
    void deleteRemovesOneFileAndReportsItsSize() throws Exception {
        file("a.txt", "12345");
        assertEquals("Deleted a.txt (5 bytes).", delete("a.txt"));
        assertFalse(Files.exists(root.resolve("a.txt")));
    }

    @Test
    void deleteRefusesDirectoriesMissingFilesAndTheRoot() throws Exception {
        file("dir/a.txt", "a");
        assertTrue(assertThrows(ToolException.class, () -> delete("dir")).getMessage()
                .startsWith("dir is a directory; delete_file removes a folder and everything in it only with recursive: true."));
        assertTrue(Files.exists(root.resolve("dir/a.txt")));
        assertEquals("No such file: nope", assertThrows(ToolException.class, () -> delete("nope")).getMessage());
        assertEquals("That is the workspace root; give a path inside it.",
                assertThrows(ToolException.class, () -> delete(".")).getMessage());
        assertEquals("Path escapes workspace: ../x", assertThrows(ToolException.class, () -> delete("../x")).getMessage());
    }

    @Test
    void deleteOfALinkRemovesOnlyTheLink(@TempDir Path outside) throws Exception {
        Path target = Files.writeString(outside.resolve("keep.txt"), "keep");
        Files.createSymbolicLink(root.resolve("link.txt"), target);
        assertEquals("Deleted the link link.txt (it pointed to " + target + "; that is untouched).", delete("link.txt"));
        assertTrue(Files.exists(target));
        assertFalse(Files.exists(root.resolve("link.txt"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    // --------------------------------------------------------------------------------- mkdir

    @Test
    void createDirectoryMakesParentsAndIsHappyWhenItExists() throws Exception {
        assertEquals("Created directory a/b/c.", mkdir("a/b/c"));
        assertTrue(Files.isDirectory(root.resolve("a/b/c")));
        assertEquals("a/b/c already exists; nothing to do.", mkdir("a/b/c"));
    }

    @Test
    void createDirectoryRefusesFilesInTheWay() throws Exception {
        file("a.txt", "a");
        assertEquals("a.txt exists and is a file, not a directory. Choose another name.",
                assertThrows(ToolException.class, () -> mkdir("a.txt")).getMessage());
        assertEquals("Cannot create a.txt/sub: a.txt is a file, not a directory.",
                assertThrows(ToolException.class, () -> mkdir("a.txt/sub")).getMessage());
        assertEquals("Path escapes workspace: ../x", assertThrows(ToolException.class, () -> mkdir("../x")).getMessage());
    }

    // ----------------------------------------------------------------------------------- copy

    @Test
    void copyOfAFileKeepsItsBytesAndPermissions() throws Exception {
        Path source = file("a.sh", "echo\n");
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwx------"));
        assertEquals("Copied a.sh to b/c.sh (5 bytes).", copy("a.sh", "b/c.sh"));
        assertEquals("echo\n", Files.readString(root.resolve("b/c.sh")));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("b/c.sh"))));
        assertTrue(Files.exists(source));
    }

    @Test
    void copyOfADirectoryCopiesEverythingAndLinksStayLinks(@TempDir Path outside) throws Exception {
        file("src/a.txt", "a");
        file("src/deep/b.txt", "b");
        Files.createSymbolicLink(root.resolve("src/out"), outside);
        assertEquals("Copied directory src to copy (3 files, 1 subdirectory).", copy("src", "copy"));
        assertEquals("b", Files.readString(root.resolve("copy/deep/b.txt")));
        assertTrue(Files.isSymbolicLink(root.resolve("copy/out")), "a link is copied as a link, never followed");
    }

    @Test
    void copyRefusesAnOccupiedTargetItselfAndMissingSources() throws Exception {
        file("a.txt", "a");
        file("b.txt", "b");
        assertEquals("b.txt already exists. Delete it first or choose another target; copy_path never overwrites.",
                assertThrows(ToolException.class, () -> copy("a.txt", "b.txt")).getMessage());
        assertEquals("No such file or directory: nope",
                assertThrows(ToolException.class, () -> copy("nope", "x")).getMessage());
        file("d/x.txt", "x");
        assertEquals("Cannot copy d into itself (d/inner).",
                assertThrows(ToolException.class, () -> copy("d", "d/inner")).getMessage());
    }

    @Test
    void copyOfASecretUnderAnotherNameIsRefused() throws Exception {
        file("id_rsa", "PRIVATE");
        Files.createSymbolicLink(root.resolve("innocent"), root.resolve("id_rsa"));
        assertTrue(assertThrows(ToolException.class, () -> copy("id_rsa", "key.txt")).getMessage()
                .startsWith("id_rsa holds secrets by its name; copying it to key.txt"));
        // the jail refuses to lead a plain name to a secret at all
        assertTrue(assertThrows(ToolException.class, () -> copy("innocent", "key.txt")).getMessage()
                .startsWith("innocent is a link to id_rsa, which holds secrets by its name"));
        assertFalse(Files.exists(root.resolve("key.txt")));
    }

    @Test
    void copyCannotPullAFileInFromOutside(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("passwd"), "root");
        Files.createSymbolicLink(root.resolve("p"), outside.resolve("passwd"));
        assertEquals("Path escapes workspace: p", assertThrows(ToolException.class, () -> copy("p", "q")).getMessage());
        assertFalse(Files.exists(root.resolve("q")));
    }
}
