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
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Optional;

/**
 * What a call's dry run would change and what it would answer: shown as a diff before the user
 * approves, then made exactly as recorded. A step that compares a file with what it was made from
 * still compares it when made, so a file changed since the question is refused, not overwritten.
 */
public final class Preview {

    private final RecordingWorkspace recorded;
    private final String result;
    private final String diff;
    private final String summary;

    private Preview(RecordingWorkspace recorded, String result) {
        this.recorded = recorded;
        this.result = result;
        List<Effect> effects = recorded.effects();
        Diffs.Rendered rendered = Diffs.render(recorded.real(), effects);
        this.summary = rendered.summary();
        String changes = rendered.diff();
        long files = summary.lines().count();
        // a cut diff still names every file: the list comes first
        this.diff = files > 1 ? "changes " + files + " files:\n  " + summary.replace("\n", "\n  ") + "\n" + changes
                : changes;
    }

    /**
     * The dry run's outcome, computed now (the diff too, so its cost is the dry run's), or empty when
     * there is nothing to show or what it would do cannot be made exactly as shown: it changed nothing;
     * a file was too large to hold; it moves, copies or links (what is moved is not compared); or two of
     * its changes touch one path (the second was made from the disk, not from the first).
     */
    public static Optional<Preview> of(RecordingWorkspace recorded, String result) {
        List<Effect> effects = recorded.effects();
        if (effects.isEmpty() || recorded.unknowable()) {
            return Optional.empty();
        }
        Set<Path> touched = new HashSet<>();
        for (Effect effect : effects) {
            Set<Path> paths = new HashSet<>();
            for (Step step : effect instanceof Committed committed ? committed.steps() : List.of(((Direct) effect).step())) {
                if (step instanceof Move || step instanceof Copy || step instanceof MakeLink
                        || (step instanceof Permissions && effect instanceof Direct)) {
                    return Optional.empty();
                }
                paths.add(target(step));
            }
            for (Path path : paths) {
                if (!touched.add(path)) {
                    return Optional.empty();
                }
            }
        }
        return Optional.of(new Preview(recorded, result));
    }

    private static Path target(Step step) {
        if (step instanceof Replace replace) {
            return replace.file();
        } else if (step instanceof Delete delete) {
            return delete.file();
        } else if (step instanceof Permissions permissions) {
            return permissions.file();
        }
        return ((MakeFolders) step).folder();
    }

    /** What the call answered in its dry run: its answer once the changes are made. */
    public String result() {
        return result;
    }

    /** The changes as a unified diff, without colour; with several files, a line for each first. */
    public String diff() {
        return diff;
    }

    /** One line per file: {@code src/A.java +3 -1}, for after the call. */
    public String summary() {
        return summary;
    }

    /**
     * Makes the recorded changes in the session's workspace, in order, as the tool asked for them, then
     * tells the read record what was written.
     *
     * @throws IOException as the workspace's change or operation reports it
     */
    public void apply() throws IOException {
        Workspace real = recorded.real();
        for (Effect effect : recorded.effects()) {
            if (effect instanceof Committed committed) {
                Workspace.Change change = real.change(committed.tool());
                for (Step step : committed.steps()) {
                    add(change, step);
                }
                change.commit();
            } else {
                direct(real, ((Direct) effect).step());
            }
        }
        recorded.wrote().forEach(real.reads()::wrote);
    }

    private static void add(Workspace.Change change, Step step) {
        if (step instanceof Replace replace) {
            change.replace(replace.file(), replace.before(), replace.after());
        } else if (step instanceof Permissions permissions) {
            change.permissions(permissions.file(), permissions.permissions());
        } else if (step instanceof Delete delete) {
            change.delete(delete.file(), delete.before());
        } else {
            throw new IllegalStateException("a step a preview does not make: " + step);
        }
    }

    private void direct(Workspace real, Step step) throws IOException {
        if (step instanceof Replace replace) {
            real.change(recorded.tool()).replace(replace.file(), replace.before(), replace.after()).commit();
        } else if (step instanceof Delete delete && delete.before() != null) {
            // compared with what the question showed: a file saved meanwhile is not deleted
            real.change(recorded.tool()).delete(delete.file(), delete.before()).commit();
        } else if (step instanceof Delete delete) {
            real.delete(delete.file()); // a link or an empty folder: nothing to compare
        } else if (step instanceof MakeFolders folders) {
            real.createDirectories(folders.folder());
        } else {
            throw new IllegalStateException("a step a preview does not make: " + step);
        }
    }
}
