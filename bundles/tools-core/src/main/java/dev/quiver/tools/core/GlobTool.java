package dev.quiver.tools.core;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/** {@code glob}: workspace files whose path matches a pattern, honouring ignore files. */
@Component(property = {Tool.NAME + "=glob", Tool.SET + "=core", Tool.ACCESS + "=read"})
public class GlobTool implements Tool {

    static final int DEFAULT_LIMIT = 200;

    private static final ToolSpec SPEC = new ToolSpec("glob",
            "List files matching a glob such as src/**/*.ts, as paths relative to the workspace. "
                    + "Honours .gitignore.",
            """
            {"type":"object","properties":{\
            "pattern":{"type":"string"},\
            "limit":{"type":"integer","description":"Max paths, default 200"},\
            "includeIgnored":{"type":"boolean","description":"Also files git ignores"}},\
            "required":["pattern"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        String pattern = arguments.string("pattern");
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, 10_000);
        boolean includeIgnored = arguments.bool("includeIgnored", false);
        Predicate<String> matcher = workspace.globMatcher(pattern);
        List<String> found = new ArrayList<>();
        int[] total = {0};
        try {
            workspace.walk(workspace.root(), includeIgnored, Integer.MAX_VALUE, entry -> {
                if (context.isCancelled()) {
                    return false;
                }
                if (entry.kind() == Workspace.Entry.Kind.FILE && matcher.test(entry.relativePath())) {
                    total[0]++;
                    if (found.size() < limit) {
                        found.add(entry.relativePath());
                    }
                }
                return true;
            });
        } catch (IOException e) {
            throw new ToolException("Cannot walk the workspace: " + e.getMessage(), e);
        }
        if (found.isEmpty()) {
            return ToolResult.of("No files match " + pattern + (includeIgnored ? "." : " (ignored files excluded)."));
        }
        StringBuilder out = new StringBuilder(String.join("\n", found));
        if (total[0] > found.size()) {
            out.append("\n... ").append(total[0] - found.size()).append(" more of ").append(total[0])
                    .append(" matching files; narrow the pattern or raise limit.");
        }
        return ToolResult.of(out.toString());
    }
}
