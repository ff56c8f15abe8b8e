package dev.quiver.tools.git.repository;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * The repository that held the workspace root when the session started, opened so that JGit starts no
 * process ({@link NoProcessFS}). The one way every git-reading tool opens it: the git set's tools, and
 * {@code changed_files}, whose bundle carries a private copy of this package (bnd
 * {@code -conditionalpackage}), so both decide the same way from one source.
 *
 * @param repository the open repository; close it with this record
 * @param prefix the workspace root relative to the work tree, with a trailing slash; empty when they are
 *     the same folder
 */
public record SessionRepository(Repository repository, String prefix) implements AutoCloseable {

    /**
     * Opens the session's repository, never another: a {@code .git} made or re-pointed since the session
     * started (a link, a gitdir or commondir line) could lead to any repository on the machine.
     *
     * @param whenNone how the "not a repository" error ends: what it means for the calling tool
     */
    public static SessionRepository open(Workspace workspace, String whenNone) throws ToolException {
        Path root = workspace.root();
        ToolException none = new ToolException(root + " was not a git repository (nor inside one) when this session "
                + "started, so " + whenNone);
        Path recorded = workspace.gitDir().orElseThrow(() -> none);
        FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(root.toFile());
        if (builder.getGitDir() == null) {
            throw none;
        }
        Path found;
        try {
            found = builder.getGitDir().toPath().toRealPath();
        } catch (IOException e) {
            throw none;
        }
        if (!found.equals(recorded)) {
            throw new ToolException("The workspace's repository changed during this session: .git now leads to "
                    + found + ", not to " + recorded + " as when the session started. The git tools use only the "
                    + "repository the session started with; check what changed .git, then start Quiver again.");
        }
        Repository repository;
        try {
            repository = builder.setFS(NoProcessFS.INSTANCE).setMustExist(true).build();
        } catch (IOException | IllegalArgumentException e) {
            throw new ToolException("Could not open the git repository at " + builder.getGitDir() + ": "
                    + e.getMessage(), e);
        }
        if (repository.isBare()) {
            repository.close();
            throw none;
        }
        try {
            Path work = repository.getWorkTree().toPath().toRealPath();
            if (!root.startsWith(work)) {
                repository.close();
                throw none;
            }
            String relative = work.relativize(root).toString().replace(java.io.File.separatorChar, '/');
            return new SessionRepository(repository, relative.isEmpty() ? "" : relative + "/");
        } catch (IOException e) {
            repository.close();
            throw new ToolException("Could not read the work tree of " + builder.getGitDir() + ": " + e.getMessage(), e);
        }
    }

    /** The working tree, read without running the repository's clean filters ({@link UnfilteredWorkTree}). */
    public UnfilteredWorkTree workTree() {
        return new UnfilteredWorkTree(repository);
    }

    @Override
    public void close() {
        repository.close();
    }
}
