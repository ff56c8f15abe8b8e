package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.tools.git.repository.UnfilteredWorkTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.api.errors.CanceledException;
import org.eclipse.jgit.diff.ContentSource;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.RenameDetector;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.osgi.service.component.annotations.Component;

/**
 * {@code git_changed_in_ref}: the names of the files that differ between a commit and the working tree,
 * each with a status letter, as {@code git diff --name-status ref}. Untracked files are counted, not
 * listed, as there; renames are detected among tracked files only, so an untracked file never pairs with
 * a deleted one.
 */
@Component(property = {Tool.NAME + "=git_changed_in_ref", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitChangedInRefTool implements Tool {

    static final int MAX_FILES = 500;

    private static final ToolSpec SPEC = new ToolSpec("git_changed_in_ref",
            "Names of files changed between a commit and the working tree, with status letters A/M/D/R. "
                    + "Use it to see what a branch touched.",
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
            DirCache index = git.index();
            UnfilteredWorkTree workTree = git.workTree();
            // JGit would skip ignored folders whole; NotIgnoredUnlessTracked prunes them unless the index has files there
            workTree.setWalkIgnoredDirectories(true);
            List<DiffEntry> tracked = new ArrayList<>();
            int untracked = 0;
            try (TreeWalk treeWalk = new TreeWalk(git.repository, reader)) {
                treeWalk.setRecursive(true);
                treeWalk.setFilter(scope.isEmpty() ? new NotIgnoredUnlessTracked(index)
                        : AndTreeFilter.create(GitRepo.filter(scope), new NotIgnoredUnlessTracked(index)));
                treeWalk.addTree(new CanonicalTreeParser(null, reader, commit.getTree()));
                treeWalk.addTree(workTree);
                for (DiffEntry entry : DiffEntry.scan(treeWalk)) {
                    if (entry.getChangeType() == DiffEntry.ChangeType.ADD && index.findEntry(entry.getNewPath()) < 0) {
                        untracked++;
                    } else {
                        tracked.add(entry);
                    }
                }
            }
            RenameDetector renames = new RenameDetector(git.repository);
            renames.addAll(tracked);
            List<DiffEntry> entries = renames.compute(new ContentSource.Pair(ContentSource.create(reader),
                    ContentSource.create(git.workTree())), NullProgressMonitor.INSTANCE);
            List<String> lines = new ArrayList<>();
            for (DiffEntry entry : entries) {
                String oldShown = git.shown(entry.getOldPath());
                String newShown = git.shown(entry.getNewPath());
                switch (entry.getChangeType()) {
                    case ADD -> add(lines, "A  ", newShown);
                    case MODIFY -> add(lines, "M  ", newShown);
                    case DELETE -> add(lines, "D  ", oldShown);
                    case RENAME, COPY -> {
                        if (oldShown != null || newShown != null) {
                            lines.add((entry.getChangeType() == DiffEntry.ChangeType.RENAME ? "R  " : "C  ")
                                    + (oldShown == null ? entry.getOldPath() : oldShown) + " -> "
                                    + (newShown == null ? entry.getNewPath() : newShown));
                        }
                    }
                }
            }
            lines.sort(null);
            String where = path == null ? "" : " in " + path;
            String note = untracked == 0 ? "" : "\n(" + untracked + (untracked == 1 ? " untracked file" : " untracked files")
                    + " not listed; git_status lists them)";
            String what = ref + " (" + GitRepo.shortId(commit) + ")";
            if (lines.isEmpty()) {
                return ToolResult.of("No tracked file differs" + where + " between " + what + " and the working tree." + note);
            }
            StringBuilder out = new StringBuilder().append(lines.size()).append(lines.size() == 1 ? " file" : " files")
                    .append(" changed").append(where).append(" from ").append(what).append(" to the working tree:\n");
            int shown = 0;
            for (String line : lines) {
                if (shown == MAX_FILES || out.length() + line.length() > GitRepo.MAX_CHARS) {
                    out.append("... and ").append(lines.size() - shown).append(" more; pass a path to narrow.\n");
                    break;
                }
                out.append(line).append('\n');
                shown++;
            }
            return ToolResult.of((out.toString().stripTrailing() + note));
        } catch (CanceledException e) {
            throw new ToolException("Cancelled.", e);
        } catch (IOException e) {
            throw new ToolException("Could not compare " + ref + " with the working tree: " + e.getMessage(), e);
        }
    }

    /** Adds a file's line when the file lies inside the workspace. */
    private static void add(List<String> lines, String letter, String shown) {
        if (shown != null) {
            lines.add(letter + shown);
        }
    }
}
