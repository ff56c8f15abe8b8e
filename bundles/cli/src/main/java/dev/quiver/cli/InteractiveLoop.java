package dev.quiver.cli;

import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import java.io.IOException;
import java.io.PrintStream;

/**
 * The plain interactive loop: read a prompt, run the turn, ask before calls that need approval.
 * Works on a terminal and in a pipe alike; it writes no escape codes.
 */
final class InteractiveLoop {

    private final RootCommand root;
    private final Terminal terminal;

    InteractiveLoop(RootCommand root) {
        this.root = root;
        this.terminal = root.terminal;
    }

    int run() throws IOException {
        PrintStream out = terminal.out();
        try (Session session = root.open(root.common, true, out, root.resumeChoice())) {
            if (session.model().isEmpty()) {
                terminal.err().println("quiver: No model configured. Pass --model openai/NAME (and --base-url URL for "
                        + "an OpenAI-compatible server), or set \"model\" in .quiver/config.json.");
                return ExitCodes.ERROR;
            }
            out.println("Type a request, or /exit to quit.");
            while (true) {
                out.print("> ");
                out.flush();
                String line = terminal.in().readLine();
                if (line == null || line.strip().equals("/exit")) {
                    return ExitCodes.OK;
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    ConsoleListener listener = new ConsoleListener();
                    TurnResult result = session.send(line, listener);
                    listener.endText();
                    if (result.status() == TurnResult.Status.STEP_LIMIT) {
                        out.println("(stopped at the step limit)");
                    }
                    out.println("(" + UsageLine.of(result.usage()) + ")");
                } catch (HostException e) {
                    terminal.err().println("quiver: " + e.getMessage());
                }
            }
        }
    }

    /** Shows a turn as it goes and asks the user about calls that need approval. */
    private final class ConsoleListener implements TurnListener {

        private boolean midText;

        @Override
        public void text(String text) {
            terminal.out().print(text);
            terminal.out().flush();
            midText = !text.endsWith("\n");
        }

        /** Ends a line of streamed text before anything else is printed. */
        void endText() {
            if (midText) {
                terminal.out().println();
                midText = false;
            }
        }

        @Override
        public void notice(String text) {
            endText();
            terminal.out().println("(" + text + ")");
        }

        @Override
        public void callStarted(String tool, String arguments) {
            endText();
        }

        @Override
        public void callOutput(String tool, String text) {
            terminal.out().print(text);
        }

        @Override
        public void callEnded(CallOutcome outcome) {
            terminal.out().println(CallLine.of(outcome));
        }

        @Override
        public Approval approve(ApprovalRequest request) {
            PrintStream out = terminal.out();
            out.println(request.tool() + " wants to run");
            out.println(request.subject());
            out.println("(" + request.verdict().reason() + ")");
            out.print(ApprovalPrompt.choices(request) + ": ");
            out.flush();
            try {
                String answer = terminal.in().readLine();
                Approval approval = ApprovalPrompt.parse(answer, request);
                if (approval.choice() == Approval.Choice.DENY) {
                    out.print("What should it do instead? (enter to skip): ");
                    out.flush();
                    String instead = terminal.in().readLine();
                    return Approval.deny(instead == null ? "" : instead.strip());
                }
                return approval;
            } catch (IOException e) {
                return Approval.deny("");
            }
        }
    }
}
