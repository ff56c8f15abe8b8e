package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.tools.git.repository.SessionRepository;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Repository;
import org.osgi.service.component.annotations.Component;

/**
 * {@code changed_files}: the paths git reports as changed, grouped by state, through JGit with no
 * process started ({@link SessionRepository}, as the git tools open it). Only paths inside the workspace are
 * listed, relative to it.
 */
@Component(property = {Tool.NAME + "=changed_files", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class ChangedFilesTool implements Tool {

    /** Paths named per state; the count covers them all. */
    static final int SHOWN = 200;

    private static final ToolSpec SPEC = new ToolSpec("changed_files",
            "Files git sees as changed, grouped: staged, modified, deleted, untracked, conflicting. To know what "
                    + "to review or test. git_diff shows the changes.",
            """
            {"type":"object","properties":{}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        try (SessionRepository opened = SessionRepository.open(workspace,
                "there are no git changes to list. tree or recent_files show the files.")) {
            Repository repository = opened.repository();
            String prefix = opened.prefix();
            var command = Git.wrap(repository).status().setWorkingTreeIt(opened.workTree());
            if (!prefix.isEmpty()) {
                command.addPath(prefix.substring(0, prefix.length() - 1));
            }
            Status status = command.call();
            Map<String, Set<String>> groups = new LinkedHashMap<>();
            groups.put("conflicting", status.getConflicting());
            groups.put("staged new", status.getAdded());
            groups.put("staged modified", status.getChanged());
            groups.put("staged deleted", status.getRemoved());
            groups.put("modified", status.getModified());
            groups.put("deleted", status.getMissing());
            groups.put("untracked", status.getUntracked());
            StringBuilder out = new StringBuilder();
            int total = 0;
            int secrets = 0;
            for (Map.Entry<String, Set<String>> group : groups.entrySet()) {
                List<String> paths = new ArrayList<>();
                for (String path : new TreeSet<>(group.getValue())) {
                    if (!path.startsWith(prefix)) {
                        continue;
                    }
                    if (workspace.isSecret(Path.of(path))) {
                        secrets++;
                    } else {
                        paths.add(path.substring(prefix.length()));
                    }
                }
                if (paths.isEmpty()) {
                    continue;
                }
                total += paths.size();
                out.append(group.getKey()).append(" (").append(paths.size()).append("):\n");
                for (String path : paths.subList(0, Math.min(SHOWN, paths.size()))) {
                    out.append("  ").append(path).append('\n');
                }
                if (paths.size() > SHOWN) {
                    out.append("  ... ").append(paths.size() - SHOWN).append(" more\n");
                }
            }
            String branch = repository.getBranch();
            String head = "On " + (branch == null ? "no branch" : branch) + ": ";
            if (total == 0) {
                out.append(head).append("no changes (nothing staged, modified or untracked).\n");
            } else {
                out.insert(0, head + total + (total == 1 ? " changed path\n" : " changed paths\n"));
            }
            if (secrets > 0) {
                out.append("(").append(secrets).append(secrets == 1 ? " file" : " files")
                        .append(" holding secrets by name not shown)\n");
            }
            return ToolResult.of(out.toString().stripTrailing());
        } catch (GitAPIException | IOException | org.eclipse.jgit.api.errors.JGitInternalException e) {
            throw new ToolException("git status failed: " + e.getMessage() + ". git_status or bash (git status) may say "
                    + "more.", e);
        }
    }
}
