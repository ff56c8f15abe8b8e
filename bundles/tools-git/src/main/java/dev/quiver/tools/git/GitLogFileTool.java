package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.diff.DiffConfig;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.FollowFilter;
import org.eclipse.jgit.revwalk.RenameCallback;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.osgi.service.component.annotations.Component;

/**
 * {@code git_log_file}: the commits that changed one file, following it back through renames as
 * {@code git log --follow} does (JGit's {@link FollowFilter}), each rename named on the commit that made it.
 */
@Component(property = {Tool.NAME + "=git_log_file", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitLogFileTool implements Tool {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;

    private static final ToolSpec SPEC = new ToolSpec("git_log_file",
            "Commits that changed one file, following renames, newest first. "
                    + "Use it to learn why a file changed.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"File, also one deleted or renamed since"},\
            "limit":{"type":"integer","description":"Max commits, default 20, max 100"},\
            "ref":{"type":"string","description":"Start here, default HEAD"}},\
            "required":["path"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String path = arguments.string("path");
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        String ref = arguments.string("ref", "HEAD");
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            String repoPath = git.historyPath(path);
            if (repoPath.equals(git.defaultScope()) || Files.isDirectory(git.workspace.resolve(path))) {
                throw new ToolException(path + " is a folder; git_log_file follows one file. git_log takes a folder.");
            }
            if (ref.equals("HEAD") && git.head(walk) == null) {
                return ToolResult.of(git.branchLine() + ": there is no history yet.");
            }
            RevCommit start = git.commit(walk, ref);
            walk.reset();
            // the rename a commit made, keyed by that commit: the callback runs while the walk decides on it
            Map<ObjectId, DiffEntry> renames = new HashMap<>();
            FollowFilter follow = FollowFilter.create(repoPath, git.repository.getConfig().get(DiffConfig.KEY));
            follow.setRenameCallback(new RenameCallback() {
                @Override
                public void renamed(DiffEntry entry) {
                }

                @Override
                public void renamed(DiffEntry entry, RevCommit commit) {
                    renames.put(commit.copy(), entry);
                }
            });
            walk.setTreeFilter(follow);
            walk.markStart(walk.parseCommit(start));
            List<String> lines = new ArrayList<>();
            String following = repoPath;
            String oldest = null;
            boolean more = false;
            for (RevCommit commit = walk.next(); commit != null; commit = walk.next()) {
                if (context.isCancelled()) {
                    throw new ToolException("Cancelled.");
                }
                if (lines.size() == limit) {
                    more = true;
                    break;
                }
                StringBuilder line = new StringBuilder(GitRepo.oneLine(commit));
                if (commit.getParentCount() > 1) {
                    line.append("  (merge)");
                }
                DiffEntry rename = renames.get(commit);
                if (rename != null) {
                    line.append("  (renamed from ").append(shown(git, rename.getOldPath())).append(')');
                    following = rename.getOldPath();
                }
                lines.add(line.toString());
                oldest = GitRepo.shortId(commit);
            }
            if (lines.isEmpty()) {
                return ToolResult.of("No commits touching " + path + " reachable from " + ref + ".");
            }
            StringBuilder out = new StringBuilder().append(lines.size()).append(lines.size() == 1 ? " commit" : " commits")
                    .append(" touching ").append(path).append(" from ").append(ref).append(", newest first")
                    .append(more ? " (more exist)" : "").append(":\n");
            lines.forEach(line -> out.append(line).append('\n'));
            if (more) {
                out.append(limit < MAX_LIMIT ? "Raise limit (max " + MAX_LIMIT + ") or " : "").append("pass ref: ")
                        .append(oldest).append("~1, path: ").append(shown(git, following)).append(" for older ones.\n");
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (IOException e) {
            throw new ToolException("Could not walk the history of " + path + ": " + e.getMessage(), e);
        }
    }

    /** A repository path as the model names it: workspace-relative, or as it is when outside the workspace. */
    private static String shown(GitRepo git, String repoPath) {
        String shown = git.shown(repoPath);
        return shown == null ? repoPath : shown;
    }
}
