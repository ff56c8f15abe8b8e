package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The project instructions' edges: no repository, links inside it, the cap over all files, control characters. */
class InstructionsTest {

    @TempDir
    Path temp;

    private Path user;

    @BeforeEach
    void start() throws Exception {
        temp = temp.toRealPath();
        user = Files.createDirectories(temp.resolve("config/quiver"));
    }

    private String render(Path workspace, boolean trusted) {
        return new Instructions(workspace, Optional.of(user), () -> trusted).render();
    }

    @Test
    void withoutARepositoryOnlyTheWorkspaceRootIsReadAndWithoutFilesThereIsNoSection() throws Exception {
        Path workspace = Files.createDirectories(temp.resolve("parent/ws"));
        Files.writeString(temp.resolve("parent/AGENTS.md"), "PARENT-OF-A-PLAIN-FOLDER\n");
        assertEquals("", render(workspace, true), "no file of its own and no user file: nothing");
        Files.writeString(workspace.resolve("AGENTS.md"), "OWN\n");
        String prompt = render(workspace, true);
        assertTrue(prompt.contains("### " + workspace.resolve("AGENTS.md") + " (the repository's)\nOWN\n"), prompt);
        assertFalse(prompt.contains("PARENT-OF-A-PLAIN-FOLDER"), prompt);
    }

    @Test
    void aWorktreesGitFileMarksTheRootAndALinkInsideTheRepositoryIsRead() throws Exception {
        Path repository = Files.createDirectories(temp.resolve("wt"));
        Files.writeString(repository.resolve(".git"), "gitdir: /elsewhere/.git/worktrees/wt\n");
        Files.writeString(temp.resolve("AGENTS.md"), "ABOVE-THE-WORKTREE\n");
        Files.createDirectories(repository.resolve("docs"));
        Files.writeString(repository.resolve("docs/agents.txt"), "SHARED-RULES\n");
        Files.createSymbolicLink(repository.resolve("CLAUDE.md"), repository.resolve("docs/agents.txt"));
        String prompt = render(repository, true);
        assertTrue(prompt.contains("### " + repository.resolve("CLAUDE.md") + " (the repository's)\nSHARED-RULES\n"),
                prompt);
        assertFalse(prompt.contains("ABOVE-THE-WORKTREE"), prompt);
    }

    @Test
    void theCapOverAllFilesKeepsTheNearestWholeAndCutsTheOuterWithANote() throws Exception {
        Path repository = Files.createDirectories(temp.resolve("repo"));
        Files.createDirectories(repository.resolve(".git"));
        Path middle = Files.createDirectories(repository.resolve("a"));
        Path workspace = Files.createDirectories(middle.resolve("b"));
        Files.writeString(repository.resolve("AGENTS.md"), "O".repeat(15_000));
        Files.writeString(middle.resolve("AGENTS.md"), "M".repeat(15_000));
        Files.writeString(workspace.resolve("AGENTS.md"), "N".repeat(15_000));
        Files.writeString(user.resolve("AGENTS.md"), "USER-FILE");
        String prompt = render(workspace, false);
        assertTrue(prompt.contains("N".repeat(15_000)) && prompt.contains("M".repeat(15_000)), "the nearest are whole");
        assertTrue(prompt.contains("O".repeat(2_000) + "\n[cut: the project instructions are capped at 32000 "
                + "characters in all; read the file for the rest]"), prompt);
        assertFalse(prompt.contains("O".repeat(2_001)), "the outer file is cut at what is left");
        assertTrue(prompt.contains("### " + user.resolve("AGENTS.md")
                + " (the user's own instructions for every project)\n[cut:"), "the user's file is left without room");
        assertTrue(prompt.length() < Instructions.MAX_CHARS + 3_000, "bounded: " + prompt.length());
    }

    @Test
    void controlCharactersAreDroppedAndTheUsersLinkedFileIsFollowed() throws Exception {
        Path dotfiles = Files.createDirectories(temp.resolve("dotfiles"));
        Files.writeString(dotfiles.resolve("AGENTS.md"), "FROM-DOTFILES\n");
        Files.createSymbolicLink(user.resolve("AGENTS.md"), dotfiles.resolve("AGENTS.md"));
        Path workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("AGENTS.md"), "clear\033[2Jscreen\u0000 and\ttab\r\nnext\n");
        String prompt = render(workspace, true);
        assertTrue(prompt.contains("FROM-DOTFILES"), prompt);
        assertTrue(prompt.contains("clear[2Jscreen and\ttab\nnext\n"), prompt);
        assertFalse(prompt.contains("\033") || prompt.contains("\u0000") || prompt.contains("\r"), prompt);
    }
}
