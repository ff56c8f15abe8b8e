package dev.quiver.cli;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import java.io.PrintStream;

/** Progress of a headless turn, one line per call on standard error; stdout keeps only the answer. */
final class HeadlessListener implements TurnListener {

    private final PrintStream progress;

    HeadlessListener(PrintStream progress) {
        this.progress = progress;
    }

    @Override
    public void notice(String text) {
        progress.println("· " + text);
    }

    @Override
    public void callEnded(CallOutcome outcome) {
        progress.println(CallLine.of(outcome));
    }
}
