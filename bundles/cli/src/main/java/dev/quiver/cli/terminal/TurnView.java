package dev.quiver.cli.terminal;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.cli.UsageLine;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;

/**
 * Shows one turn as it goes. Answer text arrives in pieces: each finished line is rendered as
 * Markdown and printed once, the unfinished rest is drawn live (and redrawn as it grows). A call
 * shows live while it runs, with its output streaming beneath it, and leaves one line with its
 * outcome. Without a live area (line mode) the output is printed as it arrives instead.
 *
 * <p>Called from the turn's thread, the model's streaming thread and the tools' threads.
 */
public final class TurnView implements TurnListener {

    private final Sink sink;
    private final Live live;
    private final Approver approver;
    private final Markdown markdown;
    private final StringBuilder pending = new StringBuilder();
    private final Deque<String> summaries = new ArrayDeque<>();
    private final StringBuilder output = new StringBuilder();
    private final long started = System.currentTimeMillis();
    private String runningTool;
    private String runningSummary;
    private boolean headerShown;
    private long waited;
    private CallHistory history = new CallHistory();

    /**
     * @param color whether lines carry styles
     */
    public TurnView(Sink sink, Live live, Approver approver, boolean color) {
        this.sink = sink;
        this.live = live;
        this.approver = approver;
        this.markdown = new Markdown(color);
        markdown.width(sink.width());
    }

    @Override
    public synchronized void text(String text) {
        pending.append(text);
        int newline;
        while ((newline = pending.indexOf("\n")) >= 0) {
            String line = pending.substring(0, newline);
            pending.delete(0, newline + 1);
            sink.lines(markdown.line(line));
        }
        live.tail(pending.length() == 0 ? markdown.peekHeld() : markdown.peek(pending.toString()));
    }

    /** Prints the unfinished line as finished: a call, a notice or the end of the turn comes next. */
    public synchronized void endText() {
        if (pending.length() > 0) {
            sink.lines(markdown.line(pending.toString()));
            pending.setLength(0);
            live.tail(List.of());
        }
        // a table's rows are held until its end: the answer's end is one
        List<AttributedString> held = markdown.finish();
        if (!held.isEmpty()) {
            sink.lines(held);
            live.tail(List.of());
        }
    }

    @Override
    public synchronized void notice(String text) {
        endText();
        sink.notice(text);
    }

    @Override
    public synchronized void callStarted(String tool, String arguments) {
        endText();
        String summary = CallView.summary(arguments);
        summaries.addLast(summary);
        runningTool = tool;
        runningSummary = summary;
        headerShown = false;
        waited = 0;
        output.setLength(0);
        live.callStarted(tool, summary);
    }

    @Override
    public synchronized void callOutput(String tool, String text) {
        if (live.showsOutput()) {
            live.callOutput(text);
            return;
        }
        output.append(text);
        int newline;
        while ((newline = output.indexOf("\n")) >= 0) {
            printOutput(output.substring(0, newline));
            output.delete(0, newline + 1);
        }
    }

    private void printOutput(String line) {
        if (!headerShown) {
            headerShown = true;
            sink.line(new AttributedString("· " + (runningTool == null ? "" : runningTool)
                    + (runningSummary == null || runningSummary.isEmpty() ? "" : "  " + runningSummary), Markdown.FAINT));
        }
        sink.line(new AttributedString("  ▏ " + Printable.line(line), Markdown.FAINT));
    }

    @Override
    public synchronized void callEnded(CallOutcome outcome) {
        if (output.length() > 0) {
            printOutput(output.toString());
            output.setLength(0);
        }
        live.callEnded();
        String summary = summaries.isEmpty() ? "" : summaries.removeFirst();
        runningTool = null;
        // the time the person took to answer is not the call's
        CallOutcome shown = waited == 0 ? outcome : new CallOutcome(outcome.tool(), outcome.status(), outcome.output(),
                Math.max(0, outcome.elapsedMillis() - waited), outcome.verdict());
        waited = 0;
        sink.line(CallView.line(shown, summary, sink.width()));
        history.add(shown, summary);
    }

    /** Keeps every finished call of this turn in {@code calls}, for {@code /output}. */
    TurnView recording(CallHistory calls) {
        this.history = calls;
        return this;
    }

    @Override
    public Approval approve(ApprovalRequest request) {
        endText();
        long asked = System.currentTimeMillis();
        try {
            return approver.approve(request);
        } finally {
            synchronized (this) {
                waited += System.currentTimeMillis() - asked;
            }
        }
    }

    @Override
    public java.util.Optional<List<String>> ask(dev.quiver.api.UserQuestion question) {
        endText();
        long asked = System.currentTimeMillis();
        try {
            return approver.ask(question);
        } finally {
            synchronized (this) {
                waited += System.currentTimeMillis() - asked;
            }
        }
    }

    /** The turn ended: the rest of the answer, a note when the step limit stopped it, and what it used. */
    public synchronized void finish(TurnResult result) {
        endText();
        if (result.status() == TurnResult.Status.STEP_LIMIT) {
            sink.notice("stopped at the step limit before the task was done; say \"go on\" to continue");
        }
        AttributedStringBuilder line = new AttributedStringBuilder().style(Markdown.FAINT);
        line.append("· " + UsageLine.of(result.usage()) + " · " + CallView.duration(System.currentTimeMillis() - started));
        sink.line(line.toAttributedString());
    }

    /** The turn failed or was aborted. */
    public synchronized void failed(String message, boolean aborted) {
        endText();
        live.callEnded();
        if (aborted) {
            sink.notice("turn aborted");
        } else {
            sink.error(message);
        }
    }
}
