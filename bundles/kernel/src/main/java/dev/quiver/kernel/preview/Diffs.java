package dev.quiver.kernel.preview;

import dev.quiver.api.Workspace;
import dev.quiver.kernel.preview.RecordingWorkspace.Committed;
import dev.quiver.kernel.preview.RecordingWorkspace.Copy;
import dev.quiver.kernel.preview.RecordingWorkspace.Delete;
import dev.quiver.kernel.preview.RecordingWorkspace.Direct;
import dev.quiver.kernel.preview.RecordingWorkspace.Effect;
import dev.quiver.kernel.preview.RecordingWorkspace.MakeFolders;
import dev.quiver.kernel.preview.RecordingWorkspace.MakeLink;
import dev.quiver.kernel.preview.RecordingWorkspace.Move;
import dev.quiver.kernel.preview.RecordingWorkspace.Permissions;
import dev.quiver.kernel.preview.RecordingWorkspace.Replace;
import dev.quiver.kernel.preview.RecordingWorkspace.Step;
import dev.quiver.kernel.preview.RecordingWorkspace.Write;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;

/**
 * Recorded changes as a unified diff and as a one-line-per-file summary. Each file's "before" is what
 * the steps before it left, starting from the file as it is now, so two changes of one file read as
 * what each does.
 */
final class Diffs {

    /** Past this a file's content is not compared line by line: its sizes are shown instead. */
    static final int MAX_COMPARED_BYTES = 4 << 20;
    /** Past this the diff is cut: an approval question is read, not a file. */
    static final int MAX_DIFF_CHARS = 256 * 1024;
    private static final byte[] ABSENT = null;

    private Diffs() {
    }

    /** What one file went through: its content before the first step and after the last. */
    private static final class FileChange {
        byte[] before;
        byte[] after;
        boolean large;
    }

    static String describe(Workspace workspace, List<Effect> effects) {
        StringBuilder out = new StringBuilder();
        Tree tree = new Tree(workspace);
        for (Effect effect : effects) {
            for (Step step : steps(effect)) {
                String text = describe(workspace, tree, step);
                if (out.length() + text.length() > MAX_DIFF_CHARS) {
                    out.append("... [the diff is cut at ").append(MAX_DIFF_CHARS / 1024).append(" KiB]\n");
                    return out.toString();
                }
                out.append(text);
            }
        }
        return out.toString();
    }

    static String summary(Workspace workspace, List<Effect> effects) {
        Map<Path, FileChange> files = new LinkedHashMap<>();
        List<String> others = new ArrayList<>();
        Tree tree = new Tree(workspace);
        for (Effect effect : effects) {
            for (Step step : steps(effect)) {
                if (step instanceof Write || step instanceof Replace) {
                    Path file = step instanceof Write w ? w.file() : ((Replace) step).file();
                    FileChange change = files.computeIfAbsent(file, f -> {
                        FileChange made = new FileChange();
                        made.before = tree.content(f);
                        made.large = tree.large(f);
                        return made;
                    });
                    change.after = step instanceof Write w ? w.content() : ((Replace) step).after();
                    tree.set(file, change.after);
                } else {
                    others.add(headline(workspace, tree, step));
                }
            }
        }
        List<String> lines = new ArrayList<>();
        files.forEach((file, change) -> lines.add(workspace.relativize(file) + counts(change)));
        lines.addAll(others);
        return String.join("\n", lines);
    }

    private static List<Step> steps(Effect effect) {
        return effect instanceof Committed committed ? committed.steps() : List.of(((Direct) effect).step());
    }

    private static String counts(FileChange change) {
        if (change.large || change.after.length > MAX_COMPARED_BYTES || isBinary(change.before)
                || RawText.isBinary(change.after)) {
            return change.before == ABSENT ? " (new, " + change.after.length + " bytes)" : " (" + change.after.length + " bytes)";
        }
        int added = 0;
        int removed = 0;
        for (Edit edit : edits(change.before, change.after)) {
            added += edit.getLengthB();
            removed += edit.getLengthA();
        }
        return (change.before == ABSENT ? " (new)" : "") + " +" + added + " \u2212" + removed;
    }

    private static boolean isBinary(byte[] content) {
        return content != ABSENT && RawText.isBinary(content);
    }

    private static EditList edits(byte[] before, byte[] after) {
        return DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM)
                .diff(RawTextComparator.DEFAULT, new RawText(before == ABSENT ? new byte[0] : before), new RawText(after));
    }

    private static String describe(Workspace workspace, Tree tree, Step step) {
        if (step instanceof Write write) {
            return fileDiff(workspace, tree, write.file(), write.content());
        }
        if (step instanceof Replace replace) {
            return fileDiff(workspace, tree, replace.file(), replace.after());
        }
        return headline(workspace, tree, step) + "\n";
    }

    /** A step that is not a new content: a delete with its size, a rename, a copy, a folder, a link, a mode. */
    private static String headline(Workspace workspace, Tree tree, Step step) {
        if (step instanceof Delete delete) {
            long size = tree.size(delete.file());
            tree.set(delete.file(), ABSENT);
            return "delete " + workspace.relativize(delete.file()) + (size < 0 ? "" : " (" + size + " bytes)");
        }
        if (step instanceof Move move) {
            tree.moved(move.from(), move.to());
            return "rename " + workspace.relativize(move.from()) + " -> " + workspace.relativize(move.to());
        }
        if (step instanceof Copy copy) {
            return "copy " + workspace.relativize(copy.from()) + " -> " + workspace.relativize(copy.to());
        }
        if (step instanceof MakeFolders folders) {
            return "create folder " + workspace.relativize(folders.folder()) + "/";
        }
        if (step instanceof MakeLink link) {
            return "link " + workspace.relativize(link.link()) + " -> " + link.target();
        }
        Permissions permissions = (Permissions) step;
        return "mode " + PosixFilePermissions.toString(permissions.permissions()) + " for "
                + workspace.relativize(permissions.file());
    }

    private static String fileDiff(Workspace workspace, Tree tree, Path file, byte[] after) {
        String name = workspace.relativize(file);
        byte[] before = tree.content(file);
        boolean large = tree.large(file);
        tree.set(file, after);
        StringBuilder out = new StringBuilder();
        out.append("--- ").append(before == ABSENT && !large ? "/dev/null" : "a/" + name).append('\n');
        out.append("+++ b/").append(name).append('\n');
        if (large || after.length > MAX_COMPARED_BYTES) {
            return out.append("(too large to compare line by line: ").append(after.length).append(" bytes after)\n")
                    .toString();
        }
        if (isBinary(before) || RawText.isBinary(after)) {
            return out.append("Binary file: ").append(before == ABSENT ? "new" : before.length + " bytes").append(" -> ")
                    .append(after.length).append(" bytes\n").toString();
        }
        ByteArrayOutputStream hunks = new ByteArrayOutputStream();
        try (DiffFormatter formatter = new DiffFormatter(hunks)) {
            formatter.setContext(3);
            formatter.format(edits(before, after), new RawText(before == ABSENT ? new byte[0] : before),
                    new RawText(after));
        } catch (IOException inMemory) {
            throw new IllegalStateException(inMemory);
        }
        String text = hunks.toString(StandardCharsets.UTF_8);
        return out.append(text.isEmpty() ? "(no change to its content)\n" : text).toString();
    }

    /** The tree as the steps so far left it: what was read from disk, then what each step made. */
    private static final class Tree {
        private final Workspace workspace;
        private final Map<Path, byte[]> contents = new HashMap<>();
        private final Map<Path, Boolean> large = new HashMap<>();

        Tree(Workspace workspace) {
            this.workspace = workspace;
        }

        byte[] content(Path file) {
            if (!contents.containsKey(file)) {
                contents.put(file, read(file));
            }
            return contents.get(file);
        }

        boolean large(Path file) {
            content(file);
            return large.getOrDefault(file, false);
        }

        long size(Path file) {
            byte[] content = content(file);
            return large(file) ? -1 : content == ABSENT ? -1 : content.length;
        }

        void set(Path file, byte[] content) {
            contents.put(file, content);
            large.remove(file);
        }

        void moved(Path from, Path to) {
            contents.put(to, content(from));
            large.put(to, large(from));
            set(from, ABSENT);
        }

        /** The file's bytes, or null when it is absent, a folder or past {@link #MAX_COMPARED_BYTES}. */
        private byte[] read(Path file) {
            try (InputStream in = Channels.newInputStream(workspace.openRead(file))) {
                byte[] bytes = in.readNBytes(MAX_COMPARED_BYTES + 1);
                if (bytes.length > MAX_COMPARED_BYTES) {
                    large.put(file, true);
                    return ABSENT;
                }
                return bytes;
            } catch (NoSuchFileException absent) {
                return ABSENT;
            } catch (IOException | RuntimeException unreadable) {
                return ABSENT; // a folder or a file that cannot be read: shown as new content
            }
        }
    }
}
