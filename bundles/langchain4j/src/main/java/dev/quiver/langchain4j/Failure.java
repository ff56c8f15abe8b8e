package dev.quiver.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.langchain4j.ModelException.Kind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * One failed attempt: what kind, whether another attempt may help, how long the server asked to
 * wait, and the one-line text for the user. Package-private: callers see {@link ModelException}.
 */
final class Failure {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DETAIL_LIMIT = 300;
    /** Statuses worth another attempt: timeouts, rate limits, and the transient server errors. */
    private static final Set<Integer> RETRYABLE = Set.of(408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529);

    final Kind kind;
    final int status;
    final boolean retryable;
    /** What the server asked to wait (from {@code retry-after-ms} or {@code Retry-After}), or null. */
    final Duration retryAfter;
    final String message;
    final Throwable cause;

    private Failure(Kind kind, int status, boolean retryable, Duration retryAfter, String message, Throwable cause) {
        this.kind = kind;
        this.status = status;
        this.retryable = retryable;
        this.retryAfter = retryAfter;
        this.message = message;
        this.cause = cause;
    }

    static Failure of(Kind kind, boolean retryable, String message, Throwable cause) {
        return new Failure(kind, 0, retryable, null, message, cause);
    }

    /** Whether this kind of failure is retried when it happens inside a stream before any event. */
    static boolean retryableKind(Kind kind) {
        return kind == Kind.RATE_LIMITED || kind == Kind.SERVER || kind == Kind.TIMEOUT;
    }

    ModelException toException(String suffix) {
        String text = suffix.isEmpty() ? message
                : message + (message.endsWith(".") || message.endsWith("?") ? " " : ". ") + suffix;
        ModelException exception = new ModelException(kind, status, text);
        if (cause != null) {
            // suppressed, not the cause: LangChain4j's ExceptionMapper rewraps by the root cause
            exception.addSuppressed(cause);
        }
        return exception;
    }

    /** A non-2xx answer. */
    static Failure ofStatus(Texts texts, int status, Map<String, List<String>> headers, String body) {
        String detail = texts.redact(detail(body));
        String from = " (HTTP " + status + " from " + texts.url() + ")";
        String withDetail = detail.isEmpty() ? from + "." : from + ": " + detail;
        Kind kind;
        String message;
        if (status == 401 || status == 403) {
            kind = Kind.AUTHENTICATION;
            message = texts.subject() + (status == 401 ? " refused the API key" : " refused access") + withDetail
                    + (texts.keyVariable() == null ? "" : end(withDetail) + "Check " + texts.keyVariable() + ".");
        } else if (status == 404) {
            kind = Kind.NOT_FOUND;
            message = (texts.model() == null ? "Not found" : "Model '" + texts.model() + "' was not found") + withDetail
                    + end(withDetail) + (texts.model() == null ? "Check the base URL." : texts.notFoundHint());
        } else if (status == 408) {
            kind = Kind.TIMEOUT;
            message = texts.subject() + " timed out on the request" + withDetail;
        } else if (status == 429) {
            kind = Kind.RATE_LIMITED;
            message = texts.subject() + " is rate-limiting requests" + withDetail;
        } else if (status >= 500) {
            kind = Kind.SERVER;
            String verb = status == 529 ? " is overloaded" : status == 503 ? " is unavailable" : " failed";
            message = texts.subject() + verb + withDetail;
        } else if (status >= 400) {
            kind = Kind.BAD_REQUEST;
            message = texts.subject() + " rejected the request" + withDetail;
        } else if (status >= 300 && status < 400) {
            kind = Kind.BAD_RESPONSE;
            String location = first(headers, "location").map(l -> " to " + Texts.display(l)).orElse("");
            message = texts.subject() + " answered with a redirect (HTTP " + status + " from " + texts.url() + location
                    + "); use the final address as the base URL.";
        } else {
            kind = Kind.BAD_RESPONSE;
            message = texts.subject() + " gave an unexpected answer" + withDetail;
        }
        boolean retryable = RETRYABLE.contains(status);
        if (status == 429 && body != null && body.contains("insufficient_quota")) {
            retryable = false; // OpenAI: the account is out of credit; waiting does not help
        }
        Optional<String> shouldRetry = first(headers, "x-should-retry");
        if (shouldRetry.isPresent()) {
            retryable = "true".equalsIgnoreCase(shouldRetry.get().trim());
        }
        return new Failure(kind, status, retryable, RetryAfter.parse(headers).orElse(null), message, null);
    }

    /** A request that got no answer. */
    static Failure ofException(Texts texts, Throwable error, Duration connectTimeout, Duration readTimeout) {
        if (error instanceof HttpConnectTimeoutException) {
            return of(Kind.TIMEOUT, true, "Cannot connect to " + texts.service() + " at " + texts.origin()
                    + ": no connection within " + Texts.seconds(connectTimeout) + ".", error);
        }
        if (error instanceof HttpTimeoutException) {
            return of(Kind.TIMEOUT, true, texts.subject() + " did not answer within " + Texts.seconds(readTimeout)
                    + " (" + texts.url() + ").", error);
        }
        if (has(error, UnresolvedAddressException.class) || has(error, UnknownHostException.class)) {
            return of(Kind.UNREACHABLE, false, "Cannot connect to " + texts.service() + " at " + texts.origin()
                    + ": unknown host " + texts.host() + ". Check the base URL.", error);
        }
        if (has(error, SSLException.class)) {
            return of(Kind.UNREACHABLE, false, "Cannot connect to " + texts.service() + " at " + texts.origin()
                    + ": the TLS handshake failed (" + reason(find(error, SSLException.class)) + ").", error);
        }
        if (error instanceof ConnectException || has(error, ConnectException.class)) {
            return of(Kind.UNREACHABLE, false, "Cannot connect to " + texts.service() + " at " + texts.origin()
                    + ": connection refused. Is the server running, and is the base URL right?", error);
        }
        if (error instanceof IOException) {
            return of(Kind.BAD_RESPONSE, true, "The connection to " + texts.service()
                    + " closed before the answer was complete (" + texts.url() + "): " + reason(error) + ".", error);
        }
        return of(Kind.BAD_RESPONSE, false, texts.subject() + " request failed (" + texts.url() + "): "
                + reason(error) + ".", error);
    }

    /** The server's own explanation from an error body: OpenAI, Anthropic and Ollama shapes, or the first line. */
    static String detail(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String text = body.trim();
        if (text.startsWith("{")) {
            try {
                JsonNode json = JSON.readTree(text);
                JsonNode error = json.path("error");
                String found = error.isTextual() ? error.asText()
                        : error.path("message").isTextual() ? error.path("message").asText()
                        : json.path("message").isTextual() ? json.path("message").asText()
                        : json.path("detail").isTextual() ? json.path("detail").asText() : null;
                if (found != null) {
                    return cap(found);
                }
            } catch (IOException | RuntimeException e) {
                // not JSON after all: fall through to the first line
            }
        }
        if (text.startsWith("<")) {
            return ""; // an HTML page from a proxy says nothing the status does not
        }
        int newline = text.indexOf('\n');
        return cap(newline < 0 ? text : text.substring(0, newline));
    }

    /** The most specific message in the cause chain: java.net.http wraps causes in a plain "closed". */
    static String reason(Throwable error) {
        String message = null;
        int depth = 0;
        for (Throwable t = error; t != null && depth < 20; t = t.getCause(), depth++) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        if (message == null) {
            message = error.getClass().getSimpleName();
        }
        return cap(message);
    }

    private static String cap(String text) {
        String line = ModelException.oneLine(text);
        if (line.endsWith(".")) {
            line = line.substring(0, line.length() - 1);
        }
        return line.length() <= DETAIL_LIMIT ? line : line.substring(0, DETAIL_LIMIT) + "...";
    }

    private static String end(String sentence) {
        return sentence.endsWith(".") ? " " : ". ";
    }

    private static boolean has(Throwable error, Class<? extends Throwable> type) {
        return find(error, type) != null;
    }

    private static Throwable find(Throwable error, Class<? extends Throwable> type) {
        int depth = 0;
        for (Throwable t = error; t != null && depth < 20; t = t.getCause(), depth++) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    static Optional<String> first(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
            if (entry.getKey() != null && entry.getKey().toLowerCase(Locale.ROOT).equals(name)
                    && !entry.getValue().isEmpty()) {
                return Optional.ofNullable(entry.getValue().get(0));
            }
        }
        return Optional.empty();
    }

    /** Names and addresses used in messages, plus the secrets that must never appear in them. */
    record Texts(String service, String model, String keyVariable, String notFoundHint, URI uri, List<String> secrets) {

        String subject() {
            return service.isEmpty() ? service : Character.toUpperCase(service.charAt(0)) + service.substring(1);
        }

        String url() {
            return display(uri.toString());
        }

        String origin() {
            return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        }

        String host() {
            return uri.getHost();
        }

        String redact(String text) {
            String result = text;
            for (String secret : secrets) {
                if (secret.length() >= 8) {
                    result = result.replace(secret, "[redacted]");
                }
            }
            return result;
        }

        /** A URL without user info, query or fragment. */
        static String display(String url) {
            try {
                URI uri = URI.create(url.trim());
                if (uri.getScheme() == null || uri.getHost() == null) {
                    return ModelException.oneLine(url);
                }
                return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                        + (uri.getRawPath() == null ? "" : uri.getRawPath());
            } catch (IllegalArgumentException e) {
                return ModelException.oneLine(url);
            }
        }

        static String seconds(Duration duration) {
            long millis = duration.toMillis();
            if (millis % 1000 == 0) {
                return millis / 1000 + " s";
            }
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
    }
}
