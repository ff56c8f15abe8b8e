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
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The agent loop on LangChain4j's {@link ChatModel}: send the step's tools, run the calls the model
 * asks for through the call chain, send the results back, and loop until the model answers without
 * calls or the step cap is reached. The history lives here, across the prompts of a session.
 */
final class AgentLoop {

    /** Model requests one prompt may make. */
    static final int STEP_CAP = 50;

    private final ChatModel model;
    private final CallChain chain;
    private final Supplier<List<RegisteredTool>> offered;
    private final java.nio.file.Path workspace;
    private final boolean interactive;
    private final List<ChatMessage> history = new ArrayList<>();

    AgentLoop(ChatModel model, CallChain chain, Supplier<List<RegisteredTool>> offered, java.nio.file.Path workspace,
            boolean interactive) {
        this.model = model;
        this.chain = chain;
        this.offered = offered;
        this.workspace = workspace;
        this.interactive = interactive;
    }

    TurnResult send(String prompt, TurnListener listener) {
        history.add(UserMessage.from(prompt));
        List<CallOutcome> calls = new ArrayList<>();
        for (int step = 1; step <= STEP_CAP; step++) {
            List<RegisteredTool> tools = offered.get();
            AiMessage answer = request(tools);
            if (!answer.hasToolExecutionRequests()) {
                String text = answer.text() == null ? "" : answer.text();
                // an empty assistant message is rejected by the providers when sent back, so it is not kept
                if (!text.isBlank()) {
                    history.add(answer);
                    listener.text(text);
                }
                return new TurnResult(TurnResult.Status.DONE, text, calls, step);
            }
            history.add(answer);
            if (answer.text() != null && !answer.text().isBlank()) {
                listener.text(answer.text());
            }
            for (ToolExecutionRequest request : answer.toolExecutionRequests()) {
                listener.callStarted(request.name(), request.arguments());
                CallOutcome outcome = chain.run(tools, request.name(), request.arguments(), listener);
                listener.callEnded(outcome);
                calls.add(outcome);
                history.add(ToolExecutionResultMessage.from(request, forModel(outcome)));
            }
        }
        return new TurnResult(TurnResult.Status.STEP_LIMIT, "", calls, STEP_CAP);
    }

    private AiMessage request(List<RegisteredTool> tools) {
        List<ChatMessage> messages = new ArrayList<>(history.size() + 1);
        messages.add(SystemMessage.from(SystemPrompt.build(workspace, tools, interactive, LocalDate.now())));
        messages.addAll(history);
        ChatRequest.Builder request = ChatRequest.builder().messages(messages);
        List<ToolSpecification> specifications = specifications(tools);
        if (!specifications.isEmpty()) {
            request.toolSpecifications(specifications);
        }
        ChatResponse response;
        try {
            response = model.chat(request.build());
        } catch (RuntimeException e) {
            throw new HostException("The model request failed: " + oneLine(e), e);
        }
        if (response == null || response.aiMessage() == null) {
            throw new HostException("The model returned no message.");
        }
        return response.aiMessage();
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

    static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String line = message.strip().replaceAll("\\s+", " ");
        return line.length() > 400 ? line.substring(0, 400) + "..." : line;
    }
}
