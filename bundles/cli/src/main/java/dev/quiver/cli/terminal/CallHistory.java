package dev.quiver.cli.terminal;

import dev.quiver.api.host.CallOutcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/** The session's finished calls, newest first, so {@code /output N} can show one's whole output again. */
final class CallHistory {

    /** Calls kept: older ones are dropped. */
    static final int KEPT = 50;

    /**
     * One finished call.
     *
     * @param outcome how it ended, with its output as the model got it
     * @param summary what it acted on, as the call's line shows it
     */
    record Entry(CallOutcome outcome, String summary) {
    }

    private final Deque<Entry> entries = new ArrayDeque<>();

    synchronized void add(CallOutcome outcome, String summary) {
        entries.addFirst(new Entry(outcome, summary));
        while (entries.size() > KEPT) {
            entries.removeLast();
        }
    }

    /** The finished calls, newest first. */
    synchronized List<Entry> recent() {
        return new ArrayList<>(entries);
    }

    /** The {@code n}th newest call, 1 being the last. */
    synchronized Optional<Entry> get(int n) {
        return n < 1 || n > entries.size() ? Optional.empty() : Optional.of(new ArrayList<>(entries).get(n - 1));
    }
}
