package dev.quiver.langchain4j;

import dev.langchain4j.exception.NonRetriableException;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A model request that failed for good, after {@link RetryingHttpClient} retried what was worth
 * retrying. {@link #getMessage()} is one line written for the user: it names the server (and the
 * model, or the variable holding the key, where that is the likely fix) and carries the server's own
 * explanation; it never contains the API key.
 *
 * <h2>Where the kernel finds it</h2>
 *
 * LangChain4j 1.19 passes it through unchanged:
 *
 * <ul>
 *   <li>{@code ChatModel.chat(..)} throws it as is. LangChain4j's {@code ExceptionMapper} looks at the
 *       root of the cause chain and only rewraps an {@code HttpException} or an
 *       {@code UnresolvedAddressException}; this exception has no cause (the low-level exception is
 *       attached as a {@linkplain #getSuppressed() suppressed} one, for the log file), so it is its
 *       own root and is returned unchanged. Its retry loop does not log or retry it either: the
 *       providers set {@code maxRetries(0)}, and it is a {@link NonRetriableException}.</li>
 *   <li>{@code StreamingChatModel.chat(..)} hands it to
 *       {@code StreamingChatResponseHandler.onError(Throwable)}, after the same mapping.</li>
 * </ul>
 *
 * A front end should nevertheless not rely on the exact type it catches: other layers (listeners,
 * its own executors, LangChain4j versions) may wrap it. Use {@link #find(Throwable)}, which walks the
 * cause chain, and show {@link #getMessage()}; fall back to a generic message otherwise.
 */
public final class ModelException extends NonRetriableException {

    private static final long serialVersionUID = 1L;

    /** What went wrong, for callers that react differently (for example, offering to set a key). */
    public enum Kind {
        /** HTTP 401 or 403: the key is missing, wrong, or lacks access. */
        AUTHENTICATION,
        /** HTTP 404: usually an unknown model name, sometimes a base URL with the wrong path. */
        NOT_FOUND,
        /** Another HTTP 4xx: the server refused this request (too long a context, an invalid field). */
        BAD_REQUEST,
        /** HTTP 429 that did not clear within the retry budget, or a quota that retrying cannot fix. */
        RATE_LIMITED,
        /** HTTP 5xx (including 529, overloaded) that did not clear, or an error event in a stream. */
        SERVER,
        /** No connection: refused, unknown host, TLS failure. Names the URL. */
        UNREACHABLE,
        /** No connection, no answer or no streamed data within the timeout. */
        TIMEOUT,
        /** The answer was unusable: a stream cut or ended early, a redirect, a dropped connection. */
        BAD_RESPONSE
    }

    private final Kind kind;
    private final int status;

    /**
     * @param kind what went wrong
     * @param status the HTTP status, or 0 when there was none
     * @param message one line for the user
     */
    public ModelException(Kind kind, int status, String message) {
        super(oneLine(message));
        this.kind = Objects.requireNonNull(kind, "kind");
        this.status = status;
    }

    /** What went wrong. */
    public Kind kind() {
        return kind;
    }

    /** The HTTP status of the last attempt, or 0 when none was received. */
    public int status() {
        return status;
    }

    /**
     * The first {@code ModelException} in a cause chain, the given throwable included.
     *
     * @param failure what a chat model threw or handed to {@code onError}; may be null
     */
    public static Optional<ModelException> find(Throwable failure) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof ModelException model) {
                return Optional.of(model);
            }
        }
        return Optional.empty();
    }

    static String oneLine(String text) {
        if (text == null) {
            return "";
        }
        return text.replaceAll("\\s+", " ").trim();
    }
}
