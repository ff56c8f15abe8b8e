package dev.quiver.cli;

import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.UndoReport;
import dev.quiver.cli.terminal.Printable;
import java.util.ArrayList;
import java.util.List;

/**
 * An undo's report and the undoable turns as lines, the same for {@code quiver undo} and {@code /undo}.
 * File names come from the repository, so every line shows its control characters instead of sending
 * them to the terminal: a name cannot clear the screen or forge a line of the preview a person approves.
 */
public final class UndoText {

    private UndoText() {
    }

    /**
     * What an undo restored (or, before it ran, would restore): a line a file with what the turns did
     * and what undo does about it, the files skipped with why, the conversation's rewind, and what no
     * undo brings back.
     */
    public static List<String> lines(UndoReport report) {
        List<String> lines = new ArrayList<>();
        int restored = report.restored().size();
        String turns = report.rewound() > 1 || report.turns().size() > 1
                ? "the last " + Math.max(report.rewound(), report.turns().size()) + " turns" : "the last turn";
        if (report.changes().isEmpty()) {
            lines.add("No file " + turns + " changed needs restoring.");
        } else {
            lines.add((report.applied() ? "Restored " : "Will restore ") + count(restored, "file") + " that " + turns
                    + " changed" + (restored == 0 ? "." : ":"));
        }
        for (UndoReport.Change change : report.restored()) {
            lines.add(String.format("  %-19s  %s", change.kind().shown(), change.path()));
        }
        if (!report.skipped().isEmpty()) {
            lines.add("Not restored:");
            for (UndoReport.Change change : report.skipped()) {
                lines.add("  " + change.path() + " (" + change.kind().shown().replaceFirst(" → .*", "") + "): "
                        + change.skipped().orElseThrow());
            }
        }
        if (report.rewound() > 0) {
            lines.add((report.applied() ? "Rewound" : "Will rewind") + " the conversation by "
                    + count(report.rewound(), "turn") + ".");
        }
        if (!report.notes().isEmpty()) {
            lines.add("Not undone:");
            report.notes().forEach(note -> lines.add("  " + note));
        }
        return shown(lines);
    }

    /** The undoable turns, newest first, with {@code #} the number {@code --to} takes. */
    public static List<String> list(List<Checkpoint> checkpoints) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format("%3s  %-16s  %-22s  %4s  %5s  %s", "#", "started", "session", "turn", "files", "calls"));
        for (Checkpoint checkpoint : checkpoints) {
            lines.add(String.format("%3d  %-16s  %-22s  %4d  %5d  %s", checkpoint.number(),
                    Output.TIME.format(checkpoint.started()), checkpoint.session(), checkpoint.turn(),
                    checkpoint.changedFiles(), String.join(", ", checkpoint.calls())));
        }
        return shown(lines);
    }

    private static List<String> shown(List<String> lines) {
        return lines.stream().map(Printable::visible).toList();
    }

    private static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
