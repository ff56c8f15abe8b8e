package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevSort;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;
import org.osgi.service.component.annotations.Component;

/** {@code git_log}: recent commits, newest first, one line each. */
@Component(property = {Tool.NAME + "=git_log", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitLogTool implements Tool {

    static final int DEFAULT_LIMIT = 15;
    static final int MAX_LIMIT = 40;

    private static final ToolSpec SPEC = new ToolSpec("git_log",
            "Commits newest first, one line each: short hash, date, author, subject.",
            """
            {"type":"object","properties":{\
            "limit":{"type":"integer","description":"Max commits, default 15, max 40"},\
            "path":{"type":"string","description":"Only commits touching this file or folder"},\
            "ref":{"type":"string","description":"Start here, default HEAD"}}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return GitRepo.pathSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        String ref = arguments.string("ref", "HEAD");
        String path = arguments.optionalString("path").orElse(null);
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            String scope = path == null ? git.defaultScope() : git.repoPath(path);
            if (ref.equals("HEAD") && git.head(walk) == null) {
                return ToolResult.of(git.branchLine() + ": there is nothing to log.");
            }
            RevCommit start = git.commit(walk, ref);
            walk.reset();
            walk.sort(RevSort.COMMIT_TIME_DESC);
            walk.setRevFilter(RevFilter.ALL);
            if (!scope.isEmpty()) {
                walk.setTreeFilter(AndTreeFilter.create(PathFilter.create(scope), TreeFilter.ANY_DIFF));
            }
            walk.markStart(walk.parseCommit(start));
            List<String> lines = new ArrayList<>();
            boolean more = false;
            for (RevCommit commit : walk) {
                if (context.isCancelled()) {
                    throw new ToolException("Cancelled.");
                }
                if (lines.size() == limit) {
                    more = true;
                    break;
                }
                lines.add(GitRepo.oneLine(commit) + (commit.getParentCount() > 1 ? "  (merge)" : ""));
            }
            String where = path == null ? "" : " touching " + path;
            if (lines.isEmpty()) {
                return ToolResult.of("No commits" + where + " reachable from " + ref + ".");
            }
            StringBuilder out = new StringBuilder();
            out.append(lines.size()).append(lines.size() == 1 ? " commit" : " commits").append(where)
                    .append(" from ").append(ref).append(", newest first").append(more ? " (more exist)" : "")
                    .append(":\n");
            lines.forEach(line -> out.append(line).append('\n'));
            if (more) {
                out.append(limit < MAX_LIMIT ? "Raise limit (max " + MAX_LIMIT + ") or " : "")
                        .append("pass ref: <oldest hash shown>~1 for older ones.\n");
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (IOException e) {
            throw new ToolException("Could not walk the history: " + e.getMessage(), e);
        }
    }
}
