package dev.quiver.tools.git.repository;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.FS_POSIX;
import org.eclipse.jgit.util.ProcessResult;

/**
 * JGit's file system, minus every way it has to start a process. A repository is data the model (or
 * whoever cloned it) controls: its hooks ({@code .git/hooks/*}, {@code core.hooksPath}) and filter
 * drivers ({@code filter.<name>.clean}) are programs, and the git tools run none of them. Hooks read
 * as absent; anything else that would start a process fails instead.
 */
public final class NoProcessFS {

    /**
     * The one instance every git tool opens its repository with. POSIX only, as Quiver is (its jail
     * and sandbox need a POSIX system).
     */
    public static final FS INSTANCE = new Posix(FS.DETECTED);

    private static final ProcessResult NO_HOOK = new ProcessResult(ProcessResult.Status.NOT_PRESENT);

    private NoProcessFS() {
    }

    private static UnsupportedOperationException refused(String what) {
        return new UnsupportedOperationException("Quiver's git tools run no programs from the repository (" + what + ")");
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
            return NO_HOOK;
        }

        @Override
        public ProcessResult runHookIfPresent(Repository repository, String hook, String[] args, OutputStream out,
                OutputStream err, String stdin) {
            return NO_HOOK;
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
    }
}
