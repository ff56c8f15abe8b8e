package dev.quiver.tools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TodoWriteToolTest {

    @TempDir
    Path root;

    /** The sections a kernel would put into the system prompt. */
    private final Map<String, String> sections = new HashMap<>();

    private ToolContext context() throws Exception {
        Workspace workspace = new WorkspaceFactoryComponent().open(root);
        return new ToolContext() {
            @Override
            public Workspace workspace() {
                return workspace;
            }

            @Override
            public Optional<Object> config(String key) {
                return Optional.empty();
            }

            @Override
            public void promptSection(String name, String text) {
                sections.put(name, text);
            }

            @Override
            public void stream(String text) {
            }

            @Override
            public java.util.Map<String, String> environment() {
                return System.getenv();
            }

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
    }

    private static Map<String, Object> todo(String content, String status, String note) {
        Map<String, Object> todo = new HashMap<>();
        todo.put("content", content);
        todo.put("status", status);
        if (note != null) {
            todo.put("note", note);
        }
        return todo;
    }

    @Test
    void theListReplacesThePreviousOneAndGoesIntoThePromptSection() throws Exception {
        TodoWriteTool tool = new TodoWriteTool();
        tool.call(Arguments.of(Map.of("todos", List.of(todo("read the code", "done", null),
                todo("write the fix", "in_progress", null), todo("run the tests", "pending", null)))), context());
        assertEquals("[x] read the code\n[>] write the fix\n[ ] run the tests", sections.get("todo"));
        String result = tool.call(Arguments.of(Map.of("todos", List.of(todo("run the tests", "in_progress", null)))),
                context()).text();
        assertEquals("[>] run the tests", sections.get("todo"));
        assertEquals("[>] run the tests", result);
    }

    @Test
    void warningsPointAtTwoTasksInProgressNoneInProgressAndUnexplainedBlocks() throws Exception {
        TodoWriteTool tool = new TodoWriteTool();
        String two = tool.call(Arguments.of(Map.of("todos", List.of(todo("a", "in_progress", null),
                todo("b", "in_progress", null)))), context()).text();
        assertTrue(two.contains("2 tasks are in progress"), two);
        String none = tool.call(Arguments.of(Map.of("todos", List.of(todo("a", "pending", null)))), context()).text();
        assertTrue(none.contains("nothing is in progress"), none);
        String blocked = tool.call(Arguments.of(Map.of("todos", List.of(todo("deploy", "blocked", null),
                todo("ask", "in_progress", null)))), context()).text();
        assertTrue(blocked.contains("'deploy' is blocked without a note"), blocked);
    }

    @Test
    void aBadStatusChangesNothingAndSaysWhatIsAllowed() throws Exception {
        TodoWriteTool tool = new TodoWriteTool();
        tool.call(Arguments.of(Map.of("todos", List.of(todo("keep me", "pending", null)))), context());
        ToolException error = assertThrows(ToolException.class, () -> tool.call(Arguments.of(Map.of("todos",
                List.of(todo("x", "finished", null)))), context()));
        assertTrue(error.getMessage().contains("pending, in_progress, done, blocked"), error.getMessage());
        assertEquals("[ ] keep me", sections.get("todo"));
    }

    @Test
    void anEmptyListRemovesTheSection() throws Exception {
        TodoWriteTool tool = new TodoWriteTool();
        tool.call(Arguments.of(Map.of("todos", List.of(todo("a", "pending", null)))), context());
        assertEquals("The task list is now empty.", tool.call(Arguments.of(Map.of("todos", List.of())), context()).text());
        assertEquals("", sections.get("todo"));
    }
}
