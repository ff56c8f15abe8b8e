package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** changed_files on real repositories made with JGit. */
class ChangedFilesToolTest {

    @TempDir
    Path root;

    private void write(String name, String text) throws Exception {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private String changedFiles() throws Exception {
        return new ChangedFilesTool().call(Arguments.empty(), new ToolTestContext(root)).text();
    }

    @Test
    void modifiedStagedDeletedAndUntrackedAreGrouped() throws Exception {
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch("main").call()) {
            write("kept.txt", "1\n");
            write("edited.txt", "1\n");
            write("staged.txt", "1\n");
            write("gone.txt", "1\n");
            write(".gitignore", "*.log\n");
            git.add().addFilepattern(".").call();
            PersonIdent me = new PersonIdent("Test", "test@example.com");
            git.commit().setMessage("first").setAuthor(me).setCommitter(me).setSign(false).call();
            write("edited.txt", "2\n");
            write("staged.txt", "2\n");
            git.add().addFilepattern("staged.txt").call();
            write("added.txt", "new\n");
            git.add().addFilepattern("added.txt").call();
            Files.delete(root.resolve("gone.txt"));
            write("notes/new.md", "n\n");
            write("debug.log", "ignored\n");
            write(".env", "TOKEN=x\n");
        }
        assertEquals("""
                On main: 5 changed paths
                staged new (1):
                  added.txt
                staged modified (1):
                  staged.txt
                modified (1):
                  edited.txt
                deleted (1):
                  gone.txt
                untracked (1):
                  notes/new.md
                (1 file holding secrets by name not shown)""", changedFiles());
    }

    @Test
    void aCleanRepositorySaysSo() throws Exception {
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch("trunk").call()) {
            write("a.txt", "1\n");
            git.add().addFilepattern(".").call();
            PersonIdent me = new PersonIdent("Test", "test@example.com");
            git.commit().setMessage("first").setAuthor(me).setCommitter(me).setSign(false).call();
        }
        assertEquals("On trunk: no changes (nothing staged, modified or untracked).", changedFiles());
    }

    @Test
    void aWorkspaceInsideARepositoryListsOnlyItsOwnPathsRelativeToIt() throws Exception {
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch("main").call()) {
            write("outside.txt", "1\n");
            write("app/inside.txt", "1\n");
        }
        String text = new ChangedFilesTool().call(Arguments.empty(), new ToolTestContext(root.resolve("app"))).text();
        assertEquals("On main: 1 changed path\nuntracked (1):\n  inside.txt", text);
    }

    @Test
    void noRepositoryIsAClearError() throws Exception {
        ToolException error = assertThrows(ToolException.class, this::changedFiles);
        assertTrue(error.getMessage().endsWith("was not a git repository (nor inside one) when this session started, so "
                + "there are no git changes to list. tree or recent_files show the files."), error.getMessage());
    }

    @Test
    void aCleanFilterDriverIsNotRun() throws Exception {
        Path marker = root.resolve("filter-ran");
        try (Git git = Git.init().setDirectory(root.toFile()).setInitialBranch("main").call()) {
            write("a.txt", "1\n");
            git.add().addFilepattern(".").call();
            PersonIdent me = new PersonIdent("Test", "test@example.com");
            git.commit().setMessage("first").setAuthor(me).setCommitter(me).setSign(false).call();
            var config = git.getRepository().getConfig();
            config.setString("filter", "evil", "clean", "touch " + marker + "; cat");
            config.save();
            write(".gitattributes", "*.txt filter=evil\n");
            write("a.txt", "2\n");
            Files.setLastModifiedTime(root.resolve("a.txt"), java.nio.file.attribute.FileTime.fromMillis(0));
        }
        String text = changedFiles();
        assertTrue(text.contains("modified (1):\n  a.txt"), text);
        assertTrue(!Files.exists(marker), "the repository's clean filter ran");
    }
}
