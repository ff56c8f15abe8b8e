package dev.quiver.cli.terminal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * The live part of the terminal, drawn between the finished lines and the input line and redrawn
 * on every refresh: the answer's unfinished line, the running call with the last lines of its
 * output, the queued prompts, a status line while a turn runs, and the question of an approval.
 * {@link #render} is a pure function of this state and the time, so it is tested without a terminal.
 */
public final class LiveArea implements Live {

    /** Output lines of the running call kept on screen. */
    static final int OUTPUT_LINES = 6;
    /** Queued prompts shown; the rest are counted. */
    static final int QUEUED_LINES = 4;
    private static final String SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
    static final AttributedStyle QUESTION = AttributedStyle.BOLD.foreground(AttributedStyle.YELLOW);

    private List<AttributedString> tail = List.of();
    private String callTool;
    private String callSummary;
    private long callStarted;
    private final Deque<String> output = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private List<String> queued = List.of();
    private long busySince = -1;
    private String question;
    /** The options a question offers, drawn afresh at each render (the cursor moves); null while none are. */
    private java.util.function.IntFunction<List<AttributedString>> choices;
    /** When the question on screen appeared, in epoch millis; -1 while none is. */
    private long questionSince = -1;
    private String hint;
    private long hintUntil;
    private long version;

    @Override
    public synchronized void tail(List<AttributedString> lines) {
        tail = List.copyOf(lines);
        version++;
    }

    @Override
    public synchronized void callStarted(String tool, String summary) {
        callTool = tool;
        callSummary = summary;
        callStarted = System.currentTimeMillis();
        output.clear();
        partial.setLength(0);
        version++;
    }

    @Override
    public synchronized void callOutput(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                output.addLast(Printable.line(partial.toString()));
                partial.setLength(0);
                while (output.size() > OUTPUT_LINES) {
                    output.removeFirst();
                }
            } else {
                partial.append(c);
            }
        }
        if (partial.length() > 4096) {
            partial.delete(0, partial.length() - 4096);
        }
        version++;
    }

    @Override
    public synchronized void callEnded() {
        callTool = null;
        output.clear();
        partial.setLength(0);
        version++;
    }

    @Override
    public boolean showsOutput() {
        return true;
    }

    /** The prompts waiting for the turn to end. */
    public synchronized void queued(List<String> prompts) {
        queued = List.copyOf(prompts);
        version++;
    }

    /** A turn or command started ({@code since} in epoch millis), or ended ({@code -1}). */
    public synchronized void busy(long since) {
        busySince = since;
        if (since < 0) {
            tail = List.of();
            callTool = null;
        }
        version++;
    }

    /** The question the input line answers now (an approval's choices), or null for a prompt. */
    public synchronized void question(String text) {
        question(text, System.currentTimeMillis());
    }

    /**
     * As {@link #question(String)} at {@code now}: the time a question waits for its answer is the
     * user's, so the turn's and the call's timers leave it out, as the turn's last line does.
     */
    synchronized void question(String text, long now) {
        if (text != null && questionSince < 0) {
            questionSince = now;
        } else if (text == null && questionSince >= 0) {
            long waited = Math.max(0, now - questionSince);
            busySince = busySince >= 0 ? busySince + waited : busySince;
            callStarted += waited;
            questionSince = -1;
        }
        question = text;
        version++;
    }

    /** The options drawn above the question line, for the width; null to remove them. */
    public synchronized void choices(java.util.function.IntFunction<List<AttributedString>> lines) {
        choices = lines;
    }

    /** Whether the input line answers a question now. */
    public synchronized boolean asking() {
        return question != null;
    }

    /** A short remark under the live area until {@code until} (epoch millis). */
    public synchronized void hint(String text, long until) {
        hint = text;
        hintUntil = until;
        version++;
    }

    /** Changes with every update, so a refresh can skip an unchanged state. */
    public synchronized long version() {
        return version;
    }

    /** The input line's own prompt: {@code › } for a request, {@code ? } for an answer. */
    public synchronized String prompt() {
        return question != null ? "? " : "› ";
    }

    /**
     * The live lines as they look now, above the input line.
     *
     * @param width the terminal's width (columns)
     * @param height the terminal's height; the lines are kept to fewer rows than this, dropping the
     *     top of the unfinished answer first
     * @param now the time, epoch millis, for the spinner and the running times
     */
    public synchronized List<AttributedString> render(int width, int height, long now) {
        int columns = width > 0 ? width : 80;
        List<AttributedString> below = new ArrayList<>();
        String spin = String.valueOf(SPINNER.charAt((int) ((now / 100) % SPINNER.length())));
        if (callTool != null && question == null) {
            AttributedStringBuilder line = new AttributedStringBuilder();
            line.style(AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN)).append(spin).append(' ');
            line.style(AttributedStyle.BOLD).append(callTool);
            String time = " · " + seconds(Math.max(0, now - callStarted)) + " · ctrl-c stops it";
            String summary = callSummary == null || callSummary.isEmpty() ? "" : "  " + callSummary;
            int room = Math.max(0, columns - 3 - callTool.length() - time.length());
            line.style(AttributedStyle.DEFAULT).append(Printable.cut(summary, room));
            line.style(Markdown.FAINT).append(time);
            below.add(line.toAttributedString());
            List<String> lines = new ArrayList<>(output);
            if (partial.length() > 0) {
                lines.add(Printable.line(partial.toString()));
            }
            for (int i = Math.max(0, lines.size() - OUTPUT_LINES); i < lines.size(); i++) {
                below.add(new AttributedString("  ▏ " + Printable.cut(lines.get(i), Math.max(1, columns - 5)), Markdown.FAINT));
            }
        }
        for (int i = 0; i < queued.size() && i < QUEUED_LINES; i++) {
            String first = Printable.line(Printable.firstLine(queued.get(i)));
            below.add(new AttributedString(Printable.cut("queued › " + first, columns - 1), Markdown.FAINT));
        }
        if (queued.size() > QUEUED_LINES) {
            below.add(new AttributedString("queued › … " + (queued.size() - QUEUED_LINES) + " more", Markdown.FAINT));
        }
        if (question != null) {
            if (choices != null) {
                below.addAll(choices.apply(columns));
            }
            below.add(new AttributedString(question, QUESTION));
        } else if (busySince >= 0 && callTool == null) {
            AttributedStringBuilder line = new AttributedStringBuilder();
            line.style(AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN)).append(spin);
            line.style(Markdown.FAINT).append(" working · " + seconds(Math.max(0, now - busySince))
                    + " · esc aborts" + (queued.isEmpty() ? "" : " · " + queued.size() + " queued"));
            below.add(line.toAttributedString());
        }
        if (hint != null && now < hintUntil) {
            below.add(new AttributedString(hint, Markdown.FAINT));
        }
        int budget = Math.max(1, (height > 0 ? height : 24) - 2 - rows(below, columns));
        List<AttributedString> shown = new ArrayList<>();
        int used = 0;
        for (int i = tail.size() - 1; i >= 0; i--) {
            int rows = rows(tail.get(i), columns);
            if (used + rows > budget) {
                break;
            }
            used += rows;
            shown.add(0, tail.get(i));
        }
        shown.addAll(below);
        return shown;
    }

    /** Whole seconds, so the line does not change on every refresh: {@code 4 s}, {@code 2m 05s}. */
    static String seconds(long millis) {
        long seconds = millis / 1000;
        return seconds < 60 ? seconds + " s" : String.format(java.util.Locale.ROOT, "%dm %02ds", seconds / 60, seconds % 60);
    }

    private static int rows(List<AttributedString> lines, int columns) {
        int rows = 0;
        for (AttributedString line : lines) {
            rows += rows(line, columns);
        }
        return rows;
    }

    static int rows(AttributedString line, int columns) {
        int length = line.columnLength();
        return Math.max(1, (length + columns - 1) / columns);
    }
}
