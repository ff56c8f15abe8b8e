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
    static final int MAX_LIMIT = 10_000;

    private static final ToolSpec SPEC = new ToolSpec("glob",
            "List files matching a glob: *.ts matches at any depth, src/*.ts only in src, src/**/*.ts below it, "
                    + "{a,b} either. Honours .gitignore.",
            """
            {"type":"object","properties":{\
            "pattern":{"type":"string"},\
            "limit":{"type":"integer","description":"Max paths, default 200"},\
            "includeIgnored":{"type":"boolean","description":"Also files git ignores"}},\
            "required":["pattern"]}""");

    /**
     * When the workspace itself is ignored by the repository it lies in, git (and so the walk) shows only
     * its tracked files: saying so spares the model a search for files that are there. Empty otherwise.
     */
    static String ignoredRootHint(Workspace workspace) {
        return workspace.isIgnored(workspace.root()) ? "the workspace folder itself is ignored by the git "
                + "repository it lies in, so only its tracked files are listed: includeIgnored: true lists the rest" : "";
    }

    /** When a glob names a folder, how to match the files in it instead; empty otherwise. */
    static String folderHint(Workspace workspace, String glob) {
        String folder = glob.strip();
        while (folder.endsWith("/") && folder.length() > 1) {
            folder = folder.substring(0, folder.length() - 1);
        }
        if (folder.isEmpty() || folder.chars().anyMatch(c -> "*?[{".indexOf(c) >= 0)) {
            return "";
        }
        try {
            return java.nio.file.Files.isDirectory(workspace.resolve(folder))
                    ? "; " + folder + " is a folder, whose files " + folder + "/** matches" : "";
        } catch (ToolException escapes) {
            return "";
        }
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        String pattern = arguments.string("pattern");
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        boolean includeIgnored = arguments.bool("includeIgnored", false);
        Predicate<String> matcher = workspace.globMatcher(pattern);
        List<String> files;
        try {
            files = workspace.files(workspace.root(), includeIgnored);
        } catch (IOException e) {
            throw new ToolException("Cannot list the workspace: " + e.getMessage(), e);
        }
        List<String> found = new ArrayList<>();
        int total = 0;
        for (String file : files) {
            if (context.isCancelled()) {
                break;
            }
            if (matcher.test(file)) {
                total++;
                if (found.size() < limit) {
                    found.add(file);
                }
            }
        }
        if (found.isEmpty()) {
            return ToolResult.of("No files match " + pattern + (includeIgnored ? "" : " (ignored files excluded)")
                    + folderHint(workspace, pattern) + (includeIgnored ? "" : ignoredRootHint(workspace)
                            .transform(hint -> hint.isEmpty() ? "" : "; " + hint)) + ".");
        }
        StringBuilder out = new StringBuilder(String.join("\n", found));
        if (total > found.size()) {
            out.append("\n... ").append(total - found.size()).append(" more of ").append(total)
                    .append(" matching files; narrow the pattern or raise limit.");
        }
        return ToolResult.of(out.toString());
    }
}
