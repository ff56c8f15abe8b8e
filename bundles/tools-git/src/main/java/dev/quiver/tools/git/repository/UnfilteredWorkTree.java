package dev.quiver.tools.git.repository;

import java.io.File;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.util.FS;

/**
 * The working tree as git reads it, except that clean filter drivers ({@code filter.<name>.clean}) are
 * not run: content is read as it is on disk, with line-ending conversion still applied. That is what git
 * itself does when a filter that is not {@code required} fails; git_commit refuses files whose
 * filter is required. Subfolders are read the same way.
 */
public final class UnfilteredWorkTree extends FileTreeIterator {

    public UnfilteredWorkTree(Repository repository) {
        super(repository);
    }

    private UnfilteredWorkTree(WorkingTreeIterator parent, File folder, FS fs, FileModeStrategy strategy) {
        super(parent, folder, fs, strategy);
    }

    @Override
    public String getCleanFilterCommand() {
        return null;
    }

    @Override
    protected AbstractTreeIterator enterSubtree() {
        return new UnfilteredWorkTree(this, ((FileEntry) current()).getFile(), fs, fileModeStrategy);
    }
}
