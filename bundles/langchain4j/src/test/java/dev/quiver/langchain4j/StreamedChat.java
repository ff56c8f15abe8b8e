package dev.quiver.langchain4j;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a streaming chat told its handler: the text pieces, and either the response or the error.
 * For the provider bundles' tests; shipped in this bundle's test jar.
 */
public final class StreamedChat implements StreamingChatResponseHandler {

    public final List<String> pieces = new CopyOnWriteArrayList<>();
    public volatile ChatResponse response;
    public volatile Throwable error;
    private final CountDownLatch done = new CountDownLatch(1);

    public static StreamedChat chat(StreamingChatModel model, ChatRequest request) throws InterruptedException {
        StreamedChat streamed = new StreamedChat();
        model.chat(request, streamed);
        assertTrue(streamed.done.await(30, TimeUnit.SECONDS), "the stream never ended");
        return streamed;
    }

    public String text() {
        return String.join("", pieces);
    }

    @Override
    public void onPartialResponse(String partialResponse) {
        pieces.add(partialResponse);
    }

    @Override
    public void onCompleteResponse(ChatResponse completeResponse) {
        response = completeResponse;
        done.countDown();
    }

    @Override
    public void onError(Throwable failure) {
        error = failure;
        done.countDown();
    }
}
