package dev.quiver.cli;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Usage;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Progress of a headless turn, one line per call on standard error; stdout keeps only the answer. */
class HeadlessListener implements TurnListener {

    private final PrintStream progress;
    private final List<Usage> steps = new ArrayList<>();

    HeadlessListener(PrintStream progress) {
        this.progress = progress;
    }

    @Override
    public void notice(String text) {
        progress.println("· " + text);
    }

    @Override
    public synchronized void usage(Usage step) {
        steps.add(step);
    }

    /** The usage of each model request of the turn, in order. */
    synchronized List<Usage> steps() {
        return List.copyOf(steps);
    }

    @Override
    public void callEnded(CallOutcome outcome) {
        progress.println(CallLine.of(outcome));
    }
}
