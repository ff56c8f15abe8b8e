package dev.quiver.tools.agent;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import org.osgi.service.component.annotations.Component;

/**
 * {@code spawn_subagent} (nca's name): a worker subagent in a git checkout of its own, on a branch of its
 * own, so workers started together cannot collide and the user's working tree is never touched. The
 * kernel makes the checkout and runs the child ({@link ToolContext#runWorkerInWorktree}); every call the
 * worker makes is decided as the session's own. Starting one changes nothing the user has (a new
 * branch only), so the call runs without asking, as {@code task} does.
 */
@Component(property = {Tool.NAME + "=spawn_subagent", Tool.SET + "=agent", Tool.ACCESS + "=state"})
public class SpawnSubagentTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("spawn_subagent",
            "Run a worker subagent in its own git checkout of HEAD on a new branch; returns the branch, "
                    + "files changed and its report.",
            """
            {"type":"object","properties":{\
            "description":{"type":"string","description":"3-8 words"},\
            "prompt":{"type":"string","description":"It sees nothing else"},\
            "keep":{"type":"boolean","description":"Keep checkout after session end"}},\
            "required":["description","prompt"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String description = TaskTool.description(arguments);
        String prompt = TaskTool.prompt(arguments, "worker");
        return ToolResult.of(context.runWorkerInWorktree(description, prompt, arguments.bool("keep", false)));
    }
}
