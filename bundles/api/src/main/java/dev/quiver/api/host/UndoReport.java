package dev.quiver.api.host;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an undo restored, or what it would restore when it only looked.
 *
 * @param turns the turns it covers, newest first
 * @param changes every file those turns changed, created or deleted that is not as it was before them,
 *     by path, and what undo does with it
 * @param notes what undo cannot bring back, each a sentence for the user: what commands did beyond the
 *     recorded files (network, processes, ignored build output, files outside the workspace), files
 *     that were never recorded and why
 * @param applied whether files were changed; false when it only looked
 * @param rewound how many turns the conversation was (or would be) rewound by; 0 outside a session
 * @since 1.2
 */
public record UndoReport(List<Checkpoint> turns, List<Change> changes, List<String> notes, boolean applied,
        int rewound) {

    public UndoReport {
        turns = List.copyOf(turns);
        changes = List.copyOf(changes);
        notes = List.copyOf(notes);
    }

    /** The changes that are (or would be) restored. */
    public List<Change> restored() {
        return changes.stream().filter(change -> change.skipped().isEmpty()).toList();
    }

    /** The changes that are not restored, each with why. */
    public List<Change> skipped() {
        return changes.stream().filter(change -> change.skipped().isPresent()).toList();
    }

    /**
     * One file the undone turns changed.
     *
     * @param path relative to the workspace root, with {@code /} separators
     * @param kind what the turns did to it, which undo reverses
     * @param skipped why it is not restored; empty when it is
     */
    public record Change(String path, Kind kind, Optional<String> skipped) {

        public Change {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(skipped, "skipped");
        }
    }

    /** What the undone turns did to a file. */
    public enum Kind {
        /** Changed its content or mode: undo restores it. */
        MODIFIED("modified", "restored"),
        /** Created it: undo deletes it. */
        CREATED("created", "deleted"),
        /** Deleted it: undo recreates it. */
        DELETED("deleted", "recreated");

        private final String done;
        private final String undone;

        Kind(String done, String undone) {
            this.done = done;
            this.undone = undone;
        }

        /**
         * How a front end shows it: {@code modified → restored}, {@code created → deleted},
         * {@code deleted → recreated}.
         */
        public String shown() {
            return done + " → " + undone;
        }
    }
}
