package dev.quiver.tools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolContext.SubagentKind;
import dev.quiver.api.ToolException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code task} hands the kernel, and what it refuses before any subagent runs. */
class TaskToolTest {

    @TempDir
    Path root;

    /** The subagents the kernel was asked to run: label, kind, prompt. */
    private final List<List<Object>> started = new ArrayList<>();

    private ToolContext context() throws Exception {
        return new AgentContext(root, root.resolve(".state"), false) {
            @Override
            public String runSubagent(String label, SubagentKind kind, String prompt) {
                started.add(List.of(label, kind, prompt));
                return "report of " + label;
            }

            @Override
            public String runWorkerInWorktree(String label, String prompt, boolean keep) {
                started.add(List.of(label, "worktree", prompt, keep));
                return "branch of " + label;
            }
        };
    }

    @Test
    void theKindDefaultsToExploreAndTheReportIsTheResult() throws Exception {
        String result = new TaskTool().call(Arguments.of(Map.of("description", " find\nthe\u001b[2J parser ",
                "prompt", "Where is the parser?")), context()).text();
        assertEquals("report of find the [2J parser", result);
        assertEquals(List.of(List.of("find the [2J parser", SubagentKind.EXPLORE, "Where is the parser?")), started,
                "line breaks and control characters never reach the label the terminal and the audit log show");
        new TaskTool().call(Arguments.of(Map.of("description", "fix it", "prompt", "Fix the typo in A.java",
                "kind", "Worker")), context());
        assertEquals(SubagentKind.WORKER, started.get(1).get(1));
    }

    @Test
    void anUnknownKindAnEmptyPromptOrALongDescriptionStartsNoSubagent() throws Exception {
        ToolContext context = context();
        ToolException kind = assertThrows(ToolException.class, () -> new TaskTool().call(Arguments.of(Map.of(
                "description", "x", "prompt", "y", "kind", "admin")), context));
        assertTrue(kind.getMessage().contains("'admin' is not one of explore, review, worker"), kind.getMessage());
        ToolException prompt = assertThrows(ToolException.class, () -> new TaskTool().call(Arguments.of(Map.of(
                "description", "x", "prompt", "  ")), context));
        assertTrue(prompt.getMessage().contains("prompt is empty"), prompt.getMessage());
        ToolException description = assertThrows(ToolException.class, () -> new TaskTool().call(Arguments.of(Map.of(
                "description", "d".repeat(81), "prompt", "y")), context));
        assertTrue(description.getMessage().contains("keep it to 80"), description.getMessage());
        assertEquals(List.of(), started);
    }

    @Test
    void spawnSubagentHandsTheKernelTheSameCleanLabelAndKeepsTheCheckoutOnlyWhenAsked() throws Exception {
        String result = new SpawnSubagentTool().call(Arguments.of(Map.of("description", "fix\nthe\u001b[2J test",
                "prompt", "Fix it.")), context()).text();
        assertEquals("branch of fix the [2J test", result);
        new SpawnSubagentTool().call(Arguments.of(Map.of("description", "keep", "prompt", "p", "keep", true)), context());
        assertEquals(List.of(List.of("fix the [2J test", "worktree", "Fix it.", false),
                List.of("keep", "worktree", "p", true)), started);
        ToolException prompt = assertThrows(ToolException.class, () -> new SpawnSubagentTool().call(Arguments.of(
                Map.of("description", "x", "prompt", " ")), context()));
        assertTrue(prompt.getMessage().contains("everything the worker needs to know"), prompt.getMessage());
        assertEquals(2, started.size());
    }
}
