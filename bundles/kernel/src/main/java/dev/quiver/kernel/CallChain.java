package dev.quiver.kernel;

import dev.quiver.api.Access;
import dev.quiver.api.Arguments;
import dev.quiver.api.Guard;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolCall;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.CallOutcome.Status;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.conversation.ArgumentLimit;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.Decided;
import dev.quiver.kernel.permission.Grants;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.preview.Preview;
import dev.quiver.kernel.preview.RecordingWorkspace;
import dev.quiver.bash.CommandGuard;
import dev.quiver.bash.ParsedCommand;
import dev.quiver.bash.ShellParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's path: look the tool up in the step's snapshot, check the arguments (their size first,
 * against {@link ArgumentLimit}, then their shape), then
 * guard → rules → repeat rule → approval, run the tool on a worker thread with a timeout, cap the
 * result. A refused call never reaches the tool. Every decision on a call goes to the audit log.
 */
final class CallChain {

    private static final Logger LOG = LoggerFactory.getLogger(CallChain.class);
    static final String BY_GUARD = "guard";
    static final String BY_MODE = "mode";
    static final String BY_REPEAT = "repeat";
    static final String BY_USER = "user";
    /** The tool that asks the user a question: offered only where someone can answer. */
    static final String ASK_USER = "ask";
    /** The third identical call in one turn asks even when allowed: a model repeating itself is stuck. */
    static final int REPEAT_LIMIT = 3;
    /** One level only: a child that could start children could multiply without bound. */
    private static final String NO_GRANDCHILDREN = "A subagent cannot start another subagent. Do this part yourself "
            + "and include it in your report.";
    /** How long a cancelled tool gets to return before the call is reported without it. */
    private static final long CANCEL_GRACE_MILLIS = 2000;

    /** How a session treats asks. */
    record Modes(boolean yolo, boolean interactive, boolean readOnly) {
    }

    private final Workspace workspace;
    private final PermissionEngine engine;
    private final Supplier<List<Guard>> guards;
    private final ExecutorService workers;
    private final Modes modes;
    private final java.util.function.Predicate<RegisteredTool> trusted;
    private final Duration timeout;
    private final AuditLog audit;
    private final Grants grants;
    private final PromptSections sections;
    private final java.util.function.Function<String, Optional<Object>> settings;
    private final Map<String, Integer> repeats;
    private final Set<CallContext> running;
    private final java.util.function.Predicate<String> wasUnloaded;
    private final Supplier<Map<String, String>> environment;
    private volatile Supplier<Optional<java.nio.file.Path>> stateFolder = Optional::empty;
    private volatile java.util.function.BooleanSupplier workspaceTrusted = () -> false;
    private volatile Redactor redactor;
    private volatile BeforeChange beforeChange = tool -> Optional.empty();

    /** How a call asks the session's model one question ({@link dev.quiver.api.ToolContext#askModel}). */
    interface Asker {
        Asker NONE = (instructions, input, listener, cancelled) -> {
            throw new dev.quiver.api.ToolException("No model is available to this session.");
        };

        String ask(String instructions, String input, TurnListener listener, java.util.function.BooleanSupplier cancelled)
                throws dev.quiver.api.ToolException;
    }

    private volatile Asker asker = Asker.NONE;

    /** How a call runs a subagent ({@link dev.quiver.api.ToolContext#runSubagent}). */
    interface Delegate {
        Delegate NONE = (label, kind, prompt, listener, call) -> {
            throw new ToolException("Subagents are not available in this session.");
        };

        String run(String label, ToolContext.SubagentKind kind, String prompt, TurnListener listener, CallContext call)
                throws ToolException;

        /** Runs a worker in a git checkout of its own ({@link ToolContext#runWorkerInWorktree}). */
        default String runIsolated(String label, String prompt, boolean keep, TurnListener listener, CallContext call)
                throws ToolException {
            throw new ToolException("Workers in checkouts of their own are not available in this session.");
        }
    }

    private volatile Delegate subagents = Delegate.NONE;

    /** What runs before a call that can change files: a checkpoint; it says when it failed, for the user. */
    interface BeforeChange {
        /** @param tool the tool and its access class: {@code bash (execute)} */
        Optional<String> before(String tool);
    }

    CallChain(Workspace workspace, PermissionEngine engine, Supplier<List<Guard>> guards, ExecutorService workers,
            Modes modes, Duration timeout, AuditLog audit,
            java.util.function.Function<String, Optional<Object>> settings, java.util.function.Predicate<RegisteredTool> trusted) {
        this(workspace, engine, guards, workers, modes, timeout, audit, settings, trusted, name -> false,
                () -> ProcessEnvironment.of(System.getenv(), List.of()).kept());
    }

    /** {@code wasUnloaded} tells a name that is not offered but was (its bundle went away) from one never known. */
    CallChain(Workspace workspace, PermissionEngine engine, Supplier<List<Guard>> guards, ExecutorService workers,
            Modes modes, Duration timeout, AuditLog audit,
            java.util.function.Function<String, Optional<Object>> settings, java.util.function.Predicate<RegisteredTool> trusted,
            java.util.function.Predicate<String> wasUnloaded, Supplier<Map<String, String>> environment) {
        this(workspace, engine, guards, workers, modes, timeout, audit, settings, trusted, wasUnloaded, environment,
                new Grants(), new PromptSections(), new ConcurrentHashMap<>(), new CopyOnWriteArraySet<>());
    }

    private CallChain(Workspace workspace, PermissionEngine engine, Supplier<List<Guard>> guards, ExecutorService workers,
            Modes modes, Duration timeout, AuditLog audit,
            java.util.function.Function<String, Optional<Object>> settings, java.util.function.Predicate<RegisteredTool> trusted,
            java.util.function.Predicate<String> wasUnloaded, Supplier<Map<String, String>> environment, Grants grants,
            PromptSections sections, Map<String, Integer> repeats, Set<CallContext> running) {
        this.grants = grants;
        this.sections = sections;
        this.repeats = repeats;
        this.running = running;
        this.wasUnloaded = wasUnloaded;
        this.environment = environment;
        this.settings = settings;
        this.trusted = trusted;
        this.workspace = workspace;
        this.engine = engine;
        this.guards = guards;
        this.workers = workers;
        this.modes = modes;
        this.timeout = timeout;
        this.audit = audit;
    }

    /**
     * This chain over another workspace (a worker's checkout): the same rules (judging paths there), guards,
     * grants, mode, audit log, model and running calls, so a cancel reaches its calls too. No checkpoint is
     * taken there: the worker's branch keeps what it did.
     */
    CallChain over(Workspace other) {
        CallChain copy = new CallChain(other, engine.over(other), guards, workers, modes, timeout, audit, settings,
                trusted, wasUnloaded, environment, grants, sections, repeats, running);
        copy.stateFolder = stateFolder;
        copy.workspaceTrusted = workspaceTrusted;
        copy.redactor = redactor;
        copy.asker = asker;
        copy.subagents = subagents;
        return copy;
    }

    /** Where tools keep the workspace's state across sessions; found when a tool first asks. */
    CallChain withStateFolder(Supplier<Optional<java.nio.file.Path>> folder) {
        this.stateFolder = folder;
        return this;
    }

    /** Whether the user trusts the workspace ({@link dev.quiver.api.ToolContext#workspaceTrusted}). */
    CallChain withTrust(java.util.function.BooleanSupplier trusted) {
        this.workspaceTrusted = trusted;
        return this;
    }

    /**
     * The prompt sections the offered tools add ({@link Tool#promptSection}), each under its tool's name and
     * cut as a session's section is; a tool that fails or adds nothing is left out of this step.
     */
    String toolSections(List<RegisteredTool> offered) {
        CallContext context = new CallContext(workspace, settings, environment, (section, text) -> { }, text -> { })
                .withStateFolder(stateFolder).withTrust(workspaceTrusted);
        StringBuilder text = new StringBuilder();
        for (RegisteredTool tool : offered) {
            String section;
            try {
                section = tool.service().map(service -> service.promptSection(context)).orElse("");
            } catch (RuntimeException e) {
                continue; // a plugin's broken section must not fail the step
            }
            if (section != null && !section.isBlank()) {
                text.append("## ").append(tool.name()).append('\n').append(PromptSections.capped(section)).append('\n');
            }
        }
        return text.toString();
    }

    /** Answers the calls that ask the session's model a question. */
    CallChain withAsker(Asker model) {
        this.asker = model;
        return this;
    }

    /** Runs the subagents calls start. */
    CallChain withSubagents(Delegate runner) {
        this.subagents = runner;
        return this;
    }

    /** Records the workspace before every call whose tool can write or execute. */
    CallChain withCheckpoints(BeforeChange hook) {
        this.beforeChange = hook;
        return this;
    }

    /** Replaces known secret values in every result, streamed output and audit line from now on. */
    CallChain withRedactor(Redactor values) {
        this.redactor = values;
        return this;
    }

    private String redacted(String text) {
        Redactor current = redactor;
        return current == null ? text : current.redact(text);
    }

    /** A call that was prepared: its tool, arguments, subjects and parsed commands, or why it cannot run. */
    private record Prepared(RegisteredTool tool, Arguments arguments, List<Subject> subjects,
            List<ParsedCommand> commands, String key, String error) {
    }

    /** What tools put into the system prompt during this session. */
    PromptSections sections() {
        return sections;
    }

    /** Starts a new turn: the repeat rule counts identical calls within one turn. */
    void newTurn() {
        repeats.clear();
    }

    /** Whether a tool's bundle asked for it to run unasked and the installation trusts that bundle. */
    boolean autoApproved(RegisteredTool tool) {
        return tool.autoApproveRequested() && trusted.test(tool);
    }

    /** Whether a tool is offered at all in this session's mode. */
    boolean offers(RegisteredTool tool) {
        return !modes.readOnly() || offeredReadOnly(tool);
    }

    /**
     * Whether a tool is offered where nothing may change ({@code --read-only}, the plan and review agents):
     * decided by what it can do, never by config — it reads or keeps the agent's own state. A worker in a
     * checkout of its own is not, though its access is state: its branch is a change to the user's repository.
     */
    static boolean offeredReadOnly(RegisteredTool tool) {
        return (tool.access() == Access.READ || tool.access() == Access.STATE) && !tool.name().equals(Subagents.SPAWN);
    }

    /** The decision a call gets before any subject is known, as {@code quiver tools} shows it. */
    Decision defaultDecision(RegisteredTool tool) {
        return engine.decide(tool.name(), tool.access(), autoApproved(tool), List.of(), List.of(), grants).verdict().decision();
    }

    /** The decision alone, as {@code quiver check} reports it: nothing runs, nobody is asked, nothing counts. */
    Verdict check(List<RegisteredTool> snapshot, String name, String argumentsJson) {
        Optional<RegisteredTool> tool = find(snapshot, name);
        if (tool.isEmpty()) {
            return new Verdict(Decision.ASK, PermissionEngine.BY_DEFAULT, name + " is not a registered tool; unknown tools ask.");
        }
        Prepared prepared = prepare(tool.get(), argumentsJson);
        if (prepared.error() != null) {
            return new Verdict(Decision.DENY, PermissionEngine.BY_DEFAULT, prepared.error());
        }
        return applyYolo(decide(prepared, false));
    }

    /** Runs a call through the whole chain. */
    CallOutcome run(List<RegisteredTool> snapshot, String name, String argumentsJson, TurnListener listener) {
        return run(snapshot, name, argumentsJson, listener, wasUnloaded);
    }

    /** Runs a call, telling unloaded names by {@code unloadedThen}, taken with the snapshot. */
    CallOutcome run(List<RegisteredTool> snapshot, String name, String argumentsJson, TurnListener listener,
            java.util.function.Predicate<String> unloadedThen) {
        return run(snapshot, name, argumentsJson, listener, unloadedThen, Optional.empty());
    }

    /**
     * Runs a subagent's call through the whole chain, exactly as the parent's would run, its decision
     * audited with the subagent's label.
     */
    CallOutcome runFor(String subagent, List<RegisteredTool> snapshot, String name, String argumentsJson,
            TurnListener listener) {
        return run(snapshot, name, argumentsJson, listener, wasUnloaded, Optional.of(subagent));
    }

    private CallOutcome run(List<RegisteredTool> snapshot, String name, String argumentsJson, TurnListener listener,
            java.util.function.Predicate<String> unloadedThen, Optional<String> subagent) {
        long started = System.nanoTime();
        Optional<RegisteredTool> tool = find(snapshot, name);
        if (tool.isEmpty()) {
            String offered = snapshot.stream().map(RegisteredTool::name).collect(Collectors.joining(", "));
            String offeredNow = offered.isEmpty() ? "No tools are offered now." : "Offered: " + offered + ".";
            if (unloadedThen.test(name)) {
                return outcome(name, Status.ERROR, unloaded(name, false) + " " + offeredNow, started,
                        new Verdict(Decision.ASK, PermissionEngine.BY_DEFAULT, "unloaded tool"));
            }
            return outcome(name, Status.ERROR, "No tool named '" + name + "' is offered in this step. " + offeredNow,
                    started, new Verdict(Decision.ASK, PermissionEngine.BY_DEFAULT, "unknown tool"));
        }
        Prepared prepared = prepare(tool.get(), argumentsJson);
        if (prepared.error() != null) {
            return outcome(name, Status.ERROR, prepared.error(), started,
                    new Verdict(Decision.DENY, PermissionEngine.BY_DEFAULT, "the arguments are invalid"));
        }
        Decided decided = decide(prepared, true);
        Verdict verdict = applyYolo(decided);
        String instead = "";
        Optional<Preview> preview = Optional.empty();
        boolean previewed = false;
        if (verdict.decision() == Decision.ASK) {
            if (modes.interactive()) {
                Optional<String> pattern = decided.grant().isEmpty() ? Optional.empty()
                        : Optional.of(String.join(", ", decided.grant()));
                preview = preview(prepared);
                previewed = true;
                if (preview.isPresent() && redactor != null) {
                    redactor.refresh(); // the diff shows files as they are now: a value just added is known too
                }
                Approval answer = ask(listener, new ApprovalRequest(name, subjectLine(prepared.subjects()), verdict, pattern,
                        preview.map(shown -> redacted(shown.diff()))));
                switch (answer.choice()) {
                    case ONCE -> verdict = new Verdict(Decision.ALLOW, BY_USER, "approved once by the user");
                    case ALWAYS -> {
                        grants.grant(name, decided.grant());
                        verdict = new Verdict(Decision.ALLOW, BY_USER, pattern.map(p -> "approved by the user, who allowed \""
                                + p + "\" for this session").orElse("approved once by the user"));
                    }
                    default -> {
                        verdict = new Verdict(Decision.DENY, BY_USER, "the user declined");
                        instead = answer.instead();
                    }
                }
            } else if (decided.unjudgeable()) {
                verdict = new Verdict(Decision.DENY, BY_MODE, verdict.reason() + " No one can approve calls in this "
                        + "session, so it was refused. Write the command so that every part is known before it runs "
                        + "(literal command words, no eval of computed text), or ask the user to run it.");
            } else {
                verdict = new Verdict(Decision.DENY, BY_MODE, verdict.reason() + " No one can approve calls in this "
                        + "session, so it was refused: it needs the user's approval. The user can allow it with a "
                        + "permission rule or run with --yolo.");
            }
        }
        listener.callDecided(name, new Verdict(verdict.decision(), verdict.by(), redacted(verdict.reason())));
        audit.record(name, prepared.subjects().stream().map(subject -> new Subject(subject.kind(),
                redacted(subject.value()))).toList(), verdict, verdict.by().equals(PermissionEngine.BY_RULE)
                ? decided.rule() : Optional.empty(), subagent);
        if (verdict.decision() == Decision.DENY) {
            String message;
            if (BY_USER.equals(verdict.by())) {
                message = instead.isBlank() ? "The user denied this call. Ask the user what to do instead."
                        : "The user denied this call and said: " + instead;
            } else if (BY_GUARD.equals(verdict.by())) {
                message = "Refused by the guard: " + verdict.reason();
            } else {
                message = "Refused (" + verdict.by() + "): " + verdict.reason();
            }
            return outcome(name, Status.DENIED, message, started, verdict);
        }
        if (!previewed) {
            // an allowed call of such a tool is made from its record too: the same diff for every front end
            preview = preview(prepared);
        }
        if (preview.isPresent()) {
            return make(prepared.tool(), preview.get(), verdict, listener, started);
        }
        return execute(prepared, verdict, listener, started, subagent);
    }

    /**
     * The call run once against a workspace that records instead of writing, for a tool that declares
     * every change it makes goes through the workspace: what it would change, to show before asking.
     * Empty when the tool does not declare so, failed, changed nothing or took too long: it is then
     * asked about without a diff and run after the answer, as any call.
     */
    private Optional<Preview> preview(Prepared prepared) {
        RegisteredTool tool = prepared.tool();
        Optional<Tool> service = tool.service();
        if (!tool.previewable() || tool.access() != Access.WRITE || service.isEmpty()) {
            return Optional.empty();
        }
        RecordingWorkspace recording = new RecordingWorkspace(workspace, tool.name());
        // the dry run's output, prompt sections and model questions reach no one
        CallContext context = new CallContext(recording, settings, environment, (section, text) -> { }, text -> { })
                .withStateFolder(stateFolder).withTrust(workspaceTrusted);
        running.add(context);
        Future<Optional<Preview>> future = null;
        try {
            // the diff is made with the dry run, under its timeout
            future = workers.submit(() -> {
                ToolResult result = service.get().call(prepared.arguments(), context);
                return Preview.of(recording, result == null ? "" : result.text());
            });
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            context.cancel();
            if (future != null) {
                future.cancel(true);
            }
            return Optional.empty();
        } finally {
            running.remove(context);
        }
    }

    /** Makes the changes the user approved, exactly as the dry run recorded them; its answer is the call's. */
    private CallOutcome make(RegisteredTool tool, Preview preview, Verdict verdict, TurnListener listener, long started) {
        beforeChange.before(tool.name() + " (" + tool.access().id() + ")").ifPresent(listener::notice);
        String summary = preview.summary();
        try {
            preview.apply();
        } catch (java.io.IOException e) {
            return outcome(tool.name(), Status.ERROR, e.getMessage(), started, verdict);
        } catch (RuntimeException e) {
            LOG.warn("Making the approved changes of {} failed", tool.name(), e);
            return outcome(tool.name(), Status.ERROR, tool.name() + " failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()), started, verdict);
        }
        try {
            listener.callChanged(tool.name(), redacted(preview.diff()));
            // a line the terminal keeps, unlike a call's live output
            listener.notice("changed " + summary.replace("\n", ", "));
        } catch (RuntimeException ignored) {
            // a front end that cannot show it must not fail the call that was made
        }
        return outcome(tool.name(), Status.OK, preview.result(), started, verdict);
    }

    /** A tool's question for the person at the front end: only the session's own calls ask, and only someone who can answer. */
    private java.util.Optional<List<String>> askUser(dev.quiver.api.UserQuestion question, TurnListener listener,
            Optional<String> subagent) throws ToolException {
        if (subagent.isPresent()) {
            throw new ToolException("A subagent cannot ask the user. Decide yourself, and state the assumption in "
                    + "your report.");
        }
        if (!modes.interactive()) {
            throw new ToolException("No one can answer questions in this session. Decide yourself and state the "
                    + "assumption you made.");
        }
        try {
            java.util.Optional<List<String>> answer = listener.ask(question);
            return answer == null ? java.util.Optional.empty() : answer;
        } catch (UnsupportedOperationException e) {
            throw new ToolException("This front end cannot ask the user questions. Decide yourself and state the "
                    + "assumption you made.");
        } catch (RuntimeException e) {
            LOG.warn("Asking the user failed", e);
            throw new ToolException("Asking the user failed (" + e.getClass().getSimpleName() + "). Decide yourself "
                    + "and state the assumption you made.");
        }
    }

    private static Approval ask(TurnListener listener, ApprovalRequest request) {
        try {
            Approval answer = listener.approve(request);
            return answer == null ? Approval.deny("") : answer;
        } catch (RuntimeException e) {
            LOG.warn("The approval prompt failed; denying", e);
            return Approval.deny("");
        }
    }

    /** --yolo turns an ask into an allow, except where the call cannot be judged. */
    private Verdict applyYolo(Decided decided) {
        Verdict verdict = decided.verdict();
        if (verdict.decision() == Decision.ASK && modes.yolo() && !decided.unjudgeable()) {
            return new Verdict(Decision.ALLOW, BY_MODE, "--yolo turns asks into allows (" + verdict.reason() + ")");
        }
        return verdict;
    }

    private Optional<RegisteredTool> find(List<RegisteredTool> snapshot, String name) {
        return snapshot.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    private Prepared prepare(RegisteredTool tool, String argumentsJson) {
        // before anything reads the text: parsing 10 MB into a tree and checking it costs more than it is worth
        long oversize = ArgumentLimit.oversize(argumentsJson);
        if (oversize >= 0) {
            return failed(tool, ArgumentLimit.refusal(tool.name(), oversize));
        }
        Map<String, Object> values;
        try {
            values = Json.arguments(tool.name(), argumentsJson);
        } catch (IllegalArgumentException e) {
            return failed(tool, e.getMessage());
        }
        Optional<Tool> service = tool.service();
        if (service.isEmpty() || tool.spec().isEmpty()) {
            return failed(tool, unloaded(tool.name(), false));
        }
        List<String> problems = ArgumentCheck.problems(tool.schema(), values);
        if (!problems.isEmpty()) {
            return failed(tool, "Invalid arguments for " + tool.name() + ": " + String.join(" ", problems));
        }
        Arguments arguments = Arguments.of(values);
        List<Subject> subjects;
        try {
            List<Subject> named = service.get().subjects(arguments, workspace);
            subjects = named == null ? List.of() : List.copyOf(named);
        } catch (ToolException e) {
            return failed(tool, e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Tool {} failed to name its subjects", tool.name(), e);
            return failed(tool, tool.name() + " could not read its arguments (" + e.getClass().getSimpleName()
                    + "); check them against its schema.");
        }
        List<ParsedCommand> commands = new ArrayList<>();
        for (Subject subject : subjects) {
            if (subject.kind() == Subject.Kind.COMMAND) {
                commands.add(ShellParser.parse(subject.value()));
            }
        }
        return new Prepared(tool, arguments, subjects, commands, tool.name() + " " + Json.write(values), null);
    }

    private static Prepared failed(RegisteredTool tool, String error) {
        return new Prepared(tool, null, List.of(), List.of(), null, error);
    }

    /** guard → rules → repeat rule. Yolo and approval come after. */
    /**
     * How the call would be decided on other subjects (where a redirect leads): as a call is, with no one
     * asked and no repeat counted, and recorded in the audit log as a call's decision is.
     */
    private ToolContext.Permission permission(Prepared prepared, List<Subject> subjects, Optional<String> subagent) {
        Prepared other = new Prepared(prepared.tool(), prepared.arguments(), subjects, List.of(), prepared.key(), null);
        Decided decided = decide(other, false);
        Verdict verdict = applyYolo(decided);
        audit.record(prepared.tool().name(), subjects.stream().map(subject -> new Subject(subject.kind(),
                redacted(subject.value()))).toList(), verdict, verdict.by().equals(PermissionEngine.BY_RULE)
                ? decided.rule() : Optional.empty(), subagent);
        return switch (verdict.decision()) {
            case ALLOW -> ToolContext.Permission.ALLOWED;
            case ASK -> ToolContext.Permission.ASKS;
            default -> ToolContext.Permission.DENIED;
        };
    }

    private Decided decide(Prepared prepared, boolean countRepeat) {
        RegisteredTool tool = prepared.tool();
        if (!offers(tool)) {
            return new Decided(new Verdict(Decision.DENY, BY_MODE, "this session is read-only; " + tool.name() + " is a "
                    + tool.access().id() + " tool."), Optional.empty(), List.of());
        }
        Optional<String> refusal = guardRefusal(prepared);
        if (refusal.isPresent()) {
            return new Decided(new Verdict(Decision.DENY, BY_GUARD, refusal.get()), Optional.empty(), List.of());
        }
        // a commit puts a file's content into history for good: the git set's paths are judged as reads
        boolean publishes = tool.set().filter("git"::equals).isPresent();
        Decided decided = engine.decide(tool.name(), tool.access(), publishes, autoApproved(tool), prepared.subjects(),
                prepared.commands(), grants);
        if (countRepeat) {
            int count = repeats.merge(prepared.key(), 1, Integer::sum);
            if (count >= REPEAT_LIMIT && decided.verdict().decision() == Decision.ALLOW) {
                return new Decided(new Verdict(Decision.ASK, BY_REPEAT, "this is call number " + count + " to "
                        + tool.name() + " with the same arguments in this turn; repeating it will not give a different "
                        + "result. Try something else."), Optional.empty(), List.of());
            }
        }
        return decided;
    }

    private Optional<String> guardRefusal(Prepared prepared) {
        if (prepared.tool().access() != Access.READ && prepared.tool().access() != Access.STATE) {
            for (Subject subject : prepared.subjects()) {
                if (subject.kind() == Subject.Kind.PATH && protectedPath(subject.value())) {
                    return Optional.of(subject.value() + " is inside the workspace's .git or .quiver folder, which no "
                            + "file tool changes: .git is the repository's own data (commit with git_commit), .quiver "
                            + "holds Quiver's configuration of the workspace, which only the user edits.");
                }
            }
        }
        for (ParsedCommand command : prepared.commands()) {
            Optional<String> refusal = CommandGuard.refusal(command, engine.shellWorkspace());
            if (refusal.isPresent()) {
                return refusal;
            }
        }
        ToolCall call = new ToolCall(prepared.tool().name(), prepared.tool().access(), prepared.arguments(),
                prepared.subjects());
        for (Guard guard : guards.get()) {
            Optional<String> refusal;
            try {
                refusal = guard.refusal(call);
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Guard {} failed; refusing the call", guard.getClass().getName(), e);
                refusal = Optional.of("a guard (" + guard.getClass().getName() + ") failed while checking this call, "
                        + "so it is refused to be safe.");
            }
            if (refusal != null && refusal.isPresent()) {
                return refusal;
            }
        }
        return Optional.empty();
    }

    private boolean protectedPath(String path) {
        try {
            return workspace.isProtected(workspace.resolve(path));
        } catch (ToolException outside) {
            return false; // outside the workspace: the rules and the jail judge it
        }
    }

    private CallOutcome execute(Prepared prepared, Verdict verdict, TurnListener listener, long started,
            Optional<String> subagent) {
        RegisteredTool tool = prepared.tool();
        Optional<Tool> service = tool.service();
        if (service.isEmpty()) {
            return outcome(tool.name(), Status.ERROR, unloaded(tool.name(), false), started, verdict);
        }
        if (tool.access() == Access.WRITE || tool.access() == Access.EXECUTE) {
            // a failed checkpoint is told, never a reason not to run the call
            beforeChange.before(tool.name() + " (" + tool.access().id() + ")").ifPresent(listener::notice);
        }
        CallContext context = new CallContext(workspace, settings, environment, sections::put,
                text -> listener.callOutput(tool.name(), redacted(text)))
                .withStateFolder(stateFolder).withTrust(workspaceTrusted);
        Asker model = asker;
        // what the question carries goes to the model as a tool's result does: with the secret values known now replaced
        context.withAsker((instructions, input) -> {
            Redactor known = redactor;
            if (known != null) {
                known.refresh();
            }
            return model.ask(redacted(instructions), redacted(input), listener, context::isCancelled);
        }).withPermissions(subjects -> permission(prepared, subjects, subagent));
        Delegate children = subagents;
        context.withSubagents((label, kind, prompt) -> {
            if (subagent.isPresent()) {
                throw new ToolException(NO_GRANDCHILDREN);
            }
            return children.run(label, kind, prompt, listener, context);
        }).withIsolatedWorkers((label, prompt, keep) -> {
            if (subagent.isPresent()) {
                throw new ToolException(NO_GRANDCHILDREN);
            }
            if (modes.readOnly()) {
                throw new ToolException("This session is read-only, so no worker can be started: a worker changes "
                        + "files. Use task with kind explore or review to look into it instead.");
            }
            return children.runIsolated(label, prompt, keep, listener, context);
        });
        context.withUser(question -> askUser(question, listener, subagent));
        running.add(context);
        Redactor values = redactor;
        if (values != null && !values.looked()) {
            // the first look walks the whole tree for secret files: done while the tool runs, once
            workers.execute(values::refresh);
        }
        Future<ToolResult> future;
        try {
            future = workers.submit(() -> service.get().call(prepared.arguments(), context));
        } catch (RuntimeException rejected) {
            running.remove(context);
            return outcome(tool.name(), Status.ERROR, "The session is closing; " + tool.name() + " was not run.",
                    started, verdict);
        }
        try {
            ToolResult result = awaitResult(future, context);
            String text = result == null ? "" : result.text();
            return outcome(tool.name(), Status.OK, text, started, verdict);
        } catch (TimeoutException e) {
            context.cancel();
            future.cancel(true);
            awaitQuietly(future);
            return outcome(tool.name(), Status.ERROR, tool.name() + " did not return within " + timeout.toSeconds()
                    + " s and was cancelled. It did not finish, so its effects are unknown.", started, verdict);
        } catch (InterruptedException e) {
            context.cancel();
            future.cancel(true);
            Thread.currentThread().interrupt();
            return outcome(tool.name(), Status.ERROR, tool.name() + " was interrupted. It did not finish, so its "
                    + "effects are unknown.", started, verdict);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ToolException toolError) {
                return outcome(tool.name(), Status.ERROR, toolError.getMessage(), started, verdict);
            }
            if (!tool.isRegistered()) {
                return outcome(tool.name(), Status.ERROR, unloaded(tool.name(), true), started, verdict);
            }
            LOG.warn("Tool {} failed", tool.name(), cause);
            return outcome(tool.name(), Status.ERROR, tool.name() + " failed: " + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : ": " + cause.getMessage()), started, verdict);
        } catch (java.util.concurrent.CancellationException e) {
            return outcome(tool.name(), Status.ERROR, tool.name() + " was cancelled. It did not finish, so its "
                    + "effects are unknown.", started, verdict);
        } finally {
            running.remove(context);
        }
    }

    /**
     * The tool's result within the tool timeout; a call that runs a subagent is bounded by the child's step
     * cap instead, each of whose calls and model requests has its own bound.
     */
    private ToolResult awaitResult(Future<ToolResult> future, CallContext context)
            throws InterruptedException, ExecutionException, TimeoutException {
        while (true) {
            try {
                return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!context.waitsBeyondTimeout()) {
                    throw e;
                }
            }
        }
    }

    private static void awaitQuietly(Future<?> future) {
        try {
            future.get(CANCEL_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (Exception ignored) {
            // the tool ignores cancellation; its thread is left to finish on its own
        }
    }

    /** Cancels every call still running (an interrupt, an aborted turn, the session closing); whether any ran. */
    boolean cancelAll() {
        boolean any = !running.isEmpty();
        running.forEach(CallContext::cancel);
        return any;
    }

    static String unloaded(String name, boolean whileRunning) {
        return whileRunning
                ? "Tool " + name + " was unloaded while this call ran (its bundle stopped). The call did not complete, "
                        + "so its effects are unknown."
                : "Tool " + name + " was unloaded (its bundle stopped) and is no longer offered.";
    }

    /** The subjects an approval question shows: a folder delete names every path, so the list is cut. */
    private static String subjectLine(List<Subject> subjects) {
        if (subjects.isEmpty()) {
            return "*";
        }
        String shown = subjects.stream().limit(SHOWN_SUBJECTS).map(Subject::value).collect(Collectors.joining("\n"));
        return subjects.size() <= SHOWN_SUBJECTS ? shown
                : shown + "\n... and " + (subjects.size() - SHOWN_SUBJECTS) + " more";
    }

    private static final int SHOWN_SUBJECTS = 20;

    /** A call's outcome, its text capped and with known secret values replaced (after the tool ran: it may have made some). */
    private CallOutcome outcome(String tool, Status status, String output, long started, Verdict verdict) {
        Redactor values = redactor;
        if (values != null && status != Status.DENIED) {
            values.refresh();
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        // the reason may quote a command, which may hold a value: it reaches front ends and the session too
        Verdict shown = new Verdict(verdict.decision(), verdict.by(), redacted(verdict.reason()));
        return new CallOutcome(tool, status, ResultCap.cap(redacted(output)), elapsed, shown);
    }
}
