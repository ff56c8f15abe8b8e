package dev.quiver.tools.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** git_commit_message on real repositories, with the model's side recorded: what it is asked, and that nothing commits. */
class GitCommitMessageToolTest {

    private static final String SECRET = "s3cr3t-value-never-sent-42";

    @TempDir
    Path root;

    private ToolTestContext context;
    private final List<String> asked = new ArrayList<>();

    @BeforeEach
    void build() throws Exception {
        git("init", "-q", "-b", "main");
        git("config", "user.name", "Quinn Tester");
        git("config", "user.email", "quinn@example.com");
        context = new ToolTestContext(root);
        context.model = (instructions, input) -> {
            asked.add(input);
            return "```\nfeat(alpha): say beta as well\n```";
        };
    }

    private String git(String... args) throws Exception {
        return GitFixture.git(root, null, args);
    }

    private String message(Map<String, ?> values) throws ToolException {
        return new GitCommitMessageTool().call(Arguments.of(values), context).text();
    }

    private String state() throws Exception {
        return git("rev-parse", "HEAD").strip() + " " + java.util.Arrays.hashCode(Files.readAllBytes(root.resolve(".git/index")));
    }

    @Test
    void theModelSeesTheStagedDiffAndTheFifteenNewestSubjectsNeverASecretAndNothingIsCommitted() throws Exception {
        GitFixture.write(root, "a.txt", "alpha\n");
        GitFixture.write(root, "keep.txt", "kept\n");
        git("add", "-A");
        git("commit", "-q", "-m", "chore: subject 0 (the oldest, past fifteen)");
        for (int i = 1; i <= 15; i++) {
            git("commit", "-q", "--allow-empty", "-m", "feat(core): subject " + i);
        }
        GitFixture.write(root, "a.txt", "alpha\nbeta\n");
        GitFixture.write(root, ".env", "TOKEN=" + SECRET + "\n");
        git("add", "a.txt", ".env");
        GitFixture.write(root, "keep.txt", "kept\nunstaged line\n");
        String before = state();

        String result = message(Map.of("hint", "alpha needs beta"));

        assertEquals("Proposed commit message for 2 staged files (nothing was committed):\n\n"
                + "feat(alpha): say beta as well", result);
        assertEquals(1, asked.size());
        String input = asked.get(0);
        assertTrue(input.contains("+beta"), input);
        assertTrue(input.contains("alpha needs beta"), input);
        assertTrue(input.contains(".env") && input.contains("[holds secrets: content left out]"), input);
        assertFalse(input.contains(SECRET), "a staged secret reached the model");
        assertFalse(input.contains("unstaged line"), "an unstaged change reached the model");
        assertTrue(input.contains("15 newest commit subjects"), input);
        assertTrue(input.contains("- feat(core): subject 15\n- feat(core): subject 14\n"), "newest first: " + input);
        assertTrue(input.contains("feat(core): subject 1\n"), input);
        assertFalse(input.contains("subject 0"), "a sixteenth subject was sent");
        assertEquals(before, state(), "HEAD or the index changed");
    }

    @Test
    void nothingStagedIsAnErrorThatSaysToStageFirstAndAsksNoModel() throws Exception {
        GitFixture.write(root, "a.txt", "alpha\n");
        git("add", "-A");
        git("commit", "-q", "-m", "base");
        GitFixture.write(root, "a.txt", "changed but not staged\n");
        ToolException refused = assertThrows(ToolException.class, () -> message(Map.of()));
        assertTrue(refused.getMessage().startsWith("Nothing is staged") && refused.getMessage().contains("Stage the changes first"),
                refused.getMessage());
        assertEquals(List.of(), asked);
    }

    @Test
    void anUnbornRepositorysFirstCommitIsDescribedAsSuch() throws Exception {
        GitFixture.write(root, "README.md", "# new\n");
        git("add", "-A");
        message(Map.of());
        assertTrue(asked.get(0).startsWith("The repository has no commits yet.\n"), asked.get(0));
        assertTrue(asked.get(0).contains("README.md  (added)"), asked.get(0));
    }

    @Test
    void aHugeStagedDiffIsCutAtItsStatedSizeAndTheResultSaysSo() throws Exception {
        GitFixture.write(root, "a.txt", "alpha\n");
        git("add", "-A");
        git("commit", "-q", "-m", "base");
        GitFixture.write(root, "big.txt", "a line of staged text that repeats\n".repeat(5_000));
        git("add", "big.txt");
        String result = message(Map.of());
        assertTrue(asked.get(0).length() < GitCommitMessageTool.MAX_DIFF_CHARS + 2_000, "sent " + asked.get(0).length());
        assertTrue(asked.get(0).contains("[diff cut at " + GitCommitMessageTool.MAX_DIFF_CHARS), asked.get(0));
        assertTrue(result.contains("written from the first " + GitCommitMessageTool.MAX_DIFF_CHARS
                + " characters of the staged diff"), result);
    }

    @Test
    void withoutAModelTheToolSaysSoAndWithAnEmptyFenceTheAnswerIsKept() throws Exception {
        GitFixture.write(root, "a.txt", "alpha\n");
        git("add", "-A");
        context.model = null;
        ToolException refused = assertThrows(ToolException.class, () -> message(Map.of()));
        assertTrue(refused.getMessage().contains("No model"), refused.getMessage());
        assertEquals("fix: x", GitCommitMessageTool.unfenced("```text\nfix: x\n```"));
        assertEquals("```", GitCommitMessageTool.unfenced("```"));
        assertEquals("plain", GitCommitMessageTool.unfenced("  plain \n"));
    }
}
