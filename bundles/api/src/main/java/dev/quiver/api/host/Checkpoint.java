package dev.quiver.api.host;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A turn whose file changes can be undone, as {@code quiver undo --list} shows it.
 *
 * @param number 1 for the newest turn not yet undone, 2 for the one before it, and so on: undoing
 *     {@code N} turns undoes those numbered 1 to {@code N}
 * @param session the id of the session the turn was in
 * @param turn the turn's number in its session
 * @param started when its first checkpoint was taken (before its first call that could change files)
 * @param changedFiles how many files it changed, created or deleted, as its checkpoints show
 * @param calls the calls it ran that could change files, with their access class, in order
 *     ({@code bash (execute)}, {@code edit_file (write)})
 * @since 1.2
 */
public record Checkpoint(int number, String session, int turn, Instant started, int changedFiles, List<String> calls) {

    public Checkpoint {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(started, "started");
        calls = List.copyOf(calls);
    }
}
