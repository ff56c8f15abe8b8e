package dev.quiver.kernel;

import dev.quiver.api.Arguments;
import dev.quiver.api.Guard;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolCall;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.CallOutcome.Status;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * One call's path: look the tool up in the step's snapshot, check the arguments, ask the guards,
 * decide, get approval, run the tool on a worker thread with a timeout, cap the result.
 * A refused call never reaches the tool.
 */
final class CallChain {

    private static final Logger LOG = LoggerFactory.getLogger(CallChain.class);
    static final String BY_GUARD = "guard";
    static final String BY_MODE = "mode";
    /** How long a cancelled tool gets to return before the call is reported without it. */
    private static final long CANCEL_GRACE_MILLIS = 2000;

    private final Workspace workspace;
    private final Permissions permissions;
    private final Supplier<List<Guard>> guards;
    private final ExecutorService workers;
    private final boolean yolo;
    private final boolean interactive;
    private final Duration timeout;
    private final Set<CallContext> running = new CopyOnWriteArraySet<>();

    CallChain(Workspace workspace, Permissions permissions, Supplier<List<Guard>> guards, ExecutorService workers,
            boolean yolo, boolean interactive, Duration timeout) {
        this.workspace = workspace;
        this.permissions = permissions;
        this.guards = guards;
        this.workers = workers;
        this.yolo = yolo;
        this.interactive = interactive;
        this.timeout = timeout;
    }

    /** A call that was prepared: its tool, arguments and subjects, or why it cannot run. */
    private record Prepared(RegisteredTool tool, Arguments arguments, List<Subject> subjects, String error) {
    }

    /** The decision alone, as {@code quiver check} reports it: nothing runs, nobody is asked. */
    Verdict check(List<RegisteredTool> snapshot, String name, String argumentsJson) {
        Optional<RegisteredTool> tool = find(snapshot, name);
        if (tool.isEmpty()) {
            return permissions.unknown(name);
        }
        Prepared prepared = prepare(tool.get(), argumentsJson);
        if (prepared.error() != null) {
            return new Verdict(Decision.DENY, Permissions.BY_DEFAULT, prepared.error());
        }
        return decide(prepared);
    }

    /** Runs a call through the whole chain. */
    CallOutcome run(List<RegisteredTool> snapshot, String name, String argumentsJson, TurnListener listener) {
        long started = System.nanoTime();
        Optional<RegisteredTool> tool = find(snapshot, name);
        if (tool.isEmpty()) {
            String offered = snapshot.stream().map(RegisteredTool::name).collect(Collectors.joining(", "));
            return outcome(name, Status.ERROR, "No tool named '" + name + "' is offered in this step. "
                    + (offered.isEmpty() ? "No tools are offered now." : "Offered: " + offered + "."),
                    started, permissions.unknown(name));
        }
        Prepared prepared = prepare(tool.get(), argumentsJson);
        if (prepared.error() != null) {
            return outcome(name, Status.ERROR, prepared.error(), started,
                    new Verdict(Decision.DENY, Permissions.BY_DEFAULT, "the arguments are invalid"));
        }
        Verdict verdict = decide(prepared);
        if (verdict.decision() == Decision.ASK) {
            if (interactive) {
                boolean approved = listener.approve(name, subjectLine(prepared.subjects()), verdict);
                verdict = approved
                        ? new Verdict(Decision.ALLOW, "user", "approved by the user")
                        : new Verdict(Decision.DENY, "user", "the user declined");
            } else {
                verdict = new Verdict(Decision.DENY, BY_MODE, verdict.reason()
                        + " No one can approve calls in this session, so it was refused. The user can allow it with a "
                        + "permission rule or run with --yolo.");
            }
        }
        if (verdict.decision() == Decision.DENY) {
            String message = "user".equals(verdict.by())
                    ? "The user denied this call. Ask the user what to do instead."
                    : "Refused (" + verdict.by() + "): " + verdict.reason();
            return outcome(name, Status.DENIED, message, started, verdict);
        }
        return execute(prepared, verdict, listener, started);
    }

    private Optional<RegisteredTool> find(List<RegisteredTool> snapshot, String name) {
        return snapshot.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    private Prepared prepare(RegisteredTool tool, String argumentsJson) {
        Map<String, Object> values;
        try {
            values = Json.arguments(tool.name(), argumentsJson);
        } catch (IllegalArgumentException e) {
            return new Prepared(tool, null, List.of(), e.getMessage());
        }
        Optional<Tool> service = tool.service();
        if (service.isEmpty() || tool.spec().isEmpty()) {
            return new Prepared(tool, null, List.of(), unloaded(tool.name(), false));
        }
        List<String> problems = ArgumentCheck.problems(tool.schema(), values);
        if (!problems.isEmpty()) {
            return new Prepared(tool, null, List.of(), "Invalid arguments for " + tool.name() + ": "
                    + String.join(" ", problems));
        }
        Arguments arguments = Arguments.of(values);
        try {
            List<Subject> subjects = service.get().subjects(arguments);
            return new Prepared(tool, arguments, subjects == null ? List.of() : List.copyOf(subjects), null);
        } catch (ToolException e) {
            return new Prepared(tool, null, List.of(), e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Tool {} failed to name its subjects", tool.name(), e);
            return new Prepared(tool, null, List.of(), tool.name() + " could not read its arguments ("
                    + e.getClass().getSimpleName() + "); check them against its schema.");
        }
    }

    private Verdict decide(Prepared prepared) {
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
                return new Verdict(Decision.DENY, BY_GUARD, refusal.get());
            }
        }
        Verdict verdict = permissions.decide(prepared.tool(), prepared.subjects());
        if (verdict.decision() == Decision.ASK && yolo) {
            return new Verdict(Decision.ALLOW, BY_MODE, "--yolo turns asks into allows (" + verdict.reason() + ")");
        }
        return verdict;
    }

    private CallOutcome execute(Prepared prepared, Verdict verdict, TurnListener listener, long started) {
        RegisteredTool tool = prepared.tool();
        Optional<Tool> service = tool.service();
        if (service.isEmpty()) {
            return outcome(tool.name(), Status.ERROR, unloaded(tool.name(), false), started, verdict);
        }
        CallContext context = new CallContext(workspace, text -> listener.callOutput(tool.name(), text));
        running.add(context);
        Future<ToolResult> future;
        try {
            future = workers.submit(() -> service.get().call(prepared.arguments(), context));
        } catch (RuntimeException rejected) {
            running.remove(context);
            return outcome(tool.name(), Status.ERROR, "The session is closing; " + tool.name() + " was not run.",
                    started, verdict);
        }
        try {
            ToolResult result = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
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

    private static void awaitQuietly(Future<?> future) {
        try {
            future.get(CANCEL_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (Exception ignored) {
            // the tool ignores cancellation; its thread is left to finish on its own
        }
    }

    /** Cancels every call still running (the session is closing or the turn was aborted). */
    void cancelAll() {
        running.forEach(CallContext::cancel);
    }

    static String unloaded(String name, boolean whileRunning) {
        return whileRunning
                ? "Tool " + name + " was unloaded while this call ran (its bundle stopped). The call did not complete, "
                        + "so its effects are unknown."
                : "Tool " + name + " was unloaded (its bundle stopped) and is no longer offered.";
    }

    private static String subjectLine(List<Subject> subjects) {
        return subjects.isEmpty() ? "*" : subjects.stream().map(Subject::value).collect(Collectors.joining("\n"));
    }

    private static CallOutcome outcome(String tool, Status status, String output, long started, Verdict verdict) {
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return new CallOutcome(tool, status, ResultCap.cap(output), elapsed, verdict);
    }
}
