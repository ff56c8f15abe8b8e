package dev.quiver.kernel;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import dev.quiver.api.ToolException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Usage;
import dev.quiver.kernel.conversation.Prices;
import dev.quiver.kernel.conversation.SessionStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A tool's one question to the session's model ({@link dev.quiver.api.ToolContext#askModel}): sent
 * without tools, with the model the conversation uses, and counted as every model request is — on the
 * turn's listener, in the session file, and in the turn's total.
 */
final class ModelAsk implements CallChain.Asker {

    private final Supplier<Optional<AgentLoop.Models>> models;
    private final Supplier<SessionStore.Recorder> recorder;
    private final Executor requests;
    /** What the questions of the turn under way used: the turn's total adds it. */
    private final AtomicReference<Usage> turn = new AtomicReference<>(Usage.NONE);

    /** @param models the session's models; empty where it has none (a direct call without --model, MCP) */
    ModelAsk(Supplier<Optional<AgentLoop.Models>> models, Supplier<SessionStore.Recorder> recorder, Executor requests) {
        this.models = models;
        this.recorder = recorder;
        this.requests = requests;
    }

    @Override
    public String ask(String instructions, String input, TurnListener listener, BooleanSupplier cancelled)
            throws ToolException {
        AgentLoop.Models current = models.get().orElseThrow(() -> new ToolException("No model is configured for this "
                + "session (a direct call, a batch or an MCP client's session without --model), so this tool, which "
                + "needs the model to write its answer, cannot run. Pass --model PROVIDER/NAME."));
        ChatRequest request = ChatRequest.builder()
                .messages(SystemMessage.from(instructions), UserMessage.from(input)).build();
        CompletableFuture<ChatResponse> answer = CompletableFuture.supplyAsync(() -> current.chat().chat(request), requests);
        ChatResponse response;
        try {
            while (true) {
                if (cancelled.getAsBoolean()) {
                    throw abandoned(answer, current, listener);
                }
                try {
                    response = answer.get(100, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    // keep waiting: the HTTP client bounds each attempt and its retries
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw abandoned(answer, current, listener);
        } catch (ExecutionException e) {
            throw new ToolException(AgentLoop.failure(e.getCause(), false).getMessage());
        }
        count(current, response, listener);
        String text = response == null || response.aiMessage() == null ? null : response.aiMessage().text();
        if (text == null || text.isBlank()) {
            throw new ToolException("The model answered with nothing; call the tool again, or write it yourself.");
        }
        return text.strip();
    }

    /**
     * A question given up on. The request cannot be taken back once sent, and the provider answers (and
     * bills) it, so what it used is counted when it comes.
     */
    private ToolException abandoned(CompletableFuture<ChatResponse> answer, AgentLoop.Models current,
            TurnListener listener) {
        answer.thenAccept(late -> count(current, late, listener));
        return new ToolException("Cancelled while waiting for the model's answer.");
    }

    private void count(AgentLoop.Models current, ChatResponse response, TurnListener listener) {
        TokenUsage reported = response == null ? null : response.tokenUsage();
        Usage usage = Prices.usage(current.name(), reported == null || reported.inputTokenCount() == null ? 0
                : reported.inputTokenCount(), reported == null || reported.outputTokenCount() == null ? 0
                : reported.outputTokenCount());
        try {
            listener.usage(usage);
        } catch (RuntimeException closed) {
            // a front end whose turn has ended: the session file and the total still count it
        }
        recorder.get().usage(usage);
        turn.accumulateAndGet(usage, Usage::plus);
    }

    /** What the questions since the last call used; starts the count again. */
    Usage takeTurnUsage() {
        return turn.getAndSet(Usage.NONE);
    }
}
