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
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.osgi.service.component.annotations.Component;

/** {@code git_show}: one commit's metadata, message and changes. */
@Component(property = {Tool.NAME + "=git_show", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitShowTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("git_show",
            "One commit: hash, author, date, full message, changed files with +/- counts, then its diff.",
            """
            {"type":"object","properties":{\
            "ref":{"type":"string","description":"Commit, branch, tag or HEAD~n"},\
            "path":{"type":"string","description":"Only this file or folder"}},\
            "required":["ref"]}""");

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
        String ref = arguments.string("ref");
        String path = arguments.optionalString("path").orElse(null);
        try (GitRepo git = GitRepo.open(context.workspace());
                RevWalk walk = new RevWalk(git.repository);
                ObjectReader reader = git.repository.newObjectReader()) {
            String scope = path == null ? git.defaultScope() : git.repoPath(path);
            RevCommit commit = git.commit(walk, ref);
            StringBuilder out = new StringBuilder("commit ").append(commit.name()).append('\n');
            PersonIdent author = commit.getAuthorIdent();
            PersonIdent committer = commit.getCommitterIdent();
            out.append("Author: ").append(author.getName()).append(" <").append(author.getEmailAddress()).append(">, ")
                    .append(GitRepo.time(author)).append('\n');
            if (!committer.getName().equals(author.getName()) || !committer.getEmailAddress().equals(author.getEmailAddress())) {
                out.append("Committer: ").append(committer.getName()).append(" <").append(committer.getEmailAddress())
                        .append(">, ").append(GitRepo.time(committer)).append('\n');
            }
            AbstractTreeIterator parentTree;
            if (commit.getParentCount() == 0) {
                out.append("Root commit (no parent)\n");
                parentTree = new EmptyTreeIterator();
            } else {
                RevCommit parent = walk.parseCommit(commit.getParent(0));
                if (commit.getParentCount() > 1) {
                    StringBuilder parents = new StringBuilder();
                    for (RevCommit p : commit.getParents()) {
                        parents.append(' ').append(GitRepo.shortId(p));
                    }
                    out.append("Merge of").append(parents).append("; changes shown against the first parent\n");
                }
                parentTree = new CanonicalTreeParser(null, reader, parent.getTree());
            }
            String message = commit.getFullMessage().stripTrailing();
            if (message.length() > 4000) {
                message = message.substring(0, 4000) + "\n... [message cut at 4000 characters]";
            }
            out.append('\n');
            message.lines().forEach(line -> out.append(line.isBlank() ? "" : "    " + line).append('\n'));
            out.append('\n');
            DiffText.Result diff = DiffText.render(git, parentTree, new CanonicalTreeParser(null, reader, commit.getTree()),
                    GitRepo.filter(scope), null, Math.max(1000, GitRepo.MAX_CHARS - out.length()), context);
            String where = path == null ? "" : " in " + path;
            if (diff.files() == 0) {
                out.append("No changes").append(where).append(" in this commit.");
            } else {
                out.append(diff.files()).append(diff.files() == 1 ? " file" : " files").append(" changed").append(where)
                        .append(":\n").append(diff.text());
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (IOException e) {
            throw new ToolException("Could not read the commit: " + e.getMessage(), e);
        }
    }
}
