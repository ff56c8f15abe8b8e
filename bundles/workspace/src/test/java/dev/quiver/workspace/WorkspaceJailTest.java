package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceJailTest {

    @TempDir
    Path temp;

    Path rootDir;
    Path outside;
    JailedWorkspace workspace;

    @BeforeEach
    void setUp() throws IOException {
        rootDir = Files.createDirectories(temp.resolve("project"));
        outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "top secret\n");
        Files.createDirectories(rootDir.resolve("src"));
        Files.writeString(rootDir.resolve("src/Main.java"), "class Main {}\n");
        workspace = JailedWorkspace.open(rootDir);
    }

    private String refusal(String path) {
        return assertThrows(ToolException.class, () -> workspace.resolve(path)).getMessage();
    }

    @Test
    void parentOfTheRootIsRefused() {
        assertEquals("Path escapes workspace: ../x", refusal("../x"));
    }

    @Test
    void dotDotThatClimbsPastTheRootIsRefused() {
        assertEquals("Path escapes workspace: a/../../x", refusal("a/../../x"));
        assertEquals("Path escapes workspace: src/../../outside/secret.txt", refusal("src/../../outside/secret.txt"));
    }

    @Test
    void absolutePathOutsideIsRefused() {
        String path = outside.resolve("secret.txt").toString();
        assertEquals("Path escapes workspace: " + path, refusal(path));
        assertEquals("Path escapes workspace: /etc/passwd", refusal("/etc/passwd"));
    }

    @Test
    void siblingFolderSharingTheRootsNamePrefixIsRefused() throws IOException {
        Path sibling = Files.createDirectories(temp.resolve("project-other"));
        Files.writeString(sibling.resolve("x.txt"), "x");
        String path = sibling.resolve("x.txt").toString();
        assertEquals("Path escapes workspace: " + path, refusal(path));
        assertEquals("Path escapes workspace: ../project-other/x.txt", refusal("../project-other/x.txt"));
    }

    @Test
    void symlinkInsideWorkspacePointingOutsideIsRefused() throws IOException {
        Files.createSymbolicLink(rootDir.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(rootDir.resolve("src/away"), outside);
        assertEquals("Path escapes workspace: leak.txt", refusal("leak.txt"));
        assertEquals("Path escapes workspace: src/away", refusal("src/away"));
        assertEquals("Path escapes workspace: src/away/secret.txt", refusal("src/away/secret.txt"));
        // a file that does not exist yet behind the link would be created outside
        assertEquals("Path escapes workspace: src/away/new.txt", refusal("src/away/new.txt"));
    }

    @Test
    void relativeSymlinkClimbingOutIsRefused() throws IOException {
        Files.createSymbolicLink(rootDir.resolve("src/up"), Path.of("../../outside"));
        assertEquals("Path escapes workspace: src/up/secret.txt", refusal("src/up/secret.txt"));
    }

    @Test
    void danglingSymlinkToOutsideIsRefused() throws IOException {
        Path missing = outside.resolve("not-there-yet.txt");
        Files.createSymbolicLink(rootDir.resolve("dangling.txt"), missing);
        Files.createSymbolicLink(rootDir.resolve("dangling-dir"), outside.resolve("no-such-dir"));
        assertFalse(Files.exists(missing));
        assertEquals("Path escapes workspace: dangling.txt", refusal("dangling.txt"));
        assertEquals("Path escapes workspace: dangling-dir/sub/file.txt", refusal("dangling-dir/sub/file.txt"));
    }

    @Test
    void danglingSymlinkChainLeadingOutsideIsRefused() throws IOException {
        // first -> second (missing in the workspace) is not enough: second itself is a dangling link out
        Files.createSymbolicLink(rootDir.resolve("second"), outside.resolve("gone"));
        Files.createSymbolicLink(rootDir.resolve("first"), Path.of("second"));
        assertEquals("Path escapes workspace: first", refusal("first"));
    }

    @Test
    void symlinkLoopIsRefused() throws IOException {
        Files.createSymbolicLink(rootDir.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(rootDir.resolve("b"), Path.of("a"));
        assertEquals("Path escapes workspace: a/file.txt", refusal("a/file.txt"));
    }

    @Test
    void danglingSymlinkInsideWorkspaceResolvesToItsTarget() throws ToolException, IOException {
        Files.createSymbolicLink(rootDir.resolve("future"), Path.of("src/Future.java"));
        assertEquals(workspace.root().resolve("src/Future.java"), workspace.resolve("future"));
    }

    @Test
    void symlinkInsideWorkspacePointingInsideResolvesToTheRealTarget() throws IOException, ToolException {
        Files.createSymbolicLink(rootDir.resolve("main-link"), rootDir.resolve("src/Main.java"));
        assertEquals(workspace.root().resolve("src/Main.java"), workspace.resolve("main-link"));
    }

    @Test
    void nulCharacterIsRefused() {
        String message = refusal("src/Main.java\0.txt");
        assertTrue(message.contains("NUL"), message);
        assertFalse(message.contains("\0"), "the NUL is shown escaped: " + message);
        assertTrue(message.contains("src/Main.java\\0.txt"), message);
    }

    @Test
    void emptyAndBlankPathsAreRefused() {
        assertThrows(ToolException.class, () -> workspace.resolve(""));
        assertThrows(ToolException.class, () -> workspace.resolve("   "));
        assertThrows(ToolException.class, () -> workspace.resolve(null));
    }

    @Test
    void absolutePathInsideIsAccepted() throws ToolException {
        Path inside = workspace.root().resolve("src/Main.java");
        assertEquals(inside, workspace.resolve(inside.toString()));
        Path notYetThere = workspace.root().resolve("src/deep/New.java");
        assertEquals(notYetThere, workspace.resolve(notYetThere.toString()));
    }

    @Test
    void absolutePathThroughASymlinkedRootIsAccepted() throws IOException, ToolException {
        Path alias = Files.createSymbolicLink(temp.resolve("alias"), rootDir);
        JailedWorkspace opened = JailedWorkspace.open(alias);
        assertEquals(rootDir.toRealPath(), opened.root());
        assertEquals(rootDir.toRealPath().resolve("src/Main.java"),
                opened.resolve(alias.resolve("src/Main.java").toString()));
    }

    @Test
    void relativePathsInsideResolveUnderTheRoot() throws ToolException {
        assertEquals(workspace.root().resolve("src/Main.java"), workspace.resolve("src/Main.java"));
        assertEquals(workspace.root().resolve("src/Main.java"), workspace.resolve("./src/../src/Main.java"));
        assertEquals(workspace.root().resolve("new/dir/file.txt"), workspace.resolve("new/dir/file.txt"));
        assertEquals(workspace.root(), workspace.resolve("."));
    }

    @Test
    void relativizeGivesSlashPathsAndDotForTheRoot() {
        assertEquals(".", workspace.relativize(workspace.root()));
        assertEquals("src/Main.java", workspace.relativize(workspace.root().resolve("src/Main.java")));
    }

    @Test
    void openingAFileOrAMissingFolderFails() throws IOException {
        assertThrows(IOException.class, () -> JailedWorkspace.open(rootDir.resolve("src/Main.java")));
        assertThrows(IOException.class, () -> JailedWorkspace.open(rootDir.resolve("missing")));
    }

    @Test
    void factoryComponentOpensTheRealRoot() throws IOException {
        assertEquals(rootDir.toRealPath(), new WorkspaceFactoryComponent().open(rootDir).root());
    }
}
