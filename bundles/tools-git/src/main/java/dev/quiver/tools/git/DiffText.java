package dev.quiver.tools.git;

import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.patch.FileHeader;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * A diff between two trees described for a model: one line per file (what happened to it and how many
 * lines were added and removed), then the unified diff. Files that hold secrets are named but their
 * content is left out; files outside the workspace are left out altogether.
 */
final class DiffText {

    private DiffText() {
    }

    /** What a diff found: the described text and the number of files in it. */
    record Result(String text, int files) {
    }

    /**
     * Compares {@code oldTree} with {@code newTree}. When the new side is the working tree, files that are not
     * in {@code index} are untracked and left out, as {@code git diff} does.
     */
    static Result render(GitRepo git, AbstractTreeIterator oldTree, AbstractTreeIterator newTree, TreeFilter filter,
            DirCache index, int maxChars, ToolContext context) throws ToolException {
        boolean workingTree = newTree instanceof WorkingTreeIterator;
        Capped out = new Capped(maxChars);
        try (DiffFormatter formatter = new DiffFormatter(out)) {
            formatter.setRepository(git.repository);
            // against the working tree an untracked file would pair with a deleted one, which git diff never does
            formatter.setDetectRenames(!workingTree);
            formatter.setPathFilter(filter);
            List<DiffEntry> entries = new ArrayList<>();
            int untracked = 0;
            for (DiffEntry entry : formatter.scan(oldTree, newTree)) {
                String path = entry.getChangeType() == DiffEntry.ChangeType.DELETE ? entry.getOldPath() : entry.getNewPath();
                if (git.shown(path) == null && git.shown(entry.getOldPath()) == null) {
                    continue;
                }
                if (workingTree && entry.getChangeType() == DiffEntry.ChangeType.ADD && index.findEntry(path) < 0) {
                    untracked++;
                    continue;
                }
                entries.add(entry);
            }
            StringBuilder summary = new StringBuilder();
            List<DiffEntry> shownEntries = new ArrayList<>();
            List<String> secrets = new ArrayList<>();
            for (DiffEntry entry : entries) {
                if (context.isCancelled()) {
                    throw new ToolException("Cancelled.");
                }
                boolean secret = git.isSecret(entry.getOldPath()) || git.isSecret(entry.getNewPath());
                summary.append(describe(git, entry));
                if (secret) {
                    summary.append("  [holds secrets: content left out]");
                    secrets.add(name(git, entry));
                } else {
                    summary.append(counts(formatter, entry));
                    shownEntries.add(entry);
                }
                summary.append('\n');
            }
            if (untracked > 0) {
                summary.append("(").append(untracked).append(untracked == 1 ? " untracked file" : " untracked files")
                        .append(" not shown; git_status lists them)\n");
            }
            if (!shownEntries.isEmpty()) {
                summary.append('\n');
            }
            for (DiffEntry entry : shownEntries) {
                if (out.full()) {
                    break;
                }
                formatter.format(entry);
                formatter.flush();
            }
            String diff = out.text();
            String text = summary + diff;
            if (out.full()) {
                text += "\n... [diff cut at " + maxChars + " characters; pass a path to see one file]";
            }
            return new Result(text.stripTrailing(), entries.size());
        } catch (IOException e) {
            throw new ToolException("Could not compute the diff: " + e.getMessage(), e);
        }
    }

    private static String name(GitRepo git, DiffEntry entry) {
        String path = entry.getChangeType() == DiffEntry.ChangeType.DELETE ? entry.getOldPath() : entry.getNewPath();
        String shown = git.shown(path);
        return shown == null ? path : shown;
    }

    private static String describe(GitRepo git, DiffEntry entry) {
        String oldPath = shownOrRepo(git, entry.getOldPath());
        String newPath = shownOrRepo(git, entry.getNewPath());
        return switch (entry.getChangeType()) {
            case ADD -> newPath + "  (added)";
            case DELETE -> oldPath + "  (deleted)";
            case MODIFY -> newPath + "  (modified" + modeChange(entry) + ")";
            case RENAME -> oldPath + " -> " + newPath + "  (renamed, " + entry.getScore() + "% similar)";
            case COPY -> oldPath + " -> " + newPath + "  (copied, " + entry.getScore() + "% similar)";
        };
    }

    private static String modeChange(DiffEntry entry) {
        return entry.getOldMode().equals(entry.getNewMode()) ? ""
                : ", mode " + entry.getOldMode() + " -> " + entry.getNewMode();
    }

    private static String shownOrRepo(GitRepo git, String path) {
        String shown = git.shown(path);
        return shown == null ? path : shown;
    }

    private static String counts(DiffFormatter formatter, DiffEntry entry) throws IOException {
        FileHeader header = formatter.toFileHeader(entry);
        if (header.getPatchType() != FileHeader.PatchType.UNIFIED) {
            return "  binary";
        }
        int added = 0;
        int removed = 0;
        for (Edit edit : header.toEditList()) {
            added += edit.getLengthB();
            removed += edit.getLengthA();
        }
        return added == 0 && removed == 0 ? "" : "  +" + added + " -" + removed;
    }

    /** Collects bytes up to a limit and drops the rest, so one huge file cannot fill the heap. */
    static final class Capped extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int limit;
        private boolean full;

        Capped(int limit) {
            this.limit = limit;
        }

        @Override
        public void write(int b) {
            if (bytes.size() < limit) {
                bytes.write(b);
            } else {
                full = true;
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            int room = limit - bytes.size();
            if (len > room) {
                full = true;
            }
            bytes.write(b, off, Math.max(0, Math.min(len, room)));
        }

        boolean full() {
            return full;
        }

        String text() {
            String text = bytes.toString(StandardCharsets.UTF_8);
            return text.length() > limit ? text.substring(0, limit) : text;
        }
    }
}
