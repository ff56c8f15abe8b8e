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
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheIterator;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.osgi.service.component.annotations.Component;

/** {@code git_diff}: the uncommitted changes as a per-file summary and a unified diff. */
@Component(property = {Tool.NAME + "=git_diff", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitDiffTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("git_diff",
            "Uncommitted changes: a line per file with +/- counts, then the unified diff. Unstaged by default.",
            """
            {"type":"object","properties":{\
            "staged":{"type":"boolean","description":"Staged changes instead"},\
            "path":{"type":"string","description":"Only this file or folder"},\
            "ref":{"type":"string","description":"Compare with this commit instead"}}}""");

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
        boolean staged = arguments.bool("staged", false);
        String ref = arguments.optionalString("ref").orElse(null);
        String path = arguments.optionalString("path").orElse(null);
        try (GitRepo git = GitRepo.open(context.workspace());
                RevWalk walk = new RevWalk(git.repository);
                ObjectReader reader = git.repository.newObjectReader()) {
            String scope = path == null ? git.defaultScope() : git.repoPath(path);
            DirCache index = git.index();
            AbstractTreeIterator oldTree;
            AbstractTreeIterator newTree;
            String what;
            if (ref != null) {
                RevCommit commit = git.commit(walk, ref);
                oldTree = new CanonicalTreeParser(null, reader, commit.getTree());
                newTree = staged ? new DirCacheIterator(index) : git.workTree();
                what = (staged ? "Index" : "Working tree") + " against " + ref + " (" + GitRepo.shortId(commit) + ")";
            } else if (staged) {
                RevCommit head = git.head(walk);
                oldTree = head == null ? new EmptyTreeIterator() : new CanonicalTreeParser(null, reader, head.getTree());
                newTree = new DirCacheIterator(index);
                what = "Staged changes (index against " + (head == null ? "an empty repository" : "HEAD") + ")";
            } else {
                oldTree = new DirCacheIterator(index);
                newTree = git.workTree();
                what = "Unstaged changes (working tree against the index)";
            }
            DiffText.Result result = DiffText.render(git, oldTree, newTree, GitRepo.filter(scope), index,
                    GitRepo.MAX_CHARS, context);
            String where = path == null ? "" : " in " + path;
            if (result.files() == 0) {
                String none = "No " + (ref != null ? "differences from " + ref : staged ? "staged changes" : "unstaged changes")
                        + where + ".";
                if (ref == null) {
                    none += staged ? " git_diff without staged shows unstaged ones." : " Staged changes show with staged: true.";
                }
                return ToolResult.of(result.text().isEmpty() ? none : none + "\n" + result.text());
            }
            return ToolResult.of(what + where + ", " + result.files() + (result.files() == 1 ? " file" : " files")
                    + ":\n" + result.text());
        } catch (IOException e) {
            throw new ToolException("Could not read the repository: " + e.getMessage(), e);
        }
    }
}
