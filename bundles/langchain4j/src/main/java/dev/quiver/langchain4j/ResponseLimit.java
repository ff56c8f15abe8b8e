package dev.quiver.langchain4j;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * The most a model's answer may weigh on the wire. The largest real answer (128k output tokens, streamed
 * a few characters per event) is some 40 MB of events; a server that sends more, or one event that
 * never ends, would otherwise grow LangChain4j's buffers until the heap is gone and the stream thread
 * dies without telling anyone.
 */
final class ResponseLimit {

    static final long MAX_BYTES = 64L * 1024 * 1024;

    private ResponseLimit() {
    }

    /** The failure of an answer past the limit: not retried, as the same request gets the same answer. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super("the answer passed " + (MAX_BYTES >> 20) + " MiB");
        }
    }

    /** A streamed body that fails with {@link TooLarge} once more than the limit has been read. */
    static InputStream stream(InputStream body) {
        return new FilterInputStream(body) {
            private long read;

            @Override
            public int read() throws IOException {
                int b = super.read();
                count(b < 0 ? 0 : 1);
                return b;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = super.read(buffer, offset, length);
                count(Math.max(n, 0));
                return n;
            }

            private void count(int n) throws TooLarge {
                read += n;
                if (read > MAX_BYTES) {
                    throw new TooLarge();
                }
            }
        };
    }

    /** A whole body as UTF-8 text (JSON is UTF-8), failing with {@link TooLarge} past the limit. */
    static BodyHandler<String> string() {
        return info -> new Limited(BodySubscribers.ofString(StandardCharsets.UTF_8));
    }

    private static final class Limited implements BodySubscriber<String> {
        private final BodySubscriber<String> target;
        private Flow.Subscription subscription;
        private long received;
        private boolean failed;

        Limited(BodySubscriber<String> target) {
            this.target = target;
        }

        @Override
        public CompletionStage<String> getBody() {
            return target.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            target.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (failed) {
                return;
            }
            for (ByteBuffer buffer : buffers) {
                received += buffer.remaining();
            }
            if (received > MAX_BYTES) {
                failed = true;
                subscription.cancel();
                target.onError(new TooLarge());
                return;
            }
            target.onNext(buffers);
        }

        @Override
        public void onError(Throwable error) {
            if (!failed) {
                target.onError(error);
            }
        }

        @Override
        public void onComplete() {
            if (!failed) {
                target.onComplete();
            }
        }
    }
}
