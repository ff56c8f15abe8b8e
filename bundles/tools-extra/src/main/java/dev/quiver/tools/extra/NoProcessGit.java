package dev.quiver.tools.extra;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.FS_POSIX;
import org.eclipse.jgit.util.ProcessResult;

/**
 * The workspace's repository opened so that JGit starts no process: no {@code git} executable looked
 * for (JGit would run it to find the system configuration), no hook, no clean filter driver. The same
 * rules as the git tools' (bundle {@code tools-git}), which keep theirs private; a tool set is installed
 * without the other, so each bundle holds its own few lines.
 */
final class NoProcessGit {

    private static final FS FILE_SYSTEM = new Posix(FS.DETECTED);

    private NoProcessGit() {
    }

    /**
     * The repository the workspace belonged to when the session started, never another: a {@code .git}
     * made or re-pointed since is refused.
     */
    static Repository open(Workspace workspace) throws ToolException {
        Path root = workspace.root();
        Path recorded = workspace.gitDir().orElseThrow(() -> new ToolException(root + " was not a git repository (nor "
                + "inside one) when this session started, so there are no git changes to list. tree or recent_files "
                + "show the files."));
        FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(root.toFile());
        try {
            if (builder.getGitDir() == null || !builder.getGitDir().toPath().toRealPath().equals(recorded)) {
                throw new ToolException("The workspace's .git no longer leads to " + recorded + ", the repository of "
                        + "when the session started; changed_files reads only that one. Check what changed .git.");
            }
            Repository repository = builder.setFS(FILE_SYSTEM).setMustExist(true).build();
            if (repository.isBare()) {
                repository.close();
                throw new ToolException(recorded + " is a bare repository: it has no working tree to compare.");
            }
            return repository;
        } catch (IOException | IllegalArgumentException e) {
            throw new ToolException("Could not open the git repository at " + recorded + ": " + e.getMessage(), e);
        }
    }

    /** The working tree as git reads it, without running clean filter drivers: content as it is on disk. */
    static WorkingTreeIterator workTree(Repository repository) {
        return new Unfiltered(repository);
    }

    private static final class Unfiltered extends FileTreeIterator {
        Unfiltered(Repository repository) {
            super(repository);
        }

        private Unfiltered(WorkingTreeIterator parent, File folder, FS fs, FileModeStrategy strategy) {
            super(parent, folder, fs, strategy);
        }

        @Override
        public String getCleanFilterCommand() {
            return null;
        }

        @Override
        protected AbstractTreeIterator enterSubtree() {
            return new Unfiltered(this, ((FileEntry) current()).getFile(), fs, fileModeStrategy);
        }
    }

    private static final class Posix extends FS_POSIX {
        Posix(FS source) {
            super(source);
        }

        @Override
        public FS newInstance() {
            return new Posix(this);
        }

        @Override
        public ProcessResult runHookIfPresent(Repository repository, String hook, String[] args) {
            return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
        }

        @Override
        public ProcessResult runHookIfPresent(Repository repository, String hook, String[] args, OutputStream out,
                OutputStream err, String stdin) {
            return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
        }

        @Override
        public File findHook(Repository repository, String hook) {
            return null;
        }

        @Override
        public ProcessBuilder runInShell(String command, String[] args) {
            throw refused(command);
        }

        @Override
        public int runProcess(ProcessBuilder process, OutputStream out, OutputStream err, String stdin) {
            throw refused(String.join(" ", process.command()));
        }

        @Override
        public int runProcess(ProcessBuilder process, OutputStream out, OutputStream err, InputStream in) {
            throw refused(String.join(" ", process.command()));
        }

        @Override
        public ExecutionResult execute(ProcessBuilder process, InputStream in) {
            throw refused(String.join(" ", process.command()));
        }

        @Override
        protected File discoverGitExe() {
            return null;
        }

        private static UnsupportedOperationException refused(String what) {
            return new UnsupportedOperationException("changed_files runs no programs from the repository (" + what + ")");
        }
    }
}
