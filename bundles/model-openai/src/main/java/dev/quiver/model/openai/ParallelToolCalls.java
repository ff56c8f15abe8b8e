package dev.quiver.model.openai;

import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatRequestParameters;
import java.util.List;
import java.util.Set;

/**
 * Asks for {@code parallel_tool_calls: true} on requests that offer tools, and only on those: OpenAI
 * answers a request that has the flag but no {@code tools} with HTTP 400, and a step of the agent loop
 * may offer no tool. A model-level setting in LangChain4j would send it on every request.
 */
final class ParallelToolCalls {

    private ParallelToolCalls() {
    }

    static ChatRequest adjust(ChatRequest request) {
        List<?> tools = request.toolSpecifications();
        if (tools == null || tools.isEmpty()) {
            return request;
        }
        ChatRequestParameters parameters = request.parameters();
        if (parameters instanceof OpenAiChatRequestParameters openAi && openAi.parallelToolCalls() != null) {
            return request; // the caller chose
        }
        OpenAiChatRequestParameters withParallel = OpenAiChatRequestParameters.builder()
                .overrideWith(parameters)
                .parallelToolCalls(true)
                .build();
        return request.toBuilder().parameters(withParallel).build();
    }

    /** A chat model that adjusts each request, after LangChain4j merged in the defaults. */
    record Chat(ChatModel delegate) implements ChatModel {

        @Override
        public ChatResponse doChat(ChatRequest request) {
            return delegate.doChat(adjust(request));
        }

        @Override
        public ChatRequestParameters defaultRequestParameters() {
            return delegate.defaultRequestParameters();
        }

        @Override
        public List<ChatModelListener> listeners() {
            return delegate.listeners();
        }

        @Override
        public dev.langchain4j.model.ModelProvider provider() {
            return delegate.provider();
        }

        @Override
        public Set<Capability> supportedCapabilities() {
            return delegate.supportedCapabilities();
        }
    }

    /** The same for streaming. */
    record Streaming(StreamingChatModel delegate) implements StreamingChatModel {

        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            delegate.doChat(adjust(request), handler);
        }

        @Override
        public ChatRequestParameters defaultRequestParameters() {
            return delegate.defaultRequestParameters();
        }

        @Override
        public List<ChatModelListener> listeners() {
            return delegate.listeners();
        }

        @Override
        public dev.langchain4j.model.ModelProvider provider() {
            return delegate.provider();
        }

        @Override
        public Set<Capability> supportedCapabilities() {
            return delegate.supportedCapabilities();
        }
    }
}
