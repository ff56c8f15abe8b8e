package dev.quiver.tools.edit.plus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolContext.Permission;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** delete_file with recursive: true, on real folders. */
class RecursiveDeleteTest {

    @TempDir
    Path root;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private void file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private String delete(String path, boolean recursive) throws ToolException {
        return new DeleteFileTool().call(Arguments.of(Map.of("path", path, "recursive", recursive)), context).text();
    }

    private String refusal(String path) {
        return assertThrows(ToolException.class, () -> delete(path, true)).getMessage();
    }

    private static long count(Path folder) throws IOException {
        try (Stream<Path> all = Files.walk(folder)) {
            return all.count();
        }
    }

    @Test
    void aFolderGoesWholeOnlyWithRecursive() throws Exception {
        file("build/a.txt", "aa");
        file("build/sub/b.txt", "bbb");
        file("build/sub/deeper/c.txt", "c");
        file("keep.txt", "k");
        assertTrue(assertThrows(ToolException.class, () -> delete("build", false)).getMessage()
                .contains("only with recursive: true"));
        assertEquals(6, count(root.resolve("build")), "nothing deleted without recursive");

        assertEquals("Deleted the folder build: 3 files and 3 folders (6 B).", delete("build", true));
        assertFalse(Files.exists(root.resolve("build")));
        assertTrue(Files.exists(root.resolve("keep.txt")));
    }

    @Test
    void aLinkInsideIsRemovedAsALinkAndItsTargetOutsideSurvives(@TempDir Path outside) throws Exception {
        Path target = Files.writeString(outside.resolve("precious.txt"), "precious");
        Files.createDirectories(outside.resolve("dir"));
        Files.writeString(outside.resolve("dir/inner.txt"), "inner");
        file("gone/a.txt", "a");
        Files.createSymbolicLink(root.resolve("gone/to-file"), target);
        Files.createSymbolicLink(root.resolve("gone/to-dir"), outside.resolve("dir"));
        Files.createSymbolicLink(root.resolve("gone/dangling"), outside.resolve("missing"));

        assertEquals("Deleted the folder gone: 4 files and 1 folder (1 B).", delete("gone", true));
        assertFalse(Files.exists(root.resolve("gone"), LinkOption.NOFOLLOW_LINKS));
        assertEquals("precious", Files.readString(target));
        assertEquals("inner", Files.readString(outside.resolve("dir/inner.txt")));
    }

    @Test
    void aFolderArgumentThatIsALinkRemovesOnlyTheLink(@TempDir Path outside) throws Exception {
        Files.writeString(outside.resolve("inner.txt"), "inner");
        Files.createSymbolicLink(root.resolve("linked"), outside);
        assertTrue(delete("linked", true).startsWith("Deleted the link linked"));
        assertEquals("inner", Files.readString(outside.resolve("inner.txt")));
    }

    @Test
    void gitFoldersNestedRepositoriesAndTheRootAreRefused() throws Exception {
        file(".git/config", "[core]\n");
        file(".git/hooks/pre-commit", "#!/bin/sh\n");
        file(".quiver/config.json", "{}");
        file("vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
        file("vendor/lib/x.c", "x");
        assertTrue(refusal(".git").contains("inside a .git or .quiver folder"));
        assertTrue(refusal(".git/hooks").contains("inside a .git or .quiver folder"));
        assertTrue(refusal(".quiver").contains("inside a .git or .quiver folder"));
        assertTrue(refusal("vendor/lib/.git").contains("inside a .git or .quiver folder"));
        assertTrue(refusal("vendor").contains("vendor/lib holds a .git folder"), refusal("vendor"));
        assertEquals("That is the workspace root; give a path inside it.", refusal("."));
        assertEquals("That is the workspace root; give a path inside it.", refusal("vendor/.."));
        assertTrue(Files.exists(root.resolve(".git/hooks/pre-commit")));
        assertTrue(Files.exists(root.resolve("vendor/lib/x.c")));
    }

    @Test
    void aFolderHoldingASecretIsRefusedWholeUnlessTheRulesAllowDeletingTheSecretsUnasked() throws Exception {
        file("config/app.yml", "a: 1");
        file("config/deep/.env", "KEY=1");
        file("config/deep/tls.pem", "-----BEGIN");
        for (Permission decision : List.of(Permission.ASKS, Permission.DENIED)) {
            context.permissions = subjects -> decision;
            context.permissionsAsked.clear();
            String refused = refusal("config");
            assertTrue(refused.startsWith("config holds files with secrets by their name (config/deep/.env, "
                    + "config/deep/tls.pem); delete_file deletes a folder holding one only where the permission rules "
                    + "allow delete_file on them without asking."), refused);
            assertEquals(List.of(List.of(Subject.path("config/deep/.env"), Subject.path("config/deep/tls.pem"))),
                    context.permissionsAsked, "the secrets, and only they, are put to the rules, once");
            assertEquals(5, count(root.resolve("config")), "every file and folder is still there");
        }
        context.permissions = subjects -> Permission.ALLOWED;
        assertTrue(delete("config", true).startsWith("Deleted the folder config: 3 files and 2 folders"));
        assertFalse(Files.exists(root.resolve("config"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aFolderWithoutSecretsAsksTheRulesNothingMore() throws Exception {
        file("plain/a.txt", "a");
        context.permissions = subjects -> Permission.DENIED;
        delete("plain", true);
        assertEquals(List.of(), context.permissionsAsked);
        assertFalse(Files.exists(root.resolve("plain")));
    }

    @Test
    void aFolderWithNamesThatAreNotUtf8IsDeletedCompletely() throws Exception {
        Process process = new ProcessBuilder("sh", "-c", "mkdir -p \"$(printf 'odd/dir\\377')\" && "
                + "printf x > \"$(printf 'odd/dir\\377/f\\376.txt')\" && printf y > \"$(printf 'odd/g\\375')\" && "
                + "printf z > odd/é.txt").directory(root.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        assertEquals(5, count(root.resolve("odd")));

        assertEquals("Deleted the folder odd: 3 files and 2 folders (3 B).", delete("odd", true));
        assertFalse(Files.exists(root.resolve("odd")));
    }

    @Test
    void aLinkWhoseNameIsNotUtf8IsDeletedAsTheLinkByItsEscapedName() throws Exception {
        file("target.txt", "kept");
        file("dir/inner.txt", "kept too");
        Process process = new ProcessBuilder("sh", "-c", "ln -s target.txt \"$(printf 'l\\377')\" && "
                + "ln -s dir \"$(printf 'd\\376')\"").directory(root.toFile()).start();
        assertEquals(0, process.waitFor());

        assertTrue(delete("l\\xFF", false).startsWith("Deleted the link l\\xFF"));
        assertTrue(delete("d\\xFE", true).startsWith("Deleted the link d\\xFE"));
        assertEquals("kept", Files.readString(root.resolve("target.txt")));
        assertEquals("kept too", Files.readString(root.resolve("dir/inner.txt")));
        try (Stream<Path> left = Files.list(root)) {
            assertEquals(2, left.count(), "only the two links went");
        }
    }

    @Test
    void moreEntriesThanTheCapAreRefusedAndNothingIsDeleted() throws Exception {
        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i <= DeleteFileTool.MAX_ENTRIES; i++) {
            Files.createFile(many.resolve("f" + i));
        }
        assertTrue(refusal("many").startsWith("many holds more than 10000 files and folders"), refusal("many"));
        assertEquals(DeleteFileTool.MAX_ENTRIES + 2, count(many));
    }

    @Test
    void aFolderDeleteNamesEveryPathItWouldRemoveForThePermissionRules() throws Exception {
        file("victim/a.txt", "a\n");
        file("victim/keep/precious.txt", "p\n");
        java.util.List<String> subjects = new DeleteFileTool().subjects(
                Arguments.of(Map.of("path", "victim", "recursive", true)), context.workspace()).stream()
                .map(dev.quiver.api.Subject::value).toList();
        assertEquals(java.util.List.of("victim", "victim/a.txt", "victim/keep", "victim/keep/precious.txt"), subjects);
        assertEquals(java.util.List.of("victim"), new DeleteFileTool().subjects(
                Arguments.of(Map.of("path", "victim")), context.workspace()).stream()
                .map(dev.quiver.api.Subject::value).toList(), "without recursive only the path itself");
    }

    @Test
    void aFolderHoldingWhatTheWalkDoesNotShowIsRefusedBeforeAnythingIsDeleted() throws Exception {
        file("victim/a.txt", "a\n");
        file("victim/sub/b.txt", "b\n");
        file("victim/sub/.b.txt.1234.quiver-tmp", "a change in progress\n"); // skipped by every walk
        String refusal = refusal("victim");
        assertTrue(refusal.contains("victim/sub holds entries delete_file does not list")
                && refusal.endsWith("No file was changed; ask the user."), refusal);
        assertEquals("a\n", Files.readString(root.resolve("victim/a.txt")));
        assertEquals("b\n", Files.readString(root.resolve("victim/sub/b.txt")));
    }
}
