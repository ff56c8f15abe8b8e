package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.util.List;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.osgi.service.component.annotations.Component;

/** {@code git_diff_commits}: what changed from one commit to another, as {@code git diff from to}. */
@Component(property = {Tool.NAME + "=git_diff_commits", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitDiffCommitsTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("git_diff_commits",
            "Diff between two commits or branches: a line per file with +/- counts, then the unified diff. "
                    + "Use it to review a branch.",
            """
            {"type":"object","properties":{\
            "from":{"type":"string","description":"Old side: commit, branch, tag"},\
            "to":{"type":"string","description":"New side, default HEAD"},\
            "path":{"type":"string","description":"Only this file or folder"}},\
            "required":["from"]}""");

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
        String from = arguments.string("from");
        String to = arguments.string("to", "HEAD");
        String path = arguments.optionalString("path").orElse(null);
        try (GitRepo git = GitRepo.open(context.workspace());
                RevWalk walk = new RevWalk(git.repository);
                ObjectReader reader = git.repository.newObjectReader()) {
            String scope = path == null ? git.defaultScope() : git.repoPath(path);
            RevCommit oldCommit = git.commit(walk, from);
            RevCommit newCommit = git.commit(walk, to);
            String what = from + " (" + GitRepo.shortId(oldCommit) + ") to " + to + " (" + GitRepo.shortId(newCommit) + ")";
            String where = path == null ? "" : " in " + path;
            DiffText.Result diff = DiffText.render(git, new CanonicalTreeParser(null, reader, oldCommit.getTree()),
                    new CanonicalTreeParser(null, reader, newCommit.getTree()), GitRepo.filter(scope), null,
                    GitRepo.MAX_CHARS, context);
            if (diff.files() == 0) {
                return ToolResult.of("No differences" + where + " from " + what + ".");
            }
            return ToolResult.of("From " + what + where + ", " + diff.files() + (diff.files() == 1 ? " file" : " files")
                    + ":\n" + diff.text());
        } catch (IOException e) {
            throw new ToolException("Could not compare the commits: " + e.getMessage(), e);
        }
    }
}
