package dev.quiver.mcp.server;

import dev.quiver.api.UserQuestion;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.TurnListener;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP client's user as the kernel's front end, through {@code elicitation/create} requests sent
 * while the {@code tools/call} waits. An approval is a form of one choice ({@code once}, {@code always},
 * {@code deny}) and an optional note; declining, cancelling, a timeout or a broken connection all deny.
 * A question of the {@code ask} tool is a form of one choice, of one checkbox per option when several may
 * be chosen, or of one text field when it has no options; anything but an accepted, valid form dismisses it.
 * When the client sent a {@code progressToken} with the call, what the call streams (a command's output,
 * each call a {@code task}'s subagent makes and how it ended) reaches it as {@code notifications/progress}.
 */
final class ElicitingFrontEnd implements TurnListener {

    private static final Logger LOG = LoggerFactory.getLogger(ElicitingFrontEnd.class);
    static final String ONCE = "once";
    static final String ALWAYS = "always";
    static final String DENY = "deny";

    private final McpAsyncServerExchange exchange;
    private final boolean enabled;
    private final Duration timeout;

    /** Progress notifications one call sends at most; a chatty command is not copied to the client whole. */
    static final int PROGRESS_LIMIT = 1_000;
    /** Characters of one notification's message. */
    static final int PROGRESS_CHARS = 2_000;

    /** How long one progress notification may take to send before it is given up. */
    static final Duration PROGRESS_SEND = Duration.ofSeconds(5);
    /**
     * Sends progress notifications, each waited for: a send started without waiting for the one before
     * could reach the client first, and the client shows the lines in the order they arrive.
     */
    private final Executor progressSender;
    private final Object progressToken;
    private int progress;
    /** The last notification of this call being sent; the next one goes after it. */
    private CompletableFuture<Void> sending = CompletableFuture.completedFuture(null);

    /**
     * @param progressToken the call's {@code _meta.progressToken}, or null when the client sent none
     * @param progressSender where the notifications are sent from: the MCP service's, stopped with it
     */
    ElicitingFrontEnd(McpAsyncServerExchange exchange, boolean enabled, Duration timeout, Object progressToken,
            Executor progressSender) {
        this.exchange = exchange;
        this.progressSender = progressSender;
        this.enabled = enabled;
        this.timeout = timeout;
        this.progressToken = progressToken;
    }

    @Override
    public synchronized void callOutput(String tool, String text) {
        if (progressToken == null || progress >= PROGRESS_LIMIT || text.isBlank()) {
            return;
        }
        progress++;
        String message = text.length() > PROGRESS_CHARS ? text.substring(0, PROGRESS_CHARS) + "..." : text;
        if (progress == PROGRESS_LIMIT) {
            message += "\n(no more progress is sent for this call; its result has the output)";
        }
        McpSchema.ProgressNotification notification = new McpSchema.ProgressNotification(progressToken, progress,
                null, visible(message.stripTrailing()));
        // sent in order after the one before, never awaited here: a slow client must not hold the tool up
        sending = sending.thenRunAsync(() -> {
            try {
                exchange.progressNotification(notification).block(PROGRESS_SEND);
            } catch (RuntimeException failed) {
                LOG.debug("progress not sent", failed);
            }
        }, progressSender);
    }

    /** Waits, at most {@code limit}, until the progress sent so far has gone out. */
    void progressSent(Duration limit) {
        CompletableFuture<Void> last;
        synchronized (this) {
            last = sending;
        }
        try {
            last.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException late) {
            LOG.debug("progress still being sent as the call ends", late);
        }
    }

    @Override
    public Approval approve(ApprovalRequest request) {
        if (!enabled) {
            return Approval.deny("");
        }
        McpSchema.ElicitResult answer;
        try {
            answer = exchange.createElicitation(new McpSchema.ElicitFormRequest(message(request), schema(request), null))
                    .block(timeout);
        } catch (RuntimeException e) {
            LOG.warn("Asking the MCP client for approval failed; denying", e);
            return Approval.deny("");
        }
        return decide(answer);
    }

    @Override
    public Optional<List<String>> ask(UserQuestion question) {
        if (!enabled) {
            throw new UnsupportedOperationException("The MCP client does not answer elicitations.");
        }
        McpSchema.ElicitResult answer;
        try {
            answer = exchange.createElicitation(new McpSchema.ElicitFormRequest(visible(question.question()),
                    schema(question), null)).block(timeout);
        } catch (RuntimeException e) {
            LOG.warn("Asking the MCP client's user failed; the question counts as dismissed", e);
            return Optional.empty();
        }
        return answer(question, answer);
    }

    /** The form of a question: a choice, a checkbox per option, or a text field. */
    static Map<String, Object> schema(UserQuestion question) {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new java.util.ArrayList<>();
        List<UserQuestion.Option> options = question.options();
        if (options.isEmpty()) {
            properties.put(ANSWER, Map.of("type", "string", "title", "Your answer"));
            required.add(ANSWER);
        } else if (question.multiple()) {
            // booleans, which every revision's forms have; a multi-select array is 2025-11-25's alone
            for (int i = 0; i < options.size(); i++) {
                Map<String, Object> box = new LinkedHashMap<>();
                box.put("type", "boolean");
                box.put("title", options.get(i).label() + (i == 0 ? " (recommended)" : ""));
                if (!options.get(i).detail().isEmpty()) {
                    box.put("description", options.get(i).detail());
                }
                box.put("default", false);
                properties.put(OPTION + (i + 1), box);
            }
        } else {
            Map<String, Object> choice = new LinkedHashMap<>();
            choice.put("type", "string");
            choice.put("title", "Choose one");
            choice.put("enum", options.stream().map(UserQuestion.Option::label).toList());
            List<String> names = new java.util.ArrayList<>();
            for (int i = 0; i < options.size(); i++) {
                UserQuestion.Option option = options.get(i);
                names.add(option.label() + (i == 0 ? " (recommended)" : "")
                        + (option.detail().isEmpty() ? "" : " — " + option.detail()));
            }
            choice.put("enumNames", names);
            properties.put(CHOICE, choice);
            required.add(CHOICE);
        }
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", required);
        return schema;
    }

    /** The form as the question's answer: only labels the question offered, or non-blank text; else dismissed. */
    static Optional<List<String>> answer(UserQuestion question, McpSchema.ElicitResult answer) {
        if (answer == null || answer.action() != McpSchema.ElicitResult.Action.ACCEPT || answer.content() == null) {
            return Optional.empty();
        }
        Map<String, Object> content = answer.content();
        List<UserQuestion.Option> options = question.options();
        if (options.isEmpty()) {
            return content.get(ANSWER) instanceof String text && !text.isBlank()
                    ? Optional.of(List.of(text.strip())) : Optional.empty();
        }
        if (question.multiple()) {
            List<String> chosen = new java.util.ArrayList<>();
            for (int i = 0; i < options.size(); i++) {
                if (Boolean.TRUE.equals(content.get(OPTION + (i + 1)))) {
                    chosen.add(options.get(i).label());
                }
            }
            return chosen.isEmpty() ? Optional.empty() : Optional.of(chosen);
        }
        Object choice = content.get(CHOICE);
        return options.stream().map(UserQuestion.Option::label).filter(label -> label.equals(choice)).findFirst()
                .map(List::of);
    }

    static final String ANSWER = "answer";
    static final String CHOICE = "choice";
    static final String OPTION = "option";

    /** The answer as an approval: only an accepted form saying once or always runs the call. */
    static Approval decide(McpSchema.ElicitResult answer) {
        if (answer == null || answer.action() != McpSchema.ElicitResult.Action.ACCEPT || answer.content() == null) {
            return Approval.deny("");
        }
        Object decision = answer.content().get("decision");
        Object note = answer.content().get("instead");
        String instead = note instanceof String s ? s.strip() : "";
        if (ONCE.equals(decision)) {
            return Approval.once();
        }
        if (ALWAYS.equals(decision)) {
            return Approval.always();
        }
        return Approval.deny(instead);
    }

    static String message(ApprovalRequest request) {
        StringBuilder text = new StringBuilder();
        text.append("Quiver asks before running ").append(request.tool()).append(":\n\n").append(visible(request.subject()))
                .append("\n\nWhy it asks: ").append(request.verdict().reason());
        request.pattern().ifPresent(p -> text.append("\n\n\"always\" allows ").append(visible(p))
                .append(" for the rest of this session."));
        request.diff().map(ElicitingFrontEnd::visible).ifPresent(diff -> text.append("\n\nWhat it changes (unified diff):\n")
                .append(diff.length() <= MAX_DIFF_CHARS ? diff : diff.substring(0, MAX_DIFF_CHARS)
                        + "\n... [the diff is cut at " + MAX_DIFF_CHARS + " characters]"));
        return text.toString();
    }

    /**
     * Text as a dialog may show it: control characters other than line ends and tabs escaped, and the
     * bidirectional overrides and isolates, which would show a command's words in another order than they run.
     */
    private static String visible(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
                out.append(String.format("\\x%02X", (int) c));
            } else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Of a change's diff, what a client's approval dialog is sent: more is cut and said so. */
    static final int MAX_DIFF_CHARS = 16_000;

    static Map<String, Object> schema(ApprovalRequest request) {
        List<String> choices = request.pattern().isPresent() ? List.of(ONCE, ALWAYS, DENY) : List.of(ONCE, DENY);
        List<String> names = request.pattern().isPresent()
                ? List.of("Allow once", "Always allow " + visible(request.pattern().get()), "Deny")
                : List.of("Allow once", "Deny");
        Map<String, Object> decision = new LinkedHashMap<>();
        decision.put("type", "string");
        decision.put("title", "Run this call?");
        decision.put("enum", choices);
        decision.put("enumNames", names);
        Map<String, Object> instead = new LinkedHashMap<>();
        instead.put("type", "string");
        instead.put("title", "With deny: what to do instead (optional)");
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("decision", decision);
        properties.put("instead", instead);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", List.of("decision"));
        return schema;
    }
}
