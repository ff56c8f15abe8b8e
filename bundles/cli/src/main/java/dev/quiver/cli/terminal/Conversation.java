package dev.quiver.cli.terminal;

import dev.quiver.api.Shell;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnResult;
import dev.quiver.cli.ApprovalPrompt;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * The terminal's conversation: prompts and slash commands run one at a time on their own thread
 * while the input stays live. What is entered while one runs waits in a queue and runs, in order,
 * when it ends, each as if typed then. {@code esc} aborts the turn and empties the queue;
 * {@code ctrl-c} interrupts the running command, or stops the newest background command, or quits.
 */
public final class Conversation implements AutoCloseable {

    /** What {@code ctrl-c} did. */
    public enum Interrupt {
        /** The running call was interrupted; the turn goes on. */
        CALL,
        /** The newest background command is being stopped. */
        BACKGROUND,
        /** The input line was cleared. */
        CLEARED,
        /** A turn runs without a command: pressing it again quits. */
        WARNED,
        /** Quit. */
        EXIT
    }

    /** Two presses of ctrl-c within this quit while a turn runs. */
    static final long DOUBLE_PRESS_MILLIS = 2000;

    private final Session session;
    private final Commands commands;
    private final Sink sink;
    private final LiveArea live;
    private final Services services;
    private final Approver approver;
    private final boolean color;
    private final ExecutorService worker;
    private final ExecutorService helper;
    private final Deque<String> queue = new ArrayDeque<>();
    private boolean busy;
    private volatile boolean aborting;
    private volatile boolean closed;
    private long lastInterrupt;

    public Conversation(Session session, Commands commands, Sink sink, LiveArea live, Services services,
            Approver approver, boolean color) {
        this.session = session;
        this.commands = commands;
        this.sink = sink;
        this.live = live;
        this.services = services;
        this.approver = approver;
        this.color = color;
        this.worker = Executors.newSingleThreadExecutor(daemon("quiver-turn"));
        this.helper = Executors.newCachedThreadPool(daemon("quiver-stop"));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** A line the user entered: runs now, or waits for the running one when busy. */
    public void submit(String line) {
        if (closed || line.isBlank()) {
            return;
        }
        synchronized (this) {
            if (busy && ApprovalPrompt.isAnswerWord(line)) {
                // typed ahead of a question that had not appeared yet: never a prompt for the model
                live.hint("no question is waiting; \"" + Printable.line(line.strip()) + "\" was not sent. Answer "
                        + "when the question appears.", System.currentTimeMillis() + 5000);
                return;
            }
            if (busy) {
                queue.addLast(line);
                live.queued(new ArrayList<>(queue));
                return;
            }
            busy = true;
            live.busy(System.currentTimeMillis());
        }
        worker.execute(() -> drain(line));
    }

    /** Whether a prompt or a command is running. */
    public synchronized boolean busy() {
        return busy;
    }

    /** The prompts waiting, in order. */
    public synchronized List<String> queued() {
        return new ArrayList<>(queue);
    }

    private void drain(String first) {
        String next = first;
        while (next != null && !closed) {
            try {
                execute(next);
            } catch (RuntimeException e) {
                sink.error(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            }
            synchronized (this) {
                next = queue.pollFirst();
                live.queued(new ArrayList<>(queue));
                if (next == null) {
                    busy = false;
                    live.busy(-1);
                } else {
                    live.busy(System.currentTimeMillis());
                }
            }
        }
    }

    /** Runs one line, a slash command or a prompt, and leaves it on screen as typed. */
    private void execute(String line) {
        echo(line);
        Optional<Commands.Parsed> command = Commands.parse(line);
        Optional<String> commandPrompt = command.flatMap(Commands::prompt);
        if (command.isPresent() && commandPrompt.isEmpty()) {
            commands.run(command.get());
            return;
        }
        aborting = false;
        TurnView view = new TurnView(sink, live, approver, color).recording(commands.history());
        try {
            // a command's own prompt is sent as written: its @ is no path to attach
            TurnResult result = session.send(commandPrompt.isPresent() ? commandPrompt.get()
                    : Attachments.expand(session, line, view, sink), view);
            view.finish(result);
        } catch (HostException e) {
            view.failed(e.getMessage(), aborting || closed);
        } catch (RuntimeException e) {
            view.failed(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), aborting);
        }
    }

    private void echo(String line) {
        String[] lines = line.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            AttributedStringBuilder out = new AttributedStringBuilder();
            out.style(AttributedStyle.BOLD.foreground(AttributedStyle.BLUE)).append(i == 0 ? "› " : "  ");
            out.style(AttributedStyle.BOLD).append(Printable.line(lines[i]));
            sink.line(out.toAttributedString());
        }
    }

    /** {@code esc}: aborts the running turn and drops the queued prompts; whether anything ran. */
    public boolean escape() {
        int dropped;
        synchronized (this) {
            if (!busy) {
                return false;
            }
            dropped = queue.size();
            queue.clear();
            live.queued(List.of());
        }
        aborting = true;
        sink.notice("aborting the turn" + (dropped == 0 ? "" : "; dropped " + dropped + " queued prompt"
                + (dropped == 1 ? "" : "s")));
        session.cancelTurn();
        return true;
    }

    /**
     * {@code ctrl-c}: interrupts the command running in the foreground (the turn goes on); else clears
     * a non-empty input line; else stops the newest background command; else, while a turn runs, asks
     * for a second press; else quits.
     *
     * @param inputEmpty whether the input line is empty
     */
    public Interrupt interrupt(boolean inputEmpty) {
        boolean running = busy();
        if (running && session.interruptCalls()) {
            return Interrupt.CALL;
        }
        if (!inputEmpty) {
            return Interrupt.CLEARED;
        }
        Optional<Shell> shell = services.shell();
        Optional<Shell.Job> job = Optional.empty();
        try {
            job = shell.flatMap(s -> JobsReport.newestRunning(s.jobs()));
        } catch (RuntimeException e) {
            // a shell service that fails cannot stop anything either
        }
        if (job.isPresent()) {
            String handle = job.get().handle();
            sink.notice("stopping " + handle + " (" + CallView.oneLine(job.get().line()) + ")");
            helper.execute(() -> commands.stop(shell.get(), handle));
            return Interrupt.BACKGROUND;
        }
        if (running) {
            long now = System.currentTimeMillis();
            synchronized (this) {
                if (now - lastInterrupt < DOUBLE_PRESS_MILLIS) {
                    return Interrupt.EXIT;
                }
                lastInterrupt = now;
            }
            live.hint("ctrl-c again quits · esc aborts the turn", now + DOUBLE_PRESS_MILLIS);
            return Interrupt.WARNED;
        }
        return Interrupt.EXIT;
    }

    /** Stops taking lines, aborts what runs and waits a moment for it to end. */
    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            queue.clear();
        }
        if (busy()) {
            aborting = true;
            session.cancelTurn();
        }
        worker.shutdown();
        helper.shutdown();
        try {
            worker.awaitTermination(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
