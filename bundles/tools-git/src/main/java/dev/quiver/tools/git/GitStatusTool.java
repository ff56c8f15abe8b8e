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
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.StatusCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.dircache.DirCacheIterator;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.util.io.DisabledOutputStream;
import org.eclipse.jgit.api.Status;
import org.osgi.service.component.annotations.Component;

/** {@code git_status}: the branch and every changed file, each with what happened to it in words. */
@Component(property = {Tool.NAME + "=git_status", Tool.SET + "=git", Tool.ACCESS + "=read"})
public class GitStatusTool implements Tool {

    static final int MAX_FILES = 300;

    private static final ToolSpec SPEC = new ToolSpec("git_status",
            "Git branch and changed files, each marked staged/modified/deleted/renamed/untracked.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"Only this file or folder"}}}""");

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
        try (GitRepo git = GitRepo.open(context.workspace())) {
            String scope = arguments.has("path") ? git.repoPath(arguments.string("path")) : git.defaultScope();
            Map<String, List<String>> states = new TreeMap<>();
            Map<String, String> renamedFrom = new TreeMap<>();
            staged(git, scope, states, renamedFrom);
            StatusCommand command = Git.wrap(git.repository).status().setWorkingTreeIt(git.workTree());
            if (!scope.isEmpty()) {
                command.addPath(scope);
            }
            Status status = command.call();
            for (String path : status.getConflicting()) {
                states.computeIfAbsent(path, k -> new ArrayList<>()).add("conflict: " + status.getConflictingStageState()
                        .get(path).name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
            }
            for (String path : status.getModified()) {
                if (!status.getConflicting().contains(path)) {
                    states.computeIfAbsent(path, k -> new ArrayList<>()).add("modified");
                }
            }
            for (String path : status.getMissing()) {
                if (!status.getConflicting().contains(path)) {
                    states.computeIfAbsent(path, k -> new ArrayList<>()).add("deleted");
                }
            }
            for (String path : status.getUntracked()) {
                states.computeIfAbsent(path, k -> new ArrayList<>()).add("untracked");
            }
            StringBuilder out = new StringBuilder(git.branchLine());
            List<String> lines = new ArrayList<>();
            for (Map.Entry<String, List<String>> entry : states.entrySet()) {
                String shown = git.shown(entry.getKey());
                if (shown == null) {
                    continue;
                }
                String from = renamedFrom.get(entry.getKey());
                String fromShown = from == null ? null : git.shown(from);
                lines.add((from == null ? "" : (fromShown == null ? from : fromShown) + " -> ") + shown
                        + "  (" + String.join(", ", entry.getValue()) + ")");
            }
            if (lines.isEmpty()) {
                out.append(scope.isEmpty() || !arguments.has("path") ? ", clean: nothing to commit, no untracked files."
                        : ", nothing changed in " + arguments.string("path") + ".");
                return ToolResult.of(out.toString());
            }
            out.append(", ").append(lines.size()).append(" changed")
                    .append(arguments.has("path") ? " in " + arguments.string("path") : "").append(":\n");
            int shown = 0;
            for (String line : lines) {
                if (shown == MAX_FILES || out.length() + line.length() > GitRepo.MAX_CHARS) {
                    out.append("... and ").append(lines.size() - shown).append(" more; pass a path to narrow.\n");
                    break;
                }
                out.append(line).append('\n');
                shown++;
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (GitAPIException e) {
            throw new ToolException("git status failed: " + e.getMessage(), e);
        }
    }

    /** Index against HEAD, with renames detected as git status does. */
    private static void staged(GitRepo git, String scope, Map<String, List<String>> states, Map<String, String> renamedFrom)
            throws ToolException {
        try (RevWalk walk = new RevWalk(git.repository);
                ObjectReader reader = git.repository.newObjectReader();
                DiffFormatter formatter = new DiffFormatter(DisabledOutputStream.INSTANCE)) {
            RevCommit head = git.head(walk);
            AbstractTreeIterator oldTree = head == null ? new EmptyTreeIterator()
                    : new CanonicalTreeParser(null, reader, head.getTree());
            formatter.setRepository(git.repository);
            formatter.setDetectRenames(true);
            formatter.setPathFilter(GitRepo.filter(scope));
            for (DiffEntry entry : formatter.scan(oldTree, new DirCacheIterator(git.index()))) {
                switch (entry.getChangeType()) {
                    case ADD -> states.computeIfAbsent(entry.getNewPath(), k -> new ArrayList<>()).add("staged new");
                    case MODIFY -> states.computeIfAbsent(entry.getNewPath(), k -> new ArrayList<>()).add("staged modified");
                    case DELETE -> states.computeIfAbsent(entry.getOldPath(), k -> new ArrayList<>()).add("staged deleted");
                    case RENAME, COPY -> {
                        boolean rename = entry.getChangeType() == DiffEntry.ChangeType.RENAME;
                        states.computeIfAbsent(entry.getNewPath(), k -> new ArrayList<>())
                                .add((rename ? "staged renamed" : "staged copied")
                                        + (entry.getScore() < 100 ? ", " + entry.getScore() + "% similar" : ""));
                        renamedFrom.put(entry.getNewPath(), entry.getOldPath());
                    }
                }
            }
        } catch (IOException e) {
            throw new ToolException("Could not compare the index with HEAD: " + e.getMessage(), e);
        }
    }
}
