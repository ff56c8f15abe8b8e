package dev.quiver.kernel;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.TokenUsage;
import dev.quiver.api.ToolException;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.Usage;
import dev.quiver.kernel.conversation.ArgumentLimit;
import dev.quiver.kernel.conversation.Compaction;
import dev.quiver.kernel.conversation.Prices;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.kernel.conversation.TokenCounter;
import dev.quiver.langchain4j.ModelException;
import java.util.Optional;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The agent loop on LangChain4j's chat models: send the step's tools and a system prompt rebuilt
 * from live state, run the calls the model asks for through the call chain, send the results back,
 * and loop until the model answers without calls or the step cap is reached. Streaming is used when
 * the provider offers it. Before each request the history is compacted if it no longer fits. Every
 * event is recorded to the session file as it happens.
 */
final class AgentLoop {

    /** Model requests one prompt may make unless the run says otherwise ({@code --max-turns}). */
    static final int STEP_CAP = dev.quiver.api.host.RunOptions.DEFAULT_MAX_TURNS;
    /** Tokens kept free for the model's answer. */
    static final int ANSWER_RESERVE = 4096;

    /** The models of a session, looked up again for every turn so a swapped provider bundle is used. */
    interface Models {
        ChatModel chat();

        /** The streaming model, or null when the provider has none. */
        StreamingChatModel streaming();

        String name();
    }

    private volatile Models models;
    private volatile boolean cancelled;
    private volatile CompletableFuture<ChatResponse> pending;
    private final java.util.concurrent.Executor requests;
    private final CallChain chain;
    private final Supplier<List<RegisteredTool>> offered;
    private final Path workspace;
    private final boolean interactive;
    private final SessionStore.Recorder recorder;
    private final int contextTokens;
    private final Duration silenceLimit;
    /** When the model request in progress last showed progress (a streamed piece), as {@link System#nanoTime()}. */
    private volatile long lastProgress;
    private final TokenCounter tokens = new TokenCounter();
    private final List<String> compactedTurns = new ArrayList<>();
    private List<ChatMessage> history;
    private volatile Notes notes = Notes.NONE;
    private volatile Instructions instructions = Instructions.NONE;
    private volatile int stepCap = STEP_CAP;
    /** The agent variant's paragraph of every step's prompt; empty for none. */
    private volatile String variantPrompt = "";
    /** The user's text for the end of every step's system prompt ({@code --append-system-prompt}). */
    private Optional<String> appended = Optional.empty();
    /** The label of the subagent this loop is, whose calls the chain audits as its; empty for a session's own. */
    private Optional<String> subagent = Optional.empty();
    /** Who summarises earlier turns when the history is compacted; empty: they are dropped without a summary. */
    private Optional<CallChain.Asker> summaries = Optional.empty();
    /** What this loop's own model requests used, whether or not its turn ended well. */
    private volatile Usage spent = Usage.NONE;

    /**
     * @param silenceLimit how long a model request may go without progress before the loop gives up on
     *     it. Only a last resort: the provider's HTTP client bounds each attempt by {@code modelTimeout}
     *     between reads and retries by its policy, so this is longer than all of that together (see
     *     {@link dev.quiver.langchain4j.RetryPolicy#longestSilence}) and catches only a provider that
     *     never answers or fails. A long answer that keeps streaming is never cut.
     */
    AgentLoop(Models models, CallChain chain, Supplier<List<RegisteredTool>> offered, Path workspace, boolean interactive,
            SessionStore.Recorder recorder, List<ChatMessage> history, int contextTokens, Duration silenceLimit,
            java.util.concurrent.Executor requests) {
        this.models = models;
        this.requests = requests;
        this.chain = chain;
        this.offered = offered;
        this.workspace = workspace;
        this.interactive = interactive;
        this.recorder = recorder;
        this.history = new ArrayList<>(history);
        this.contextTokens = contextTokens;
        this.silenceLimit = silenceLimit;
    }

    /** The notes each step's prompt lists while {@code remember} is offered. */
    AgentLoop withNotes(Notes kept) {
        this.notes = kept;
        return this;
    }

    /** The project instructions every step's prompt ends with, read again at each step. */
    AgentLoop withInstructions(Instructions read) {
        this.instructions = read;
        return this;
    }

    /** The run's step cap and the text added to the end of the system prompt. */
    AgentLoop withRun(int maxTurns, Optional<String> appendSystemPrompt) {
        this.stepCap = maxTurns;
        this.appended = appendSystemPrompt;
        return this;
    }

    /** The agent variant's step cap and prompt paragraph, from the next turn on ({@code /agent}). */
    AgentLoop withVariant(int steps, String prompt) {
        this.stepCap = steps;
        this.variantPrompt = prompt;
        return this;
    }

    /** Makes this loop a subagent's: its calls are decided and audited as the parent's, with its label. */
    AgentLoop asSubagent(String label) {
        this.subagent = Optional.of(label);
        return this;
    }

    /** What this loop's own model requests have used so far (a tool's questions to the model not included). */
    Usage spent() {
        return spent;
    }

    /** Aborts the turn in progress: the model request is abandoned and send throws as soon as it can. */
    void cancel() {
        cancelled = true;
        CompletableFuture<ChatResponse> request = pending;
        if (request != null) {
            request.completeExceptionally(new HostException("The turn was cancelled."));
        }
    }

    /** Uses other models from the next request on. */
    void switchModels(Models replacement) {
        models = replacement;
    }

    /** What runs at each streamed piece of a model's answer: the session's idle warm-up, which starts once. */
    private Runnable answering = () -> { };
    /** What runs when an answer has come: the warm-up gives way to the answer's calls. */
    private Runnable answered = () -> { };

    /**
     * Runs {@code begins} as a streamed answer arrives, when its request has long been on the wire, and
     * {@code ends} once the answer is in, before its calls run; both must be quick.
     */
    AgentLoop whileAnswering(Runnable begins, Runnable ends) {
        this.answering = begins;
        this.answered = ends;
        return this;
    }

    /** Who writes the summary that replaces earlier turns when the history is compacted: the session's model. */
    AgentLoop withSummaries(CallChain.Asker model) {
        this.summaries = Optional.of(model);
        return this;
    }

    /**
     * Compacts now ({@code /compact}, between turns): the whole conversation is replaced by the model's
     * summary of it; where there is nothing to summarise, or the summary fails (said so), the history is
     * shortened by the ladder as if it no longer fit. Says what was done.
     */
    String compactNow(TurnListener listener) {
        int before = tokens.count(history);
        String failed = "";
        if (summarisable(history.size())) {
            try {
                return summarise(history.size(), before, listener, () -> false);
            } catch (ToolException e) {
                failed = "The model's summary failed (" + e.getMessage() + "), so the history was shortened without "
                        + "one. ";
            }
        }
        Compaction.Result result = Compaction.compact(history, before / 2, tokens);
        if (!result.changed()) {
            return failed + "Nothing to compact.";
        }
        history = new ArrayList<>(result.messages());
        compactedTurns.addAll(result.droppedTurns());
        String description = result.describe(before);
        recorder.compacted(description);
        return failed + description;
    }

    /** Whether the history before {@code end} holds turns a summary could stand for (a summary alone is not summarised again). */
    private boolean summarisable(int end) {
        return summaries.isPresent() && end > 0 && Compaction.turnsBefore(history, end) > 0;
    }

    /**
     * Replaces the history before {@code start} (the whole of it, or the turns before the one under way) by the
     * model's summary of it, recorded for a resume.
     */
    private String summarise(int start, int before, TurnListener listener, java.util.function.BooleanSupplier stop)
            throws ToolException {
        int turns = Compaction.turnsBefore(history, start);
        boolean keepsCurrent = start < history.size();
        // about half the context window, at some four characters a token
        String transcript = Compaction.transcript(history.subList(0, start), contextTokens * 2);
        String summary = summaries.orElseThrow().ask(Compaction.SUMMARY_INSTRUCTIONS, transcript, listener, stop);
        history = new ArrayList<>(Compaction.summarised(history, start, summary));
        String description = String.format(java.util.Locale.ROOT, "History compacted from %,d to %,d tokens: %d earlier "
                + "turn%s replaced by the model's summary%s.", before, tokens.count(history), turns, turns == 1 ? "" : "s",
                keepsCurrent ? " (the turn under way is kept)" : "");
        recorder.summarised(description, summary, keepsCurrent);
        return description;
    }

    /** Takes the last turns out of the history: an undo took back what they did. */
    void rewind(int turns) {
        history = Compaction.withoutLastTurns(history, turns);
    }

    private void checkCancelled() {
        if (cancelled) {
            throw new HostException("The turn was cancelled.");
        }
    }

    TurnResult send(String prompt, TurnListener listener) {
        cancelled = false;
        prepareModels();
        history.add(UserMessage.from(prompt));
        recorder.user(prompt);
        List<CallOutcome> calls = new ArrayList<>();
        Usage turn = Usage.NONE;
        boolean askedAgain = false;
        for (int step = 1; step <= stepCap; step++) {
            checkCancelled();
            List<RegisteredTool> tools = offered.get();
            Step answer = request(tools, listener);
            turn = turn.plus(answer.usage());
            AiMessage received = withIds(answer.message());
            // what is kept and resent: arguments over the limit never go back to the model or into the session
            AiMessage message = ArgumentLimit.bounded(received);
            if (!message.hasToolExecutionRequests()) {
                String text = message.text() == null ? "" : message.text();
                if (text.isBlank()) {
                    // an empty assistant message is rejected by the providers when sent back, so it is
                    // never kept; the same request is tried once more, then the user is told
                    if (!askedAgain) {
                        askedAgain = true;
                        continue;
                    }
                    throw new HostException("The model answered with nothing twice (no text and no tool calls)."
                            + " Nothing was added to the conversation; send the prompt again or try another model.");
                }
                history.add(message);
                recorder.assistant(message);
                return new TurnResult(TurnResult.Status.DONE, text, calls, step, turn);
            }
            history.add(message);
            recorder.assistant(message);
            // reads run together, writes alone (StepCalls); results go back in the order asked for
            StepCalls.run(received.toolExecutionRequests(), request -> StepCalls.overlaps(tools, request),
                    (request, heard) -> call(tools, request, heard), listener, requests, () -> cancelled,
                    (request, outcome) -> {
                        if (outcome == null) {
                            // every call needs its result, even the ones an aborted turn never ran
                            history.add(ToolExecutionResultMessage.from(request, "Not run: the user aborted the turn."));
                            return;
                        }
                        calls.add(outcome);
                        String output = forModel(outcome);
                        history.add(ToolExecutionResultMessage.from(request, output));
                        recorder.tool(request, outcome, output);
                    });
        }
        return new TurnResult(TurnResult.Status.STEP_LIMIT, "", calls, stepCap, turn);
    }

    /** One call through the chain, as this loop's own or its subagent's, heard from start to end. */
    private CallOutcome call(List<RegisteredTool> tools, ToolExecutionRequest request, TurnListener listener) {
        long oversize = ArgumentLimit.oversize(request.arguments());
        listener.callStarted(request.id(), request.name(),
                oversize < 0 ? request.arguments() : ArgumentLimit.standIn(oversize));
        CallOutcome outcome = subagent.isPresent()
                ? chain.runFor(subagent.get(), tools, request.name(), request.arguments(), listener)
                : chain.run(tools, request.name(), request.arguments(), listener);
        listener.callEnded(outcome);
        return outcome;
    }

    /**
     * Older Ollama servers send tool calls without ids, and a careless server may give two calls of one
     * answer the same id; results, the front end and session files pair by id, so each call gets one of
     * its own (a repeated id is the second call's to lose: on resume it would lose its result).
     */
    private AiMessage withIds(AiMessage message) {
        if (!message.hasToolExecutionRequests()) {
            return message;
        }
        java.util.Set<String> taken = new java.util.HashSet<>();
        message.toolExecutionRequests().forEach(r -> taken.add(r.id()));
        java.util.Set<String> kept = new java.util.HashSet<>();
        List<ToolExecutionRequest> requests = new ArrayList<>();
        for (ToolExecutionRequest request : message.toolExecutionRequests()) {
            if (request.id() != null && !request.id().isBlank() && kept.add(request.id())) {
                requests.add(request);
                continue;
            }
            String id;
            do {
                id = "call_q" + (++generatedIds);
            } while (!taken.add(id));
            requests.add(ToolExecutionRequest.builder().id(id).name(request.name()).arguments(request.arguments())
                    .build());
        }
        if (kept.size() == requests.size()) {
            return message;
        }
        return message.text() == null || message.text().isBlank() ? AiMessage.from(requests)
                : AiMessage.from(message.text(), requests);
    }

    private int generatedIds;

    /** One model request's answer and what it used. */
    private record Step(AiMessage message, Usage usage) {
    }

    /**
     * Builds the provider's models (their HTTP clients: a third of a second in a fresh process) on a
     * worker while this thread records the prompt and prepares the first request; the request takes
     * them from there, or builds them itself (and reports what failed) if this did not.
     */
    private void prepareModels() {
        Models current = models;
        CompletableFuture.runAsync(() -> {
            try {
                current.streaming();
            } catch (RuntimeException e) {
                // the request builds them again and reports the problem
            }
        }, requests);
    }

    private Step request(List<RegisteredTool> tools, TurnListener listener) {
        List<ToolSpecification> specifications = specifications(tools);
        // built once a step (it reads the instruction files and runs the tools' prompt sections), and
        // again only when compaction dropped turns, which the prompt then mentions
        String system = systemPrompt(tools);
        int dropped = compactedTurns.size();
        compactIfNeeded(system, specifications, listener);
        if (compactedTurns.size() != dropped) {
            system = systemPrompt(tools);
        }
        List<ChatMessage> messages = new ArrayList<>(history.size() + 1);
        messages.add(SystemMessage.from(system));
        messages.addAll(history);
        ChatRequest.Builder request = ChatRequest.builder().messages(messages);
        if (!specifications.isEmpty()) {
            request.toolSpecifications(specifications);
        }
        ChatResponse response;
        boolean[] streamed = {false};
        try {
            Models current = models;
            StreamingChatModel streaming = current.streaming();
            ChatRequest built = request.build();
            CompletableFuture<ChatResponse> done = new CompletableFuture<>();
            pending = done;
            lastProgress = System.nanoTime();
            if (streaming != null) {
                startStream(streaming, built, listener, streamed, done);
            } else {
                // run on another thread, so an aborted turn need not wait for the answer
                CompletableFuture.runAsync(() -> {
                    try {
                        done.complete(current.chat().chat(built));
                    } catch (RuntimeException e) {
                        done.completeExceptionally(e);
                    }
                }, requests);
            }
            try {
                response = await(done, streamed);
            } finally {
                answered.run();
            }
        } catch (HostException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(e, false);
        }
        if (response == null || response.aiMessage() == null) {
            throw new HostException("The model returned no message.");
        }
        AiMessage message = response.aiMessage();
        if (!streamed[0] && message.text() != null && !message.text().isBlank()) {
            listener.text(message.text());
        }
        TokenUsage reported = response.tokenUsage();
        Usage usage = Prices.usage(models.name(), reported == null || reported.inputTokenCount() == null ? 0
                : reported.inputTokenCount(), reported == null || reported.outputTokenCount() == null ? 0
                : reported.outputTokenCount());
        spent = spent.plus(usage);
        listener.usage(usage);
        recorder.usage(usage);
        return new Step(message, usage);
    }

    private String systemPrompt(List<RegisteredTool> tools) {
        String variant = variantPrompt;
        String built = SystemPrompt.build(workspace, tools, interactive, LocalDate.now(), compactedTurns,
                chain.sections().render(), notes, chain.toolSections(tools), instructions.render())
                + (variant.isEmpty() ? "" : variant + "\n");
        // the user's own words, last, so they have the final say over the defaults above
        return appended.map(text -> built + "\n" + text.strip() + "\n").orElse(built);
    }

    private void startStream(StreamingChatModel model, ChatRequest request, TurnListener listener, boolean[] streamed,
            CompletableFuture<ChatResponse> done) {
        model.chat(request, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
                if (cancelled || done.isDone()) {
                    // aborted or given up on: closes the connection; no further callback comes after this
                    context.streamingHandle().cancel();
                    return;
                }
                lastProgress = System.nanoTime();
                answering.run();
                String text = partial.text();
                if (text != null && !text.isEmpty()) {
                    streamed[0] = true;
                    listener.text(text);
                }
            }

            @Override
            public void onPartialThinking(PartialThinking thinking) {
                lastProgress = System.nanoTime();
                answering.run();
            }

            @Override
            public void onPartialToolCall(PartialToolCall call) {
                lastProgress = System.nanoTime();
                answering.run();
            }

            @Override
            public void onCompleteToolCall(CompleteToolCall call) {
                lastProgress = System.nanoTime();
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
    }

    /** The answer; waits as long as the request shows progress at least once per {@link #silenceLimit}. */
    private ChatResponse await(CompletableFuture<ChatResponse> done, boolean[] streamed) {
        try {
            while (true) {
                long left = silenceLimit.toNanos() - (System.nanoTime() - lastProgress);
                if (left <= 0) {
                    HostException silent = new HostException("The model request showed no progress for "
                            + silenceLimit.toSeconds() + " s, longer than every attempt and retry it may take, so "
                            + "Quiver gave up on it. Check the model server, then send the prompt again.");
                    done.completeExceptionally(silent);
                    throw silent;
                }
                try {
                    return done.get(left, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // look again: a streamed piece may have arrived meanwhile
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof HostException host) {
                throw host;
            }
            throw failure(cause, streamed[0]);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostException("The turn was interrupted while the model was answering.");
        } finally {
            pending = null;
        }
    }

    /** Compacts the history when it and the request's fixed parts no longer fit the context window. */
    private void compactIfNeeded(String system, List<ToolSpecification> specifications, TurnListener listener) {
        if (TokenCounter.upperBound(history) <= contextTokens / 10) {
            return; // the budget is never below a tenth of the context: no need to count (or load the tokenizer)
        }
        int fixed = tokens.count(system) + tokens.count(String.valueOf(specifications)) + ANSWER_RESERVE;
        int budget = Math.max(contextTokens * 4 / 5 - fixed, contextTokens / 10);
        int before = tokens.count(history);
        if (before <= budget) {
            return;
        }
        int current = Compaction.currentTurnStart(history);
        if (summarisable(current)) {
            try {
                listener.notice(summarise(current, before, listener, () -> cancelled));
                before = tokens.count(history);
                if (before <= budget) {
                    return;
                }
            } catch (ToolException e) {
                listener.notice("The model's summary of the earlier turns failed (" + e.getMessage() + "); the history "
                        + "is shortened without one.");
            }
        }
        Compaction.Result result = Compaction.compact(history, budget, tokens);
        if (result.changed()) {
            history = new ArrayList<>(result.messages());
            compactedTurns.addAll(result.droppedTurns());
            String description = result.describe(before);
            listener.notice(description);
            recorder.compacted(description);
        }
    }

    private static List<ToolSpecification> specifications(List<RegisteredTool> tools) {
        List<ToolSpecification> specifications = new ArrayList<>(tools.size());
        for (RegisteredTool tool : tools) {
            tool.spec().ifPresent(spec -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> schema = Json.MAPPER.convertValue(tool.schema(), Map.class);
                JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(schema);
                ToolSpecification.Builder builder = ToolSpecification.builder()
                        .name(spec.name())
                        .description(spec.description());
                if (element instanceof JsonObjectSchema object) {
                    builder.parameters(object);
                }
                specifications.add(builder.build());
            });
        }
        return specifications;
    }

    private static String forModel(CallOutcome outcome) {
        String output = outcome.output().isEmpty() ? "(no output)" : outcome.output();
        return outcome.status() == CallOutcome.Status.ERROR ? "Error: " + output : output;
    }

    /**
     * A failed request as the user reads it: the provider's {@link ModelException} says it in one line
     * already; anything else gets the most specific message of its causes.
     */
    static HostException failure(Throwable error, boolean afterText) {
        Optional<ModelException> model = ModelException.find(error);
        String message = model.map(Throwable::getMessage).orElseGet(() -> "The model request failed: " + oneLine(error));
        return new HostException(afterText ? "The model's answer was cut off. " + message : message, error);
    }

    /** The most specific one-line message of an error and its causes. */
    static String oneLine(Throwable e) {
        Throwable deepest = e;
        String message = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                deepest = t;
                message = t.getMessage();
                if (t.getClass().getName().startsWith("dev.quiver.")) {
                    break; // our own message is already written for the user
                }
            }
        }
        if (message == null) {
            message = deepest.getClass().getSimpleName();
        }
        String line = message.strip().replaceAll("\\s+", " ");
        return line.length() > 400 ? line.substring(0, 400) + "..." : line;
    }
}
