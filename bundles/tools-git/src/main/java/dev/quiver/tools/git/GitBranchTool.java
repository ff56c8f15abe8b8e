package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.osgi.service.component.annotations.Component;

/** {@code git_branch}: the branches, newest commit first, the checked-out one marked. */
@Component(property = {Tool.NAME + "=git_branch", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitBranchTool implements Tool {

    /** Branches listed at most; a repository with thousands of remote branches would fill the context. */
    static final int MAX_BRANCHES = 100;

    private static final ToolSpec SPEC = new ToolSpec("git_branch",
            "List branches, newest commit first, the current one marked *, each with its last commit. "
                    + "Use it to pick a ref for the other git tools.",
            """
            {"type":"object","properties":{\
            "remote":{"type":"boolean","description":"Also remote-tracking branches"}}}""");

    private record Branch(String name, boolean current, RevCommit commit) {
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        boolean remote = arguments.bool("remote", false);
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            String current = git.repository.getFullBranch();
            List<Ref> refs = new ArrayList<>(git.repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS));
            if (remote) {
                refs.addAll(git.repository.getRefDatabase().getRefsByPrefix(Constants.R_REMOTES));
            }
            List<Branch> branches = new ArrayList<>();
            for (Ref ref : refs) {
                // origin/HEAD only points at another remote branch, which is listed itself
                if (ref.isSymbolic() || ref.getObjectId() == null) {
                    continue;
                }
                RevCommit commit;
                try {
                    commit = walk.parseCommit(ref.getObjectId());
                } catch (IOException e) {
                    continue; // a branch pointing at no commit (a broken or foreign ref) has nothing to show
                }
                branches.add(new Branch(Repository.shortenRefName(ref.getName()), ref.getName().equals(current), commit));
            }
            branches.sort(Comparator.comparingInt((Branch b) -> b.commit().getCommitTime()).reversed()
                    .thenComparing(Branch::name));
            StringBuilder out = new StringBuilder();
            if (current != null && !current.startsWith(Constants.R_HEADS)) {
                out.append(git.branchLine()).append(": no branch is checked out.\n");
            } else if (git.head(walk) == null) {
                out.append(git.branchLine()).append(" (the branch exists once something is committed).\n");
            }
            if (branches.isEmpty()) {
                out.append("No ").append(remote ? "branches" : "local branches").append('.');
                return ToolResult.of(out.toString());
            }
            out.append(branches.size()).append(remote ? " branches" : " local branches")
                    .append(branches.size() == 1 ? "" : ", newest commit first").append(":\n");
            int width = Math.min(40, branches.stream().mapToInt(b -> b.name().length()).max().orElse(0));
            int shown = 0;
            for (Branch branch : branches) {
                if (shown == MAX_BRANCHES) {
                    out.append("... and ").append(branches.size() - shown).append(" older ones.\n");
                    break;
                }
                out.append(branch.current() ? "* " : "  ").append(pad(branch.name(), width)).append("  ")
                        .append(GitRepo.oneLine(branch.commit())).append('\n');
                shown++;
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (IOException e) {
            throw new ToolException("Could not list the branches: " + e.getMessage(), e);
        }
    }

    private static String pad(String name, int width) {
        return name.length() >= width ? name : name + " ".repeat(width - name.length());
    }
}
