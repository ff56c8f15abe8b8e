package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolContext.SubagentKind;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/**
 * {@code task}: hands one self-contained task to a subagent and returns its report. The kernel runs the
 * child ({@link ToolContext#runSubagent}): its own conversation and step cap, a narrowed copy of the
 * session's tools, and every call through the session's own permission chain. Starting one changes
 * nothing by itself (a worker's own calls are each decided), so the call runs without asking.
 */
@Component(property = {Tool.NAME + "=task", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class TaskTool implements Tool {

    /** Characters of a description: it labels the child's calls and audit lines. */
    static final int MAX_DESCRIPTION = 80;

    private static final ToolSpec SPEC = new ToolSpec("task",
            "Run a self-contained task in a subagent with a fresh context; returns its report. "
                    + "explore, review: read only; worker: may edit, run commands.",
            """
            {"type":"object","properties":{\
            "description":{"type":"string","description":"3-8 words"},\
            "prompt":{"type":"string","description":"It sees nothing else"},\
            "kind":{"type":"string","enum":["explore","review","worker"]}},\
            "required":["description","prompt"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String description = description(arguments);
        String prompt = prompt(arguments, "subagent");
        return ToolResult.of(context.runSubagent(description, kind(arguments.string("kind", "explore")), prompt));
    }

    /** The description as a one-line label: it is shown with the child's calls and in the audit log. */
    static String description(Arguments arguments) throws ToolException {
        String description = NoteStore.oneLine(arguments.string("description"));
        if (description.isEmpty()) {
            throw new ToolException("The description is empty. Name the task in a few words.");
        }
        if (description.length() > MAX_DESCRIPTION) {
            throw new ToolException("The description has " + description.length() + " characters; keep it to "
                    + MAX_DESCRIPTION + " and put the details in the prompt.");
        }
        return description;
    }

    /** The child's whole task: it sees nothing else. */
    static String prompt(Arguments arguments, String child) throws ToolException {
        String prompt = arguments.string("prompt").strip();
        if (prompt.isEmpty()) {
            throw new ToolException("The prompt is empty. Write everything the " + child + " needs to know: it sees "
                    + "none of this conversation.");
        }
        return prompt;
    }

    static SubagentKind kind(String value) throws ToolException {
        String name = value.strip().toLowerCase(Locale.ROOT);
        for (SubagentKind kind : SubagentKind.values()) {
            if (kind.name().toLowerCase(Locale.ROOT).equals(name)) {
                return kind;
            }
        }
        throw new ToolException("The kind '" + value + "' is not one of explore, review, worker. Use explore to "
                + "find things out, review to check work, worker to change files or run commands.");
    }
}
