package dev.quiver.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.quiver.api.Access;
import dev.quiver.api.UserQuestion;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Usage;
import dev.quiver.api.host.Verdict;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Runs the calls of one model answer. A run of consecutive calls that may overlap (reads, and subagents
 * that change nothing) runs together, at most {@link #AT_ONCE} at a time; any other call runs alone, after
 * every call before it has ended and before any after it starts, so a write never overlaps another call.
 * Outcomes are handed back in the order the model asked for the calls.
 *
 * <p>The front end hears the calls of a run one after another, in request order, as if they ran in
 * sequence: the first unfinished call's events pass through as they happen; a later call's wait, and are
 * passed on when every call before it has ended. A call that needs the user's approval waits for its turn
 * the same way, so the user is asked one question at a time and about the call the front end shows.
 */
final class StepCalls {

    /** Calls of one step that run at the same time. */
    static final int AT_ONCE = 4;

    /** Runs one call through the chain, telling {@code listener} about it. */
    interface Runner {
        CallOutcome run(ToolExecutionRequest request, TurnListener listener);
    }

    private StepCalls() {
    }

    /**
     * Whether a call may run alongside others: a read; a {@code task} whose child changes nothing (explore,
     * review; a worker writes in the user's tree); a {@code spawn_subagent}, whose worker writes only in
     * a checkout of its own. A call of a tool not offered ends at once with an error, alone. The two agent
     * tools overlap by their name only while they declare the agent's state as the built-in ones do: a
     * plugin's tool that took one of the names (by a higher service ranking) and declares write or execute
     * is taken at its word and runs alone.
     */
    static boolean overlaps(List<RegisteredTool> offered, ToolExecutionRequest request) {
        Optional<RegisteredTool> tool = offered.stream().filter(t -> t.name().equals(request.name())).findFirst();
        if (tool.isEmpty()) {
            return false;
        }
        if (tool.get().access() == Access.READ) {
            return true;
        }
        if (tool.get().access() != Access.STATE) {
            return false;
        }
        if (request.name().equals(Subagents.SPAWN)) {
            return true;
        }
        if (request.name().equals(Subagents.TASK)) {
            try {
                JsonNode kind = Json.MAPPER.readTree(request.arguments()).path("kind");
                return !kind.asText("explore").strip().equalsIgnoreCase("worker");
            } catch (IOException | RuntimeException e) {
                return false; // the chain tells the model what is wrong with the arguments
            }
        }
        return false;
    }

    /** What the loop does with each call's outcome, on its own thread, in request order. */
    interface Ended {
        /** @param outcome null for a call that was not run (the turn was aborted first) */
        void accept(ToolExecutionRequest request, CallOutcome outcome);
    }

    /**
     * Runs the calls; {@code ended} hears each run's outcomes as soon as the run is over, so a call's result
     * is recorded before the next write starts.
     *
     * @param overlaps whether a call may run alongside its neighbours that may too
     * @param cancelled whether the turn was aborted: a call not yet started is then not run
     */
    static void run(List<ToolExecutionRequest> requests, Predicate<ToolExecutionRequest> overlaps,
            Runner runner, TurnListener listener, Executor executor, BooleanSupplier cancelled, Ended ended) {
        int next = 0;
        while (next < requests.size()) {
            int end = next + 1;
            if (overlaps.test(requests.get(next))) {
                while (end < requests.size() && overlaps.test(requests.get(end))) {
                    end++;
                }
            }
            List<ToolExecutionRequest> group = requests.subList(next, end);
            List<CallOutcome> outcomes = group.size() == 1
                    ? java.util.Collections.singletonList(cancelled.getAsBoolean() ? null
                            : runner.run(group.get(0), listener))
                    : together(group, runner, listener, executor, cancelled);
            for (int i = 0; i < group.size(); i++) {
                ended.accept(group.get(i), outcomes.get(i));
            }
            next = end;
        }
    }

    private static List<CallOutcome> together(List<ToolExecutionRequest> group, Runner runner, TurnListener listener,
            Executor executor, BooleanSupplier cancelled) {
        InOrder events = new InOrder(listener, group.size(), cancelled);
        Semaphore slots = new Semaphore(AT_ONCE);
        List<FutureTask<CallOutcome>> tasks = new ArrayList<>(group.size());
        try {
            for (int i = 0; i < group.size(); i++) {
                int index = i;
                ToolExecutionRequest request = group.get(i);
                // taken in request order: an earlier call, which a later one may wait for, always holds a slot
                slots.acquire();
                FutureTask<CallOutcome> task = new FutureTask<>(() -> {
                    try {
                        return cancelled.getAsBoolean() ? null : runner.run(request, events.forCall(index));
                    } finally {
                        events.ended(index);
                        slots.release();
                    }
                });
                tasks.add(task);
                try {
                    executor.execute(task);
                } catch (RuntimeException rejected) {
                    slots.release();
                    events.ended(index);
                    task.cancel(false);
                }
            }
            List<CallOutcome> outcomes = new ArrayList<>(group.size());
            for (FutureTask<CallOutcome> task : tasks) {
                outcomes.add(task.isCancelled() ? null : task.get());
            }
            return outcomes;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.quiver.api.host.HostException("The turn was interrupted while its calls ran.");
        } catch (ExecutionException e) {
            // the chain turns every failure of a tool into an outcome: this is a failure of the kernel itself
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        } finally {
            for (int i = tasks.size(); i < group.size(); i++) {
                events.ended(i); // never started: the front end hears nothing of them
            }
        }
    }

    /**
     * The events of calls that run together, passed to the front end as if the calls ran one after
     * another: the first unfinished call (the floor) is heard live; a later call's events are kept until
     * the floor reaches it. Events are passed on under one lock, so a front end never hears two at once.
     */
    private static final class InOrder {
        private final TurnListener target;
        private final List<List<Consumer<TurnListener>>> kept;
        private final boolean[] ended;
        private final BooleanSupplier cancelled;
        private int floor;

        InOrder(TurnListener target, int calls, BooleanSupplier cancelled) {
            this.target = target;
            this.cancelled = cancelled;
            this.kept = new ArrayList<>(calls);
            for (int i = 0; i < calls; i++) {
                kept.add(new ArrayList<>());
            }
            this.ended = new boolean[calls];
        }

        synchronized void pass(int call, Consumer<TurnListener> event) {
            if (call == floor) {
                event.accept(target);
            } else {
                kept.get(call).add(event);
            }
        }

        /** The call has ended (or never ran): the floor moves on past every call that has ended. */
        synchronized void ended(int call) {
            ended[call] = true;
            while (floor < ended.length && ended[floor]) {
                floor++;
                if (floor < ended.length) {
                    kept.get(floor).forEach(event -> event.accept(target));
                    kept.get(floor).clear();
                }
            }
            notifyAll();
        }

        /**
         * Whether the floor reached the call, waited for; false when the turn was aborted meanwhile, so
         * no one is asked about it.
         */
        private synchronized boolean awaitFloor(int call) {
            while (floor != call) {
                if (cancelled.getAsBoolean()) {
                    return false;
                }
                try {
                    wait(200); // looks at the cancel flag again: an abort does not wake this
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }

        // both asked outside the lock: the person may take minutes, and the floor's own events must still pass

        Approval approve(int call, ApprovalRequest request) {
            return awaitFloor(call) ? target.approve(request) : Approval.deny("");
        }

        /** A tool's question to the user ({@link dev.quiver.api.ToolContext#askUser}), asked as an approval is. */
        Optional<List<String>> ask(int call, UserQuestion question) {
            return awaitFloor(call) ? target.ask(question) : Optional.empty();
        }

        TurnListener forCall(int call) {
            return new TurnListener() {
                @Override
                public void text(String text) {
                    pass(call, listener -> listener.text(text));
                }

                @Override
                public void notice(String text) {
                    pass(call, listener -> listener.notice(text));
                }

                @Override
                public void retrying(String text) {
                    pass(call, listener -> listener.retrying(text));
                }

                @Override
                public void usage(Usage step) {
                    pass(call, listener -> listener.usage(step));
                }

                @Override
                public void callStarted(String callId, String tool, String arguments) {
                    pass(call, listener -> listener.callStarted(callId, tool, arguments));
                }

                @Override
                public void callDecided(String tool, Verdict verdict) {
                    pass(call, listener -> listener.callDecided(tool, verdict));
                }

                @Override
                public void callChanged(String tool, String diff) {
                    pass(call, listener -> listener.callChanged(tool, diff));
                }

                @Override
                public void callOutput(String tool, String text) {
                    pass(call, listener -> listener.callOutput(tool, text));
                }

                @Override
                public void callEnded(CallOutcome outcome) {
                    pass(call, listener -> listener.callEnded(outcome));
                }

                @Override
                public Approval approve(ApprovalRequest request) {
                    return InOrder.this.approve(call, request);
                }

                @Override
                public Optional<List<String>> ask(UserQuestion question) {
                    return InOrder.this.ask(call, question);
                }
            };
        }
    }
}
