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
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.blame.BlameResult;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.osgi.service.component.annotations.Component;

/** {@code git_blame}: who last changed each line of a file, and in which commit. */
@Component(property = {Tool.NAME + "=git_blame", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitBlameTool implements Tool {

    /** Lines covered when only startLine is given. */
    static final int DEFAULT_SPAN = 40;
    /** Lines shown at most in one call. */
    static final int MAX_LINES = 1000;
    private static final int MAX_LINE_CHARS = 300;

    private static final ToolSpec SPEC = new ToolSpec("git_blame",
            "Who last changed each line: line number, short hash, author, date, text. Uncommitted lines are marked.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"File, relative to the workspace root"},\
            "startLine":{"type":"integer","description":"First line, 1-based"},\
            "endLine":{"type":"integer","description":"Last line, default startLine+39"}},\
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
        try (GitRepo git = GitRepo.open(context.workspace()); RevWalk walk = new RevWalk(git.repository)) {
            Path file = git.workspace.resolve(path);
            String shown = git.workspace.relativize(file);
            if (Files.isDirectory(file)) {
                throw new ToolException(shown + " is a folder; git_blame takes a file.");
            }
            String repoPath = git.repoPath(path);
            if (git.isSecret(repoPath)) {
                throw new ToolException("Blame of " + shown + " left out: the file holds secrets, so its lines are not shown.");
            }
            RevCommit head = git.head(walk);
            boolean inHead = head != null && TreeWalk.forPath(git.repository, repoPath, head.getTree()) != null;
            if (!inHead && git.index().findEntry(repoPath) < 0) {
                throw new ToolException(shown + (Files.exists(file) ? " is not tracked by git" : " does not exist")
                        + "; there is nothing to blame.");
            }
            int start = arguments.integer("startLine", 1, 1, Integer.MAX_VALUE);
            BlameResult blame = Git.wrap(git.repository).blame().setFilePath(repoPath).setFollowFileRenames(true).call();
            if (blame == null) {
                throw new ToolException(shown + " has no history to blame.");
            }
            RawText text = blame.getResultContents();
            int total = text.size();
            if (total == 0) {
                return ToolResult.of(shown + " is empty.");
            }
            if (start > total) {
                throw new ToolException("startLine " + start + " is past the end of " + shown + ", which has " + total
                        + (total == 1 ? " line." : " lines."));
            }
            int defaultEnd = arguments.has("startLine") ? start + DEFAULT_SPAN - 1 : total;
            int end = arguments.integer("endLine", defaultEnd, start, Integer.MAX_VALUE);
            end = Math.min(end, total);
            boolean cut = false;
            if (end - start + 1 > MAX_LINES) {
                end = start + MAX_LINES - 1;
                cut = true;
            }
            StringBuilder body = new StringBuilder();
            Set<String> authors = new HashSet<>();
            int width = String.valueOf(end).length();
            int last = start - 1;
            for (int line = start - 1; line < end; line++) {
                if (context.isCancelled()) {
                    throw new ToolException("Cancelled.");
                }
                RevCommit source = blame.getSourceCommit(line);
                PersonIdent author = blame.getSourceAuthor(line);
                String who;
                if (source == null || author == null) {
                    who = "uncommitted          ";
                } else {
                    who = GitRepo.shortId(source) + "  " + GitRepo.day(author) + "  " + author.getName();
                    authors.add(author.getName());
                }
                String content = text.getString(line);
                if (content.length() > MAX_LINE_CHARS) {
                    content = content.substring(0, MAX_LINE_CHARS) + "... [line cut]";
                }
                String row = String.format("%" + width + "d  %s | %s%n", line + 1, who, content);
                if (body.length() + row.length() > GitRepo.MAX_CHARS) {
                    cut = true;
                    break;
                }
                body.append(row);
                last = line + 1;
            }
            StringBuilder out = new StringBuilder(shown).append(": lines ").append(start).append('-').append(last)
                    .append(" of ").append(total).append(", ").append(authors.size())
                    .append(authors.size() == 1 ? " author" : " authors").append('\n').append(body);
            if (cut || last < total && arguments.has("endLine") == false && !arguments.has("startLine")) {
                out.append("[continue with startLine ").append(last + 1).append("]\n");
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (GitAPIException | IOException e) {
            throw new ToolException("git blame failed for " + path + ": " + e.getMessage(), e);
        }
    }
}
