package dev.quiver.cli.terminal;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnResult;
import dev.quiver.cli.ApprovalPrompt;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import org.jline.utils.AttributedString;

/**
 * The interactive session without a terminal (standard input or output is not a TTY): one line is
 * one prompt, read in order, each run to its end before the next is read; approvals read their
 * answer from the next line. Everything is plain text without escape codes; the answer is rendered
 * from Markdown line by line.
 */
public final class LineFrontEnd implements Approver {

    private final Launch launch;
    private final PrintStream out;
    private final Sink sink;
    private volatile boolean exit;

    public LineFrontEnd(Launch launch) {
        this.launch = launch;
        this.out = launch.out();
        this.sink = new Sink() {
            @Override
            public void line(AttributedString line) {
                synchronized (out) {
                    out.println(line.toString());
                    out.flush();
                }
            }

            @Override
            public int width() {
                return 0;
            }
        };
    }

    /** Reads prompts until the input ends or {@code /exit}; the exit code. */
    public int run() {
        Session opened;
        TrustQuestion.ask(launch, prompt -> {
            out.print(prompt);
            out.flush();
            return read();
        }).ifPresent(out::println);
        try {
            opened = launch.kernel().open(launch.options());
        } catch (HostException e) {
            launch.err().println("quiver: " + e.getMessage());
            return 1;
        }
        try (Session session = opened) {
            sink.lines(StartupHeader.lines(launch.version(), session, StartupHeader.sandbox(launch.services(), session),
                        launch.options().yolo(), launch.options().readOnly()));
            if (session.model().isEmpty()) {
                launch.err().println("quiver: No model configured. Pass --model openai/NAME (and --base-url URL for "
                        + "an OpenAI-compatible server), or set \"model\" in .quiver/config.json.");
                return 1;
            }
            out.println("Type a request, or /exit to quit.");
            if (launch.firstPrompt().isEmpty()) {
                session.warmUp(); // as JLineFrontEnd: while the first prompt is typed
            }
            Commands commands = new Commands(launch.kernel(), session, launch.services(), sink, this, () -> exit = true);
            Optional<String> first = launch.firstPrompt();
            while (!exit) {
                String line;
                if (first.isPresent()) {
                    line = first.get();
                    first = Optional.empty();
                    out.println("> " + line);
                } else {
                    out.print("> ");
                    out.flush();
                    line = read();
                }
                if (line == null) {
                    break;
                }
                if (line.isBlank()) {
                    continue;
                }
                Optional<Commands.Parsed> command = Commands.parse(line);
                Optional<String> commandPrompt = command.flatMap(Commands::prompt);
                if (command.isPresent() && commandPrompt.isEmpty()) {
                    commands.run(command.get());
                    continue;
                }
                TurnView view = new TurnView(sink, Live.NONE, this, false).recording(commands.history());
                try {
                    TurnResult result = session.send(commandPrompt.isPresent() ? commandPrompt.get()
                            : Attachments.expand(session, line, view, sink), view);
                    view.finish(result);
                } catch (HostException e) {
                    view.failed(e.getMessage(), false);
                }
            }
            return 0;
        }
    }

    private String read() {
        try {
            return launch.in().readLine();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public boolean confirm(String question) {
        synchronized (out) {
            out.print(question + " [y/N]: ");
            out.flush();
        }
        return ApprovalPrompt.yes(read());
    }

    /**
     * A tool's question on plain lines: the options numbered, the answer the next line — option numbers
     * (several separated by commas or spaces where several may be chosen), or text of its own; an empty
     * line dismisses it.
     */
    @Override
    public Optional<java.util.List<String>> ask(dev.quiver.api.UserQuestion question) {
        java.util.List<dev.quiver.api.UserQuestion.Option> options = question.options();
        synchronized (out) {
            out.println("? " + Printable.visible(question.question()));
            for (int i = 0; i < options.size(); i++) {
                dev.quiver.api.UserQuestion.Option option = options.get(i);
                out.println("  " + (i + 1) + ". " + Printable.line(option.label()) + (i == 0 ? " (recommended)" : "")
                        + (option.detail().isEmpty() ? "" : "  " + Printable.line(option.detail())));
            }
            out.print(options.isEmpty() ? "answer (enter to dismiss): " : question.multiple()
                    ? "numbers, or your own answer (enter to dismiss): " : "number, or your own answer (enter to dismiss): ");
            out.flush();
        }
        Optional<java.util.List<String>> answer = LineAnswer.read(read(), question);
        sink.line("→ " + answer.map(chosen -> Printable.line(String.join(", ", chosen))).orElse("dismissed"));
        return answer;
    }

    @Override
    public Approval approve(ApprovalRequest request) {
        synchronized (out) {
            out.println(request.tool() + " wants to run");
            for (String line : request.subject().split("\n", -1)) {
                out.println("    " + Printable.visible(line));
            }
            // no colour and no folding on a plain line: the whole diff, as a pipe or a log would keep it
            request.diff().ifPresent(diff -> new DiffView(diff).all().forEach(line -> out.println(line.toString())));
            out.println("(" + request.verdict().reason() + ")");
            out.print(ApprovalPrompt.choices(request) + ": ");
            out.flush();
        }
        String answer = read();
        ApprovalPrompt.Reading reading = ApprovalPrompt.read(answer, request);
        Approval approval;
        if (reading.approval() != null) {
            approval = reading.approval();
        } else if (reading.askInstead()) {
            synchronized (out) {
                out.print("What should it do instead? (enter to skip): ");
                out.flush();
            }
            String instead = read();
            approval = Approval.deny(instead == null ? "" : instead.strip());
        } else {
            approval = Approval.deny("");
        }
        sink.line("→ " + ApprovalPrompt.outcome(approval, request));
        return approval;
    }
}
