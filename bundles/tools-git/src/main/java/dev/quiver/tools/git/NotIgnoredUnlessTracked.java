package dev.quiver.tools.git;

import java.io.IOException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * For a walk of a commit (tree 0) against the working tree (tree 1): leaves out what the ignore files
 * exclude unless the commit or the index holds it, so that build output is neither walked nor counted as
 * untracked, as in git. A force-added file in an ignored folder is still seen, provided the working-tree
 * iterator walks ignored folders ({@code setWalkIgnoredDirectories(true)}): this filter decides instead.
 */
final class NotIgnoredUnlessTracked extends TreeFilter {

    private final DirCache index;

    NotIgnoredUnlessTracked(DirCache index) {
        this.index = index;
    }

    @Override
    public boolean include(TreeWalk walker) throws IOException {
        if (walker.getRawMode(0) != 0) {
            return true;
        }
        WorkingTreeIterator workTree = walker.getTree(1, WorkingTreeIterator.class);
        if (workTree == null || !workTree.isEntryIgnored()) {
            return true;
        }
        String path = walker.getPathString();
        return walker.isSubtree() ? index.getEntriesWithin(path).length > 0 : index.findEntry(path) >= 0;
    }

    @Override
    public boolean shouldBeRecursive() {
        return false;
    }

    @Override
    public TreeFilter clone() {
        return this;
    }
}
