package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryState;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.osgi.service.component.annotations.Component;

/** {@code git_current_branch}: the checked-out branch, its upstream and how far apart they are. */
@Component(property = {Tool.NAME + "=git_current_branch", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitCurrentBranchTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("git_current_branch",
            "The current branch, its upstream, commits ahead/behind it, and the last commit. "
                    + "Cheaper than git_status when only the branch matters.",
            """
            {"type":"object","properties":{}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            StringBuilder out = new StringBuilder(git.branchLine());
            String full = git.repository.getFullBranch();
            RevCommit head = git.head(walk);
            if (head != null) {
                if (full != null && full.startsWith(Constants.R_HEADS)
                        && git.tracking(Repository.shortenRefName(full)).isEmpty()) {
                    out.append(", no upstream");
                }
                out.append("\nLast commit: ").append(GitRepo.oneLine(head));
            }
            RepositoryState state = git.repository.getRepositoryState();
            if (state != RepositoryState.SAFE && state != RepositoryState.BARE) {
                out.append("\nIn progress: ").append(state.getDescription());
            }
            return ToolResult.of(out.toString());
        } catch (IOException e) {
            throw new ToolException("Could not read the current branch: " + e.getMessage(), e);
        }
    }
}
