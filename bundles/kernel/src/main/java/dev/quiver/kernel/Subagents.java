package dev.quiver.kernel;

import dev.quiver.api.Access;
import dev.quiver.api.ToolContext.SubagentKind;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.conversation.SessionStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The subagents of a session ({@link dev.quiver.api.ToolContext#runSubagent}): each a child
 * {@link AgentLoop} with a conversation of its own, on the session's model (explore and review children on
 * the config's {@code subagentModel} when it names one) and over the session's own
 * {@link CallChain}, so every call a child makes is decided, asked about and audited as the parent's
 * would be. A child is offered a narrowed copy of what the session offers at each step: explore and
 * review children the read tools alone, workers everything but the agent's own state tools; no child
 * is offered {@code task}, and the chain refuses a child's call that starts another child.
 */
final class Subagents implements CallChain.Delegate {

    /** Model requests one child may make. */
    static final int STEP_CAP = 20;
    /** Characters of a child's answer the parent gets. */
    static final int REPORT_CHARS = 20_000;
    /** The tool that starts subagents, never offered to one. */
    static final String TASK = "task";
    /** The tool that starts workers in checkouts of their own, never offered to a subagent either. */
    static final String SPAWN = "spawn_subagent";

    /** A child's model by its kind: explore and review children may have a cheaper one. */
    private final java.util.function.Function<SubagentKind, Optional<AgentLoop.Models>> models;
    private final Supplier<List<RegisteredTool>> offered;
    private final CallChain chain;
    private final Path workspace;
    private final boolean interactive;
    private final Supplier<SessionStore.Recorder> recorder;
    private final int contextTokens;
    private final Duration silenceLimit;
    private final Executor requests;
    /** What the children of the turn under way used: the turn's total adds it. */
    private final AtomicReference<Usage> turn = new AtomicReference<>(Usage.NONE);
    private volatile Instructions instructions = Instructions.NONE;
    private volatile Optional<String> appended = Optional.empty();
    private volatile Worktrees worktrees;
    private volatile Opener opener;

    /** Opens a worker's checkout as the workspace its tools work in. */
    interface Opener {
        Workspace open(Path root, Path stateFolder) throws java.io.IOException;
    }

    Subagents(java.util.function.Function<SubagentKind, Optional<AgentLoop.Models>> models, Supplier<List<RegisteredTool>> offered, CallChain chain,
            Path workspace, boolean interactive, Supplier<SessionStore.Recorder> recorder, int contextTokens,
            Duration silenceLimit, Executor requests) {
        this.models = models;
        this.offered = offered;
        this.chain = chain;
        this.workspace = workspace;
        this.interactive = interactive;
        this.recorder = recorder;
        this.contextTokens = contextTokens;
        this.silenceLimit = silenceLimit;
        this.requests = requests;
    }

    /** Whether a child of this kind is offered the tool: decided by what the tool can do, never by config. */
    static boolean offers(SubagentKind kind, RegisteredTool tool) {
        if (tool.name().equals(TASK) || tool.name().equals(SPAWN) || tool.access() == Access.STATE) {
            // the agent's own state (its todo list, its notes) is the parent's to keep
            return false;
        }
        return kind == SubagentKind.WORKER || tool.access() == Access.READ;
    }

    /** What every child's prompt carries as the session's does: the project's instructions and the user's text. */
    void withPrompt(Instructions project, Optional<String> userText) {
        this.instructions = project;
        this.appended = userText;
    }

    @Override
    public String run(String label, SubagentKind kind, String prompt, TurnListener parent, CallContext call)
            throws ToolException {
        AgentLoop.Models current = model(kind);
        String name = name(label, kind);
        TurnResult result = runChild(current, name, kind, prompt, parent, call, chain, workspace, "");
        return "Subagent '" + name + "' (" + kind.name().toLowerCase(java.util.Locale.ROOT) + ") finished in "
                + steps(result) + ". Its report:\n\n" + report(result);
    }

    /**
     * A worker in a checkout of its own ({@link Worktrees}): its calls go through this session's chain
     * over the checkout; what it leaves is committed on its branch even when it fails, so no work is lost.
     */
    @Override
    public String runIsolated(String label, String prompt, boolean keep, TurnListener parent, CallContext call)
            throws ToolException {
        Worktrees trees = worktrees;
        Opener open = opener;
        if (trees == null || open == null) {
            throw new ToolException("Workers in checkouts of their own are not available in this session.");
        }
        AgentLoop.Models current = model(SubagentKind.WORKER);
        String name = name(label, SubagentKind.WORKER);
        Worktrees.Checkout checkout = trees.create(name, keep);
        String where = "You work in a checkout of your own of the repository at its HEAD, on the branch "
                + checkout.branch() + ", apart from the user's working tree; what you leave in it is committed "
                + "on that branch when you finish, so do not switch branches. Uncommitted changes the user has "
                + "are not in it.";
        TurnResult result;
        try {
            Workspace opened;
            try {
                // its own state folder, in its .git where no file tool writes: journals name the checkout's files
                opened = open.open(checkout.root(), checkout.folder().resolve(".git/quiver"));
            } catch (java.io.IOException e) {
                throw new ToolException("Could not open the worker's checkout " + checkout.root() + ": "
                        + e.getMessage(), e);
            }
            result = runChild(current, name, SubagentKind.WORKER, prompt, parent, call, chain.over(opened),
                    checkout.root(), where);
        } catch (ToolException e) {
            String kept;
            try {
                Worktrees.Outcome outcome = trees.finish(checkout, name);
                kept = outcome.changed() ? " What it changed before it stopped is on the branch " + outcome.branch()
                        + ": " + outcome.summary().lines().findFirst().orElse("") + "." : "";
            } catch (ToolException notKept) {
                kept = " " + notKept.getMessage();
            }
            throw new ToolException(e.getMessage() + kept, e);
        }
        Worktrees.Outcome outcome = trees.finish(checkout, name);
        return "Worker '" + name + "' finished in " + steps(result) + ".\nBranch: " + outcome.branch()
                + " (started from HEAD " + outcome.base() + "; the user's uncommitted changes were not in its "
                + "checkout)\nChanged: " + outcome.summary() + "\nCheckout: " + checkout.folder()
                + (keep ? " (kept)" : " (removed when the session ends; the branch stays)") + "\n\nIts report:\n\n"
                + report(result);
    }

    private AgentLoop.Models model(SubagentKind kind) throws ToolException {
        return models.apply(kind).orElseThrow(() -> new ToolException("No model is configured for this "
                + "session (a direct call, a batch or an MCP client's session without --model), so no subagent can "
                + "run. Pass --model PROVIDER/NAME."));
    }

    private static String name(String label, SubagentKind kind) {
        return label.isBlank() ? kind.name().toLowerCase(java.util.Locale.ROOT) : label.strip();
    }

    /**
     * Runs one child to its answer over {@code via} in {@code root}, its usage counted in the turn.
     *
     * @param where what the child is told about its folder besides its kind's paragraph; may be empty
     */
    private TurnResult runChild(AgentLoop.Models current, String name, SubagentKind kind, String prompt,
            TurnListener parent, CallContext call, CallChain via, Path root, String where) throws ToolException {
        String told = appended.map(text -> text.strip() + "\n").orElse("") + instructions(kind)
                + (where.isEmpty() ? "" : " " + where);
        AgentLoop child = new AgentLoop(current, via,
                () -> offered.get().stream().filter(tool -> offers(kind, tool)).toList(), root, interactive,
                recorder.get().forSubagent(), List.of(), contextTokens, silenceLimit, requests)
                .withInstructions(instructions)
                .withRun(STEP_CAP, Optional.of(told))
                .asSubagent(name);
        call.onCancel(child::cancel);
        TurnResult result;
        try {
            result = child.send(prompt, new Progress(name, parent, call));
        } catch (HostException e) {
            if (call.isCancelled()) {
                throw new ToolException("The subagent '" + name + "' was cancelled before it finished; what it "
                        + "changed so far stays. Nothing of its work was reported.");
            }
            throw new ToolException("The subagent '" + name + "' failed: " + e.getMessage() + " Nothing of its work "
                    + "was reported; run it again or do the task yourself.");
        } finally {
            // the child's own requests; what its tools asked the model is counted where they asked it
            turn.accumulateAndGet(child.spent(), Usage::plus);
        }
        if (result.status() == TurnResult.Status.STEP_LIMIT) {
            throw new ToolException("The subagent '" + name + "' reached its cap of " + STEP_CAP + " steps ("
                    + result.calls().size() + " calls) without a final answer, so it reported nothing. Give it a "
                    + "narrower task, or do the rest yourself.");
        }
        return result;
    }

    /** {@code 2 steps with 3 calls} */
    private static String steps(TurnResult result) {
        int calls = result.calls().size();
        return result.steps() + " step" + (result.steps() == 1 ? "" : "s") + " with " + calls + " call"
                + (calls == 1 ? "" : "s");
    }

    /** The child's answer, capped. */
    private static String report(TurnResult result) {
        String answer = result.answer().strip();
        return answer.length() <= REPORT_CHARS ? answer : ResultCap.head(answer, REPORT_CHARS)
                + "\n... [the subagent's report was cut at "
                + String.format(java.util.Locale.ROOT, "%,d", REPORT_CHARS) + " characters]";
    }

    /** Where workers in checkouts of their own work, and how a checkout is opened as a workspace. */
    void withWorktrees(Worktrees trees, Opener opener) {
        this.worktrees = trees;
        this.opener = opener;
    }

    /** Removes the checkouts not to be kept (the session ends); says what could not be removed. */
    List<String> close() {
        Worktrees trees = worktrees;
        return trees == null ? List.of() : trees.close();
    }

    /** What the children since the last call used; starts the count again. */
    Usage takeTurnUsage() {
        return turn.getAndSet(Usage.NONE);
    }

    /** What a child is told besides the session's own prompt: who reads its answer, and what it may do. */
    private static String instructions(SubagentKind kind) {
        String task = switch (kind) {
            case EXPLORE -> "Find out what the task asks by reading and searching; you have no tool that changes "
                    + "anything.";
            case REVIEW -> "Review what the task names and report findings, most important first, each with its "
                    + "file and line; you have no tool that changes anything.";
            case WORKER -> "Do the task with your tools; every call is decided as the other agent's own calls are.";
        };
        return "You are a subagent: another agent started you for one task, given in the user message. " + task
                + " You have at most " + STEP_CAP + " steps. Only your final answer reaches that agent, as your "
                + "report: make it complete on its own, say what you found or did and what you did not finish, "
                + "and name files by their paths.";
    }

    /**
     * The child's events as the parent's front end sees them: each call and its outcome streamed as the
     * {@code task} call's output, usage counted as the parent's, approvals asked of the parent's user.
     * The child's text is not passed on: the parent gets its final answer alone.
     */
    private final class Progress implements TurnListener {
        private final String name;
        private final TurnListener parent;
        private final CallContext call;

        Progress(String name, TurnListener parent, CallContext call) {
            this.name = name;
            this.parent = parent;
            this.call = call;
        }

        @Override
        public void usage(Usage step) {
            try {
                parent.usage(step);
            } catch (RuntimeException closed) {
                // a front end that cannot take it: the session file and the total still count it
            }
        }

        @Override
        public void retrying(String text) {
            parent.retrying("[" + name + "] " + text);
        }

        @Override
        public void notice(String text) {
            call.stream("[" + name + "] " + text + "\n");
        }

        @Override
        public void callChanged(String tool, String diff) {
            // the parent's front end hears what the child wrote, as the task call's changes
            parent.callChanged(tool, diff);
        }

        @Override
        public void callStarted(String callId, String tool, String arguments) {
            String shown = arguments.replaceAll("\\s+", " ");
            call.stream("[" + name + "] " + tool + " " + (shown.length() > 200 ? shown.substring(0, 200) + "..."
                    : shown) + "\n");
        }

        @Override
        public void callEnded(CallOutcome outcome) {
            call.stream("[" + name + "] " + outcome.tool() + ": " + outcome.status().id()
                    + (outcome.status() == CallOutcome.Status.DENIED ? " (" + outcome.verdict().reason() + ")" : "")
                    + " in " + outcome.elapsedMillis() + " ms\n");
        }

        @Override
        public Approval approve(ApprovalRequest request) {
            Verdict asked = request.verdict();
            return parent.approve(new ApprovalRequest(request.tool(), request.subject(), new Verdict(asked.decision(),
                    asked.by(), "subagent '" + name + "': " + asked.reason()), request.pattern(), request.diff()));
        }
    }
}
