package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Workspace.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ignore rules as git has them, with git itself as the judge: an ignore file that is a symbolic link
 * is not read, and a workspace inside a repository obeys the repository's rules for its paths.
 */
class EnclosingRepositoryTest {

    @TempDir
    Path repository;

    private void write(String relative, String content) throws IOException {
        Path file = repository.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private static Set<String> gitListed(Path directory) throws IOException, InterruptedException {
        String listed = Git.run(directory, "ls-files", "-z", "--cached", "--others", "--exclude-standard");
        return Arrays.stream(listed.split("\0")).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> listed(Path root) throws IOException {
        JailedWorkspace workspace = JailedWorkspace.open(root);
        return new TreeSet<>(workspace.files(workspace.root(), false));
    }

    private static Set<String> walked(Path root) throws IOException {
        JailedWorkspace workspace = JailedWorkspace.open(root);
        Set<String> walked = new TreeSet<>();
        workspace.walk(workspace.root(), false, Integer.MAX_VALUE, entry -> {
            if (entry.kind() == Entry.Kind.FILE) {
                walked.add(entry.relativePath());
            }
            return true;
        });
        return walked;
    }

    @Test
    void theEnclosingRepositorysRulesHideWhatTheyMatchInsideTheWorkspace() throws Exception {
        Git.run(repository, "init", "-q");
        write(".gitignore", "build/\nws/generated/\n/ws/anchored.txt\n");
        write("ws/src/A.java", "a");
        write("ws/build/x", "x");
        write("ws/generated/y", "y");
        write("ws/anchored.txt", "z");
        write("ws/src/anchored.txt", "kept: the rule is anchored at the repository's top");
        Path ws = repository.resolve("ws");

        assertEquals(Set.of("src/A.java", "src/anchored.txt"), gitListed(ws));
        assertEquals(gitListed(ws), walked(ws));
        assertEquals(gitListed(ws), listed(ws));
        assertTrue(JailedWorkspace.open(ws).isIgnored(ws.resolve("generated/y")));
    }

    @Test
    void aWorkspaceTheEnclosingRepositoryIgnoresListsOnlyWhatItTracks() throws Exception {
        Git.run(repository, "init", "-q");
        write(".gitignore", "scratch/\n");
        write("scratch/ws/tracked.txt", "t");
        write("scratch/ws/untracked.txt", "u");
        write("scratch/ws/sub/deeper.txt", "d");
        Git.run(repository, "add", "-f", "scratch/ws/tracked.txt");
        Path ws = repository.resolve("scratch/ws");

        assertEquals(Set.of("tracked.txt"), gitListed(ws));
        assertEquals(gitListed(ws), walked(ws));
        assertEquals(gitListed(ws), listed(ws));
        JailedWorkspace workspace = JailedWorkspace.open(ws);
        assertTrue(workspace.isIgnored(ws.resolve("untracked.txt")));
        assertFalse(workspace.isIgnored(ws.resolve("tracked.txt")));
        assertEquals(Set.of("sub/deeper.txt", "tracked.txt", "untracked.txt"),
                new TreeSet<>(workspace.files(workspace.root(), true)), "includeIgnored lists them all");
    }

    @Test
    void anIgnoreFileThatIsALinkIsNotReadAsGitDoesNotReadIt() throws Exception {
        Git.run(repository, "init", "-q");
        Path outside = Files.createTempDirectory("outside-rules");
        try {
            Files.writeString(outside.resolve("rules"), "*.txt\n");
            write("shared-rules", "*.md\n");
            write("a.txt", "a");
            write("b.md", "b");
            write("sub/c.txt", "c");
            write("sub/d.md", "d");
            Files.createSymbolicLink(repository.resolve(".gitignore"), outside.resolve("rules"));
            Files.createSymbolicLink(repository.resolve("sub/.gitignore"), Path.of("../shared-rules"));
            Files.createSymbolicLink(repository.resolve("sub/.quiverignore"), outside.resolve("rules"));

            Set<String> git = gitListed(repository);
            assertTrue(git.containsAll(Set.of("a.txt", "b.md", "sub/c.txt", "sub/d.md")), git::toString);
            Set<String> expected = new TreeSet<>(git);
            expected.add("sub/.quiverignore"); // git has no opinion on it; a link to a file is listed as a file
            assertEquals(expected, walked(repository));
            // files() leaves out links that lead out of the workspace, whatever their name
            expected.removeAll(Set.of(".gitignore", "sub/.quiverignore"));
            assertEquals(expected, listed(repository));
            assertFalse(JailedWorkspace.open(repository).isIgnored(repository.resolve("a.txt")));
        } finally {
            Files.delete(outside.resolve("rules"));
            Files.delete(outside);
        }
    }
}
