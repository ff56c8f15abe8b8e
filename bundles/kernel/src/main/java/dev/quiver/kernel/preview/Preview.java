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
import java.io.IOException;
import java.util.Optional;

/**
 * What a call's dry run would change and what it would answer: shown as a diff before the user
 * approves, then made exactly as recorded. A step that compares a file with what it was made from
 * still compares it when made, so a file changed since the question is refused, not overwritten.
 */
public final class Preview {

    private final RecordingWorkspace recorded;
    private final String result;

    private Preview(RecordingWorkspace recorded, String result) {
        this.recorded = recorded;
        this.result = result;
    }

    /** The dry run's outcome, or empty when it changed nothing (there is nothing to show or make). */
    public static Optional<Preview> of(RecordingWorkspace recorded, String result) {
        return recorded.effects().isEmpty() ? Optional.empty() : Optional.of(new Preview(recorded, result));
    }

    /** What the call answered in its dry run: its answer once the changes are made. */
    public String result() {
        return result;
    }

    /** The changes as a unified diff, without colour. */
    public String diff() {
        return Diffs.describe(recorded.real(), recorded.effects());
    }

    /** One line per file: {@code src/A.java +3 -1}, for after the call. */
    public String summary() {
        return Diffs.summary(recorded.real(), recorded.effects());
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
        if (step instanceof Write write) {
            change.write(write.file(), write.content());
        } else if (step instanceof Replace replace) {
            change.replace(replace.file(), replace.before(), replace.after());
        } else if (step instanceof Permissions permissions) {
            change.permissions(permissions.file(), permissions.permissions());
        } else if (step instanceof Delete delete) {
            change.delete(delete.file(), delete.before());
        } else if (step instanceof Move move) {
            change.move(move.from(), move.to());
        } else if (step instanceof Copy copy) {
            change.copy(copy.from(), copy.to());
        } else {
            throw new IllegalStateException("not a step of a change: " + step);
        }
    }

    private static void direct(Workspace real, Step step) throws IOException {
        if (step instanceof Write write) {
            real.write(write.file(), write.content());
        } else if (step instanceof Delete delete) {
            real.delete(delete.file());
        } else if (step instanceof Move move) {
            real.move(move.from(), move.to());
        } else if (step instanceof Copy copy) {
            real.copy(copy.from(), copy.to());
        } else if (step instanceof MakeFolders folders) {
            real.createDirectories(folders.folder());
        } else if (step instanceof MakeLink link) {
            real.createLink(link.link(), link.target());
        } else if (step instanceof Permissions permissions) {
            real.setPermissions(permissions.file(), permissions.permissions());
        } else {
            throw new IllegalStateException("not a workspace operation: " + step);
        }
    }
}
