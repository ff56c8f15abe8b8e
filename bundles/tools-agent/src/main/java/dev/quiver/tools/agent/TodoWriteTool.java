package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/**
 * {@code todo_write}: the agent's task list for the session. The whole list is sent each time and
 * replaces the last one; it lives in the system prompt, rebuilt at every step, so it survives
 * compaction. It changes nothing but the agent's own state, so it runs without asking.
 */
@Component(property = {Tool.NAME + "=todo_write", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class TodoWriteTool implements Tool {

    static final int MAX_ITEMS = 50;
    static final List<String> STATUSES = List.of("pending", "in_progress", "done", "blocked");

    private static final ToolSpec SPEC = new ToolSpec("todo_write",
            "Replace your task list for this session. Send the whole list each time; it stays in your instructions.",
            """
            {"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{\
            "content":{"type":"string"},\
            "status":{"type":"string","enum":["pending","in_progress","done","blocked"]},\
            "note":{"type":"string","description":"Why blocked, or what is left"}},\
            "required":["content","status"]}}},"required":["todos"]}""");

    /** One task. */
    record Todo(String content, String status, String note) {
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        List<Arguments> items = arguments.objects("todos");
        if (items.size() > MAX_ITEMS) {
            throw new ToolException("The list has " + items.size() + " tasks; keep it to " + MAX_ITEMS
                    + " by merging small steps.");
        }
        List<Todo> todos = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Arguments item = items.get(i);
            String content = item.string("content").strip();
            String status = item.string("status").strip().toLowerCase(Locale.ROOT);
            if (content.isEmpty()) {
                throw new ToolException("Task " + (i + 1) + " has no content. Describe the task in a few words.");
            }
            if (!STATUSES.contains(status)) {
                throw new ToolException("Task " + (i + 1) + " has the status '" + status + "'; use one of "
                        + String.join(", ", STATUSES) + ". Nothing was changed.");
            }
            todos.add(new Todo(content, status, item.string("note", "").strip()));
        }
        String rendered = render(todos);
        context.promptSection("todo", rendered);
        StringBuilder result = new StringBuilder(todos.isEmpty() ? "The task list is now empty." : rendered);
        for (String warning : warnings(todos)) {
            result.append("\nNote: ").append(warning);
        }
        return ToolResult.of(result.toString());
    }

    static String render(List<Todo> todos) {
        StringBuilder text = new StringBuilder();
        for (Todo todo : todos) {
            String mark = switch (todo.status()) {
                case "done" -> "[x]";
                case "in_progress" -> "[>]";
                case "blocked" -> "[!]";
                default -> "[ ]";
            };
            text.append(mark).append(' ').append(todo.content());
            if (!todo.note().isEmpty()) {
                text.append(" — ").append(todo.note());
            }
            text.append('\n');
        }
        return text.toString().strip();
    }

    /** What a careful planner would want pointed out about the list. */
    static List<String> warnings(List<Todo> todos) {
        List<String> warnings = new ArrayList<>();
        long active = todos.stream().filter(t -> t.status().equals("in_progress")).count();
        boolean open = todos.stream().anyMatch(t -> t.status().equals("pending"));
        if (active > 1) {
            warnings.add(active + " tasks are in progress; work on one at a time.");
        }
        if (active == 0 && open) {
            warnings.add("nothing is in progress while tasks remain; mark the one you work on next.");
        }
        for (Todo todo : todos) {
            if (todo.status().equals("blocked") && todo.note().isEmpty()) {
                warnings.add("'" + todo.content() + "' is blocked without a note saying why.");
            }
        }
        return warnings;
    }
}
