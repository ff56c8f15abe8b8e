package dev.quiver.cli.terminal;

import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.cli.ApprovalPrompt;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jline.keymap.KeyMap;
import org.jline.reader.Binding;
import org.jline.reader.Buffer;
import org.jline.reader.Candidate;
import org.jline.reader.CompletingParsedLine;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.MaskingCallback;
import org.jline.reader.ParsedLine;
import org.jline.reader.Parser;
import org.jline.reader.Reference;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.CompletionMatcherImpl;
import org.jline.reader.impl.LineReaderImpl;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * The interactive terminal on JLine 3.
 *
 * <p>The screen has two parts. Finished lines (the answer line by line, one line per call, notices)
 * are printed once above the prompt and never redrawn. Below them, as part of the prompt, the live
 * area is redrawn on a 50 ms tick, not per token: the answer's unfinished line, the running call
 * with the tail of its output, queued prompts, a status line and the question of an approval. JLine
 * redraws only what changed, so the screen does not flicker.
 *
 * <p>One line reader runs on the calling thread for the whole session; turns and slash commands
 * run on the conversation's own thread, so the input stays live while the model works. {@code esc},
 * {@code ctrl-c}, {@code enter} and the rest are key bindings: {@code ctrl-c} reaches the reader as
 * a key (the terminal's interrupt character is turned off) instead of a signal.
 */
public final class JLineFrontEnd implements Approver {

    private static final Logger LOG = Logger.getLogger(JLineFrontEnd.class.getName());
    static final long TICK_MILLIS = 50;
    static final int COMPLETIONS = 60;

    private final Launch launch;
    private final Terminal terminal;
    private final boolean color;
    private final LiveArea live = new LiveArea();
    private final ConcurrentLinkedQueue<AttributedString> finished = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean exiting = new AtomicBoolean();
    private final AtomicBoolean toolsChanged = new AtomicBoolean();
    private final Sink sink = new Sink() {
        @Override
        public void line(AttributedString line) {
            finished.add(line);
        }

        @Override
        public int width() {
            return terminal.getWidth();
        }
    };
    private Session session;
    private LineReaderImpl reader;
    private Conversation conversation;
    private volatile Thread readerThread;
    private volatile Pending approval;
    /** Held while a question waits for the input line, so that two never share it. */
    private final Object asking = new Object();
    private volatile Workspace workspace;
    private List<String> offered = List.of();
    private final RankedMatcher matcher = new RankedMatcher();
    /** Held while the ticker or the reader thread prints finished lines, so they keep their order. */
    private final Object drawing = new Object();
    private volatile String shownPrompt = "";
    // handed from the ticker to the refresh widget, which runs on the ticker's thread
    private List<AttributedString> refreshLines;
    private String refreshPrompt;

    /**
     * An approval, a yes-or-no question ({@code request} null) or a tool's question ({@code picker} set), the
     * input line is answering. One at a time: {@link #asking} keeps a second from taking the line meanwhile.
     */
    private static final class Pending {
        final ApprovalRequest request;
        final CompletableFuture<Approval> answer = new CompletableFuture<>();
        /** A tool's question: its options and cursor, and the answer (empty: dismissed). */
        QuestionPicker picker;
        final CompletableFuture<Optional<List<String>>> picked = new CompletableFuture<>();
        volatile boolean instead;
        volatile String stash;
        /** The diff whose folded lines {@code d} shows; null once shown or when there is none. */
        volatile DiffView folded;

        Pending(ApprovalRequest request) {
            this.request = request;
        }
    }

    /**
     * A front end on a terminal: the system's, or one on streams in tests.
     *
     * @param terminal the terminal; closed when the session ends
     */
    static {
        // box-drawing characters as Unicode, never through the terminal's alternate character set
        if (System.getProperty(org.jline.terminal.TerminalBuilder.PROP_DISABLE_ALTERNATE_CHARSET) == null) {
            System.setProperty(org.jline.terminal.TerminalBuilder.PROP_DISABLE_ALTERNATE_CHARSET, "true");
        }
    }

    public JLineFrontEnd(Launch launch, Terminal terminal) {
        this.launch = launch;
        this.terminal = terminal;
        this.color = !launch.environment().containsKey("NO_COLOR") && !Terminal.TYPE_DUMB.equals(terminal.getType());
    }

    /** Runs the session until the user quits; the exit code. */
    public int run() {
        try {
            Attributes attributes = terminal.getAttributes();
            attributes.setLocalFlag(Attributes.LocalFlag.ISIG, false);
            terminal.setAttributes(attributes);
            TrustQuestion.ask(launch, prompt -> {
                try {
                    return LineReaderBuilder.builder().terminal(terminal).build().readLine(prompt);
                } catch (UserInterruptException | EndOfFileException e) {
                    return null;
                }
            }).ifPresent(line -> print(new AttributedString(line)));
            try {
                session = launch.kernel().open(launch.options());
            } catch (HostException e) {
                print(new AttributedString("quiver: " + e.getMessage(), AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
                return 1;
            }
            try {
                print(StartupHeader.lines(launch.version(), session, StartupHeader.sandbox(launch.services(), session),
                        launch.options().yolo(), launch.options().readOnly()));
                if (session.model().isEmpty()) {
                    print(new AttributedString("quiver: No model configured. Pass --model openai/NAME (and --base-url URL "
                            + "for an OpenAI-compatible server), or set \"model\" in .quiver/config.json.",
                            AttributedStyle.DEFAULT.foreground(AttributedStyle.RED)));
                    return 1;
                }
                print(List.of(StartupHeader.keys()));
                if (launch.firstPrompt().isEmpty()) {
                    // the person types the first prompt now: the time to walk the workspace (a first prompt
                    // given on the command line starts it once the model's answer streams)
                    session.warmUp();
                }
                return loop();
            } finally {
                session.close();
            }
        } finally {
            try {
                terminal.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing the terminal", e);
            }
        }
    }

    /**
     * The line loop. While it owns the terminal, anything a bundle writes to {@code System.err}
     * (an MCP server that died, say) becomes a finished line above the prompt, not bytes over it.
     */
    private int loop() {
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(new LineOutput(sink::notice), true, StandardCharsets.UTF_8));
        try {
            return readLines();
        } finally {
            System.setErr(stderr);
        }
    }

    private int readLines() {
        reader = buildReader();
        Commands commands = new Commands(launch.kernel(), session, launch.services(), sink, this, this::requestExit);
        conversation = new Conversation(session, commands, sink, live, launch.services(), this, color);
        offered = names(session.tools());
        AutoCloseable watch = session.onToolsChanged(() -> toolsChanged.set(true));
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "quiver-render");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleWithFixedDelay(this::refresh, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        readerThread = Thread.currentThread();
        launch.firstPrompt().ifPresent(first -> {
            // up-arrow brings it back, as if it had been typed
            reader.getHistory().add(first);
            conversation.submit(first);
        });
        String carry = null;
        try {
            while (!exiting.get()) {
                String line;
                try {
                    String prompt;
                    synchronized (drawing) {
                        // as in refresh: the prompt first, then what finished before it, printed above it
                        prompt = prompt();
                        List<AttributedString> before = drain();
                        if (!before.isEmpty()) {
                            print(before);
                        }
                        shownPrompt = prompt;
                    }
                    line = reader.readLine(prompt, null, (MaskingCallback) null, carry);
                    carry = null;
                } catch (UserInterruptException e) {
                    carry = e.getPartialLine();
                    continue;
                } catch (EndOfFileException e) {
                    break;
                } catch (RuntimeException | LinkageError e) {
                    // a failing completer or widget must not end the session
                    LOG.log(Level.WARNING, "the line reader failed", e);
                    sink.error("the terminal failed: " + e);
                    carry = null;
                    continue;
                }
                if (!exiting.get()) {
                    conversation.submit(line);
                }
            }
        } finally {
            exiting.set(true);
            Thread.interrupted();
            Pending pending = approval;
            if (pending != null) {
                pending.answer.complete(Approval.deny(""));
                pending.picked.complete(Optional.empty());
            }
            conversation.close();
            ticker.shutdown();
            try {
                ticker.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List<AttributedString> rest = drain();
            if (!rest.isEmpty()) {
                print(rest);
            }
            try {
                watch.close();
            } catch (Exception e) {
                LOG.log(Level.FINE, "closing the tool watch", e);
            }
            try {
                reader.getHistory().save();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "saving the prompt history", e);
            }
        }
        return 0;
    }

    private LineReaderImpl buildReader() {
        Path history = launch.historyFile(session.workspace());
        try {
            Files.createDirectories(history.getParent());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot create " + history.getParent(), e);
        }
        LineReaderImpl built = (LineReaderImpl) LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("quiver")
                .parser(new WordParser())
                .completer(this::complete)
                .completionMatcher(matcher)
                .variable(LineReader.HISTORY_FILE, history)
                .variable(LineReader.HISTORY_SIZE, 2000)
                .variable(LineReader.HISTORY_FILE_SIZE, 10000)
                .variable(LineReader.SECONDARY_PROMPT_PATTERN, "  ")
                .variable(LineReader.AMBIGUOUS_BINDING, 150L)
                .variable(LineReader.LIST_MAX, COMPLETIONS + 1)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .option(LineReader.Option.ERASE_LINE_ON_FINISH, true)
                .option(LineReader.Option.INSERT_TAB, false)
                .option(LineReader.Option.HISTORY_IGNORE_SPACE, false)
                .build();
        built.getWidgets().put("quiver-accept", this::accept);
        built.getWidgets().put("quiver-newline", () -> {
            built.getBuffer().write("\n");
            return true;
        });
        built.getWidgets().put("quiver-escape", this::escape);
        built.getWidgets().put("quiver-interrupt", this::interrupt);
        built.getWidgets().put("quiver-refresh", this::refreshWidget);
        built.getWidgets().put("quiver-stash", this::stash);
        built.getWidgets().put("quiver-up", () -> pickerMove(true, LineReader.UP_LINE_OR_SEARCH));
        built.getWidgets().put("quiver-down", () -> pickerMove(false, LineReader.DOWN_LINE_OR_SEARCH));
        built.getWidgets().put("quiver-pick", this::pickerKey);
        KeyMap<Binding> main = built.getKeyMaps().get(LineReader.MAIN);
        // ctrl-j sends too: an enter typed before the terminal was in raw mode arrives as \n
        main.bind(new Reference("quiver-accept"), "\r", "\n");
        main.bind(new Reference("quiver-newline"), KeyMap.alt('\r'), KeyMap.alt('\n'));
        main.bind(new Reference("quiver-escape"), KeyMap.esc());
        main.bind(new Reference("quiver-interrupt"), KeyMap.ctrl('C'));
        // arrows as terminals send them outside keypad mode too, so a lone escape never eats them
        main.bind(new Reference("quiver-up"), "\033[A", "\033OA");
        main.bind(new Reference("quiver-down"), "\033[B", "\033OB");
        // a question's number keys and space move and tick; elsewhere they are typed as always
        main.bind(new Reference("quiver-pick"), " ", "1", "2", "3", "4", "5", "6", "7", "8", "9");
        main.bind(new Reference(LineReader.FORWARD_CHAR), "\033[C");
        main.bind(new Reference(LineReader.BACKWARD_CHAR), "\033[D");
        main.bind(new Reference(LineReader.BEGINNING_OF_LINE), "\033[H", "\033[1~");
        main.bind(new Reference(LineReader.END_OF_LINE), "\033[F", "\033[4~");
        return built;
    }

    // ---- key bindings (they run on the reader's thread, holding its lock) ----

    private boolean accept() {
        Buffer buffer = reader.getBuffer();
        Pending pending = approval;
        if (pending != null && pending.picker != null) {
            Optional<List<String>> chosen = pending.picker.answer(buffer.toString());
            if (chosen.isPresent()) {
                release(pending);
                pending.picked.complete(chosen);
            } else {
                live.hint("type an answer, or esc to dismiss the question", System.currentTimeMillis() + 4000);
            }
            return true;
        }
        if (pending != null) {
            answer(pending, buffer.toString());
            return true;
        }
        String text = buffer.toString();
        if (text.endsWith("\\") && buffer.cursor() == text.length()) {
            buffer.backspace();
            buffer.write("\n");
            return true;
        }
        return reader.getBuiltinWidgets().get(LineReader.ACCEPT_LINE).apply();
    }

    private void answer(Pending pending, String text) {
        Buffer buffer = reader.getBuffer();
        if (pending.request == null) {
            finish(pending, ApprovalPrompt.yes(text) ? Approval.once() : Approval.deny(""));
            return;
        }
        if (pending.instead) {
            finish(pending, Approval.deny(text.strip()));
            return;
        }
        DiffView folded = pending.folded;
        if (folded != null && text.strip().equalsIgnoreCase(DiffView.KEY)) {
            pending.folded = null;
            sink.lines(folded.rest());
            buffer.clear();
            return;
        }
        ApprovalPrompt.Reading reading = ApprovalPrompt.read(text, pending.request);
        if (reading.approval() != null) {
            finish(pending, reading.approval());
        } else if (reading.askInstead()) {
            pending.instead = true;
            buffer.clear();
            live.question("What should it do instead? (enter to skip)");
        } else {
            buffer.clear();
            live.hint(pending.request.pattern().isPresent() ? "answer y, a or n" : "answer y or n",
                    System.currentTimeMillis() + 4000);
        }
    }

    /** Answers an approval and gives the input line back what was typed before it came. */
    private void finish(Pending pending, Approval answer) {
        release(pending);
        pending.answer.complete(answer);
    }

    /** Takes the question off the screen and gives the input line back what was typed before it came. */
    private void release(Pending pending) {
        if (approval == pending) {
            approval = null;
            live.question(null);
            live.choices(null);
            live.hint(null, 0);
        }
        Buffer buffer = reader.getBuffer();
        buffer.clear();
        if (pending.stash != null) {
            buffer.write(pending.stash);
        }
    }

    /** Dismisses a tool's question (esc, ctrl-c): the turn goes on, the model is told to use its judgement. */
    private boolean dismissed(Pending pending) {
        if (pending == null || pending.picker == null) {
            return false;
        }
        release(pending);
        pending.picked.complete(Optional.empty());
        return true;
    }

    /** Up and down move a question's cursor; otherwise they do what they always do. */
    private boolean pickerMove(boolean up, String otherwise) {
        Pending pending = approval;
        if (pending != null && pending.picker != null) {
            if (up) {
                pending.picker.up();
            } else {
                pending.picker.down();
            }
            return true;
        }
        return reader.getBuiltinWidgets().get(otherwise).apply();
    }

    /** A number key or space on an empty line moves or ticks a question's options; otherwise it is typed. */
    private boolean pickerKey() {
        Pending pending = approval;
        String key = reader.getLastBinding();
        if (pending != null && pending.picker != null && pending.picker.hasOptions() && reader.getBuffer().length() == 0
                && key != null && key.length() == 1) {
            if (key.equals(" ")) {
                pending.picker.toggle();
            } else {
                pending.picker.select(key.charAt(0) - '1');
            }
            return true;
        }
        return reader.getBuiltinWidgets().get(LineReader.SELF_INSERT).apply();
    }

    private boolean escape() {
        Pending pending = approval;
        if (dismissed(pending)) {
            return true;
        }
        if (pending != null) {
            finish(pending, Approval.deny(""));
        }
        conversation.escape();
        return true;
    }

    private boolean interrupt() {
        Pending pending = approval;
        if (dismissed(pending)) {
            return true;
        }
        if (pending != null) {
            finish(pending, Approval.deny(""));
            return true;
        }
        Buffer buffer = reader.getBuffer();
        switch (conversation.interrupt(buffer.length() == 0)) {
            case CLEARED -> buffer.clear();
            case EXIT -> {
                exiting.set(true);
                buffer.clear();
                return reader.getBuiltinWidgets().get(LineReader.ACCEPT_LINE).apply();
            }
            default -> {
                // the conversation said what it did
            }
        }
        return true;
    }

    private boolean stash() {
        Pending pending = approval;
        if (pending != null && pending.stash == null) {
            Buffer buffer = reader.getBuffer();
            pending.stash = buffer.toString();
            buffer.clear();
        }
        return true;
    }

    /** Quits from another thread (a queued {@code /exit}): the reader is woken by an interrupt. */
    private void requestExit() {
        if (exiting.getAndSet(true)) {
            return;
        }
        Pending pending = approval;
        if (pending != null) {
            pending.answer.complete(Approval.deny(""));
            pending.picked.complete(Optional.empty());
        }
        Thread thread = readerThread;
        if (thread != null) {
            thread.interrupt();
        }
    }

    // ---- approvals (on the turn's thread) ----

    @Override
    public boolean confirm(String question) {
        synchronized (asking) {
            return confirmNow(question);
        }
    }

    private boolean confirmNow(String question) {
        if (exiting.get()) {
            return false;
        }
        sink.line(new AttributedString("? " + question, LiveArea.QUESTION));
        Approval answer = await(new Pending(null), "y yes | n no");
        sink.line(new AttributedString("  → " + (answer.choice() == Approval.Choice.ONCE ? "yes" : "no"), Markdown.FAINT));
        return answer.choice() == Approval.Choice.ONCE;
    }

    @Override
    public Approval approve(ApprovalRequest request) {
        synchronized (asking) {
            return approveNow(request);
        }
    }

    private Approval approveNow(ApprovalRequest request) {
        if (exiting.get()) {
            return Approval.deny("");
        }
        AttributedStringBuilder head = new AttributedStringBuilder();
        head.style(LiveArea.QUESTION).append("? ");
        head.style(AttributedStyle.BOLD).append(request.tool());
        head.style(AttributedStyle.DEFAULT).append(" wants to run");
        sink.line(head.toAttributedString());
        for (String line : request.subject().split("\n", -1)) {
            sink.line(new AttributedString("    " + Printable.visible(line), AttributedStyle.BOLD));
        }
        Pending pending = new Pending(request);
        request.diff().ifPresent(diff -> {
            DiffView view = new DiffView(diff);
            sink.lines(view.head());
            pending.folded = view.folded() ? view : null;
        });
        sink.line(new AttributedString("  " + Printable.line(request.verdict().reason()), Markdown.FAINT));
        Approval answer = await(pending, ApprovalPrompt.choices(request));
        sink.line(new AttributedString("  → " + ApprovalPrompt.outcome(answer, request), Markdown.FAINT));
        return answer;
    }

    @Override
    public Optional<List<String>> ask(dev.quiver.api.UserQuestion question) {
        synchronized (asking) {
            if (exiting.get()) {
                return Optional.empty();
            }
            sink.line(new AttributedString("? " + Printable.visible(question.question()), LiveArea.QUESTION));
            Pending pending = new Pending(null);
            QuestionPicker picker = new QuestionPicker(question);
            pending.picker = picker;
            live.choices(picker::lines);
            await(pending, picker.keys());
            Optional<List<String>> answer;
            try {
                answer = pending.picked.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer = Optional.empty();
            } catch (java.util.concurrent.ExecutionException e) {
                answer = Optional.empty();
            }
            if (approval == pending) {
                // the call was cancelled while the question waited
                approval = null;
                live.question(null);
                live.choices(null);
            }
            sink.line(new AttributedString("  → " + answer.map(chosen -> Printable.line(String.join(", ", chosen)))
                    .orElse("dismissed"), Markdown.FAINT));
            return answer;
        }
    }

    /**
     * Shows the choices in the live area and waits for the input line to answer; stashes what was typed. A
     * tool's question waits on its own answer; here only until the line is given back.
     */
    private Approval await(Pending pending, String choices) {
        approval = pending;
        live.question(choices);
        try {
            reader.callWidget("quiver-stash");
        } catch (IllegalStateException notReading) {
            // between two prompts: nothing typed to keep aside
        }
        if (pending.picker != null) {
            return null;
        }
        Approval answer;
        try {
            answer = pending.answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer = Approval.deny("");
        } catch (java.util.concurrent.ExecutionException e) {
            answer = Approval.deny("");
        }
        if (approval == pending) {
            approval = null;
            live.question(null);
        }
        return answer;
    }

    // ---- drawing ----

    /** The prompt as the reader draws it: the live area, then {@code › }. Runs on any thread. */
    private String prompt() {
        int width = terminal.getWidth() > 0 ? terminal.getWidth() : 80;
        List<AttributedString> lines = live.render(width, terminal.getHeight(), System.currentTimeMillis());
        StringBuilder out = new StringBuilder();
        for (AttributedString line : lines) {
            out.append(ansi(line)).append('\n');
        }
        AttributedStyle style = live.asking() ? LiveArea.QUESTION : AttributedStyle.BOLD.foreground(AttributedStyle.BLUE);
        out.append(ansi(new AttributedString(live.prompt(), style)));
        return out.toString().replace("%", "%%");
    }

    private String ansi(AttributedString line) {
        return color ? line.toAnsi(terminal) : line.toString();
    }

    /** The ticker: prints what finished and redraws the live area when it changed. */
    private void refresh() {
        synchronized (drawing) {
            refreshLocked();
        }
    }

    private void refreshLocked() {
        try {
            if (toolsChanged.getAndSet(false)) {
                List<String> now = names(session.tools());
                String change = ToolsReport.change(offered, now);
                offered = now;
                if (!change.isEmpty()) {
                    sink.notice(change);
                }
            }
            // the prompt first: lines finished before a question are printed with it, never after it
            String prompt = prompt();
            List<AttributedString> lines = drain();
            if (lines.isEmpty() && prompt.equals(shownPrompt)) {
                return;
            }
            if (reader.isReading()) {
                refreshLines = lines;
                refreshPrompt = prompt;
                try {
                    reader.callWidget("quiver-refresh");
                } catch (IllegalStateException notReading) {
                    // the line ended in between: print below
                }
                lines = refreshLines;
                refreshLines = null;
            }
            if (lines != null && !lines.isEmpty()) {
                print(lines);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "refreshing the terminal", e);
        }
    }

    private boolean refreshWidget() {
        List<AttributedString> lines = refreshLines;
        refreshLines = null;
        reader.setPrompt(refreshPrompt);
        shownPrompt = refreshPrompt;
        if (lines != null && !lines.isEmpty()) {
            reader.printAbove(join(lines));
        } else {
            reader.redisplay();
        }
        return true;
    }

    private String join(List<AttributedString> lines) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            if (i > 0) {
                out.append('\n');
            }
            out.append(ansi(lines.get(i)));
        }
        return out.toString();
    }

    private List<AttributedString> drain() {
        List<AttributedString> lines = new ArrayList<>();
        AttributedString line;
        while ((line = finished.poll()) != null) {
            lines.add(line);
        }
        return lines;
    }

    private void print(List<AttributedString> lines) {
        for (AttributedString line : lines) {
            terminal.writer().println(ansi(line));
        }
        terminal.flush();
    }

    private void print(AttributedString line) {
        print(List.of(line));
    }

    private static List<String> names(List<ToolInfo> tools) {
        return tools.stream().map(ToolInfo::name).toList();
    }

    // ---- completion ----

    private void complete(LineReader lineReader, ParsedLine line, List<Candidate> candidates) {
        String text = line.line();
        int cursor = line.cursor();
        Optional<PathCompletion.Token> token = PathCompletion.at(text, cursor);
        if (token.isPresent()) {
            List<PathCompletion.Ranked> ranked = PathCompletion.ranked(token.get().query(), files(), COMPLETIONS);
            List<String> best = new ArrayList<>();
            for (int i = 0; i < ranked.size(); i++) {
                String path = ranked.get(i).path();
                candidates.add(new Candidate("@" + path, path, null, null, null, null, !path.endsWith("/"), i));
                if (ranked.get(i).score() == ranked.get(0).score()) {
                    best.add("@" + path);
                }
            }
            matcher.best = best;
            return;
        }
        if (text.startsWith("/") && text.substring(0, cursor).indexOf(' ') < 0) {
            for (Commands.Command command : Commands.ALL) {
                candidates.add(new Candidate("/" + command.name(), "/" + command.name(), null, command.help(), null, null,
                        command.usage().isEmpty()));
            }
        }
    }

    private List<String> files() {
        try {
            Workspace opened = workspace;
            if (opened == null) {
                Optional<dev.quiver.api.WorkspaceFactory> factory = launch.services().workspaces();
                if (factory.isEmpty()) {
                    return List.of();
                }
                opened = factory.get().open(session.workspace());
                workspace = opened;
            }
            try {
                return opened.files(opened.root(), false);
            } catch (LinkageError older) {
                // a workspace bundle from before Workspace.files: walk instead
                List<String> files = new ArrayList<>();
                opened.walk(opened.root(), false, Integer.MAX_VALUE, entry -> {
                    if (entry.kind() == Workspace.Entry.Kind.FILE) {
                        files.add(entry.relativePath());
                    }
                    return files.size() < 100_000;
                });
                return files;
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.log(Level.FINE, "listing workspace files", e);
            return List.of();
        }
    }

    /**
     * Lets the ranked {@code @path} candidates through as they are, and completes the prefix they
     * share within the best rank, so lower-ranked substring matches never shorten what a prefix match
     * would insert. Anything else is matched as JLine does.
     */
    static final class RankedMatcher extends CompletionMatcherImpl {
        private boolean ranked;
        /** The values of the best-ranked candidates of the last {@code @path} completion. */
        volatile List<String> best = List.of();

        @Override
        public void compile(Map<LineReader.Option, Boolean> options, boolean prefix, CompletingParsedLine line,
                boolean caseInsensitive, int errors, String originalGroupName) {
            ranked = line.word().startsWith("@");
            super.compile(options, prefix, line, caseInsensitive, errors, originalGroupName);
        }

        @Override
        public List<Candidate> matches(List<Candidate> candidates) {
            if (!ranked) {
                return super.matches(candidates);
            }
            return new ArrayList<>(candidates);
        }

        @Override
        public Candidate exactMatch() {
            return ranked ? null : super.exactMatch();
        }

        @Override
        public String getCommonPrefix() {
            if (!ranked) {
                return super.getCommonPrefix();
            }
            String common = null;
            for (String value : best) {
                if (common == null) {
                    common = value;
                } else {
                    int n = 0;
                    while (n < common.length() && n < value.length() && common.charAt(n) == value.charAt(n)) {
                        n++;
                    }
                    common = common.substring(0, n);
                }
            }
            return common == null ? "" : common;
        }
    }

    /** Words are what whitespace separates: no quotes or escapes, so prose is never "unfinished". */
    static final class WordParser implements Parser {

        @Override
        public ParsedLine parse(String line, int cursor, ParseContext context) {
            List<String> words = new ArrayList<>();
            int wordIndex = -1;
            int wordCursor = 0;
            String current = "";
            int i = 0;
            while (i <= line.length()) {
                while (i < line.length() && Character.isWhitespace(line.charAt(i))) {
                    i++;
                }
                int start = i;
                while (i < line.length() && !Character.isWhitespace(line.charAt(i))) {
                    i++;
                }
                if (start < i) {
                    words.add(line.substring(start, i));
                }
                if (wordIndex < 0 && cursor >= start && cursor <= i) {
                    if (start < i) {
                        wordIndex = words.size() - 1;
                        current = line.substring(start, i);
                    } else {
                        words.add("");
                        wordIndex = words.size() - 1;
                        current = "";
                    }
                    wordCursor = cursor - start;
                }
                if (i >= line.length()) {
                    break;
                }
            }
            if (wordIndex < 0) {
                words.add("");
                wordIndex = words.size() - 1;
            }
            String word = current;
            int index = wordIndex;
            int inWord = wordCursor;
            List<String> all = List.copyOf(words);
            return new CompletingParsedLine() {
                @Override
                public String word() {
                    return word;
                }

                @Override
                public int wordCursor() {
                    return inWord;
                }

                @Override
                public int wordIndex() {
                    return index;
                }

                @Override
                public List<String> words() {
                    return all;
                }

                @Override
                public String line() {
                    return line;
                }

                @Override
                public int cursor() {
                    return cursor;
                }

                @Override
                public CharSequence escape(CharSequence candidate, boolean complete) {
                    return candidate;
                }

                @Override
                public int rawWordCursor() {
                    return inWord;
                }

                @Override
                public int rawWordLength() {
                    return word.length();
                }
            };
        }
    }
}
