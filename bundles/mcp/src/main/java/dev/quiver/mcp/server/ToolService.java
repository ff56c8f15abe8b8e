package dev.quiver.mcp.server;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpNotificationHandler;
import io.modelcontextprotocol.server.McpRequestHandler;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * What one MCP connection serves: {@code initialize} opens a Quiver session (interactive when the
 * client can answer elicitations), {@code tools/list} is the session's live tool list and
 * {@code tools/call} runs the whole permission chain. Calls of one connection run one at a time,
 * in arrival order, as a {@link Session} requires: the transports hand every {@code tools/call}
 * to {@link #queue} as it arrives, and the handler runs on the queue's worker. Other requests
 * ({@code initialize}, {@code tools/list}, {@code ping}) and notifications are answered at once,
 * also while a call runs. The transport-independent half of the server.
 */
final class ToolService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolService.class);
    /** Protocol revisions this server speaks, oldest first. */
    static final List<String> PROTOCOL_VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05,
            ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
    /** Tool bundles often come and go in bursts (a feature installs several): one notice per burst. */
    private static final long CHANGE_DEBOUNCE_MILLIS = 150;
    /** How long a call of a tool the recorded catalogue listed waits for that tool to register. */
    private static final long LISTED_TOOL_WAIT_MILLIS = 10_000;

    private final Kernel kernel;
    private final SessionOptions base;
    private final PrintStream err;
    private final String version;
    private final Duration approvalTimeout;
    private final CallQueue calls;
    private final EarlyStart early;
    private final java.util.Set<String> servedNames;
    private volatile McpSchema.InitializeResult initializeResult;
    private final ScheduledExecutorService debounce;
    /** Sends the calls' progress notifications ({@link ElicitingFrontEnd}). */
    private final java.util.concurrent.ExecutorService progressSender;
    private volatile Consumer<String> notifier = method -> { };
    private volatile Session session;
    private volatile boolean interactive;
    private AutoCloseable toolsWatch;
    private ScheduledFuture<?> pendingChange;
    private volatile boolean closed;

    ToolService(Kernel kernel, SessionOptions base, PrintStream err, String version, Duration approvalTimeout,
            Executor workers) {
        this(kernel, base, err, version, approvalTimeout, workers, EarlyStart.NONE);
    }

    /** As the other constructor, after the launcher's early answers ({@link EarlyStart}). */
    ToolService(Kernel kernel, SessionOptions base, PrintStream err, String version, Duration approvalTimeout,
            Executor workers, EarlyStart early) {
        this.early = early;
        this.servedNames = early.servedNames();
        this.kernel = kernel;
        this.base = base;
        this.err = err;
        this.version = version;
        this.approvalTimeout = approvalTimeout;
        this.calls = new CallQueue(workers);
        this.debounce = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "quiver-mcp-tools-changed");
            thread.setDaemon(true);
            return thread;
        });
        this.progressSender = Executors.newFixedThreadPool(2, task -> {
            Thread thread = new Thread(task, "quiver-mcp-progress");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Where {@code notifications/...} go: the stdio stream, or the HTTP session's listening stream. */
    void notifier(Consumer<String> sender) {
        this.notifier = sender;
    }

    /** The session, once {@code initialize} opened it. */
    Optional<Session> session() {
        return Optional.ofNullable(session);
    }

    /** Handles {@code initialize}: opens the session and answers with the negotiated revision. */
    synchronized Mono<McpSchema.InitializeResult> initialize(McpSchema.InitializeRequest request) {
        if (closed) {
            return Mono.error(error(ErrorCodes.INVALID_REQUEST, "This connection is closed."));
        }
        if (session != null) {
            return Mono.error(error(ErrorCodes.INVALID_REQUEST, "The session is already initialized."));
        }
        if (request == null) {
            return Mono.error(error(ErrorCodes.INVALID_PARAMS, "initialize needs params: protocolVersion, "
                    + "capabilities, clientInfo."));
        }
        interactive = request.capabilities() != null && request.capabilities().elicitation() != null;
        // the command line's options as they are (rules, MCP files, trust); only whether the client can ask differs
        SessionOptions options = base.withInteractive(interactive);
        Session opened;
        try {
            opened = kernel.open(options);
        } catch (HostException e) {
            return Mono.error(error(ErrorCodes.INTERNAL_ERROR, e.getMessage()));
        }
        session = opened;
        String client = request.clientInfo() == null ? "a client" : request.clientInfo().name();
        err.println("quiver mcp · " + client + " connected · workspace " + opened.workspace() + " · session "
                + opened.id() + (interactive ? " · approvals and questions by elicitation" : base.yolo() ? " · --yolo"
                        : " · no approvals (ask means deny)"));
        for (String warning : opened.warnings()) {
            err.println("warning: " + warning);
        }
        toolsWatch = opened.onToolsChanged(this::toolsChanged);
        String protocol = PROTOCOL_VERSIONS.contains(request.protocolVersion()) ? request.protocolVersion()
                : PROTOCOL_VERSIONS.get(PROTOCOL_VERSIONS.size() - 1);
        McpSchema.ServerCapabilities capabilities = new McpSchema.ServerCapabilities(null, null, null, null, null,
                new McpSchema.ServerCapabilities.ToolCapabilities(true));
        String instructions = "Quiver's tools for the workspace " + opened.workspace() + ". Every call goes through "
                + "Quiver's permission chain; a refused call comes back as an error result that says why.";
        initializeResult = new McpSchema.InitializeResult(protocol, capabilities,
                new McpSchema.Implementation("quiver", "Quiver", version), instructions);
        if (early.servedTools().isPresent()) {
            debounce.execute(this::checkServedList);
            // the launcher answered tools/list already: the client is idle until its first call
            opened.warmUp();
        }
        return Mono.just(initializeResult);
    }

    /**
     * Once the session is open: the live list, against what the launcher served from its record. A
     * difference (a tool bundle that came or went without changing the record's inputs) is announced
     * as a change, so the client lists again, and that answer becomes the next start's record. This
     * list is never recorded itself: the connection may be closing meanwhile (a client that only
     * wanted the list), and a closing session's list is short of the tools it already let go.
     */
    private void checkServedList() {
        try {
            String live = Json.write(listTools());
            if (closed) {
                return;
            }
            if (early.servedTools().isPresent() && !early.servedTools().get().equals(live)) {
                err.println("quiver mcp · the live tool list differs from the recorded one: sent tools/list_changed");
                notifier.accept(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED);
            }
        } catch (RuntimeException e) {
            LOG.debug("Could not check the recorded tool list", e);
        }
    }

    /**
     * Records the catalogue a client's {@code tools/list} was just answered with, for the next start's
     * early answers; not when tools of MCP servers are in it, whose lists can change with no input of
     * Quiver's changing.
     */
    private void record(McpSchema.ListToolsResult list) {
        McpSchema.InitializeResult result = initializeResult;
        if (early.recorder().isEmpty() || result == null || closed
                || EarlyStart.anyFromMcpServers(list.tools().stream().map(McpSchema.Tool::name).toList())) {
            return;
        }
        String tools = Json.write(list);
        synchronized (this) {
            if (tools.equals(recorded)) {
                // recording digests every input again and rewrites the file: once per list is enough
                return;
            }
            recorded = tools;
        }
        com.fasterxml.jackson.databind.node.ObjectNode initialize = Json.MAPPER.valueToTree(result);
        initialize.remove("protocolVersion");
        early.recorder().get().accept(Map.of("interactive", String.valueOf(interactive), "protocols",
                String.join(" ", PROTOCOL_VERSIONS), "initialize", Json.write(initialize), "tools", tools));
    }

    /** The tools/list answer this process last recorded, or null. */
    private String recorded;

    private synchronized void toolsChanged() {
        if (closed) {
            return;
        }
        if (pendingChange != null) {
            pendingChange.cancel(false);
        }
        pendingChange = debounce.schedule(() -> {
            try {
                notifier.accept(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED);
            } catch (RuntimeException e) {
                LOG.debug("Could not send tools/list_changed", e);
            }
        }, CHANGE_DEBOUNCE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Queues a {@code tools/call} behind the earlier ones of this connection: {@code run} hands it
     * to the SDK's session (which calls the handler on the queue's worker), {@code refuse} answers it
     * when it will not run (busy, cancelled while waiting, connection closing).
     */
    void queue(Object requestId, CallQueue.Call call) {
        calls.submit(requestId, call);
    }

    /**
     * As {@link #queue}, with the stdio reader's larger bounds: past them it waits for room instead
     * of refusing. {@code bytes} is the size of the request's JSON.
     */
    void queueWaiting(Object requestId, long bytes, CallQueue.Call call) {
        calls.put(requestId, bytes, call);
    }

    /** The request handlers besides {@code initialize}; {@code tools/call} must come through {@link #queue}. */
    Map<String, McpRequestHandler<?>> requestHandlers() {
        Map<String, McpRequestHandler<?>> handlers = new HashMap<>();
        McpRequestHandler<Object> ping = (exchange, params) -> Mono.just(Map.of());
        McpRequestHandler<McpSchema.ListToolsResult> list = (exchange, params) -> Mono.fromCallable(() -> {
            McpSchema.ListToolsResult answer = listTools();
            record(answer);
            return answer;
        }).doAfterTerminate(() -> session().ifPresent(Session::warmUp)); // once answered: idle until the first call
        McpRequestHandler<CallToolResult> call = (exchange, params) -> Mono.fromCallable(() -> callTool(exchange, params));
        handlers.put(McpSchema.METHOD_PING, ping);
        handlers.put(McpSchema.METHOD_TOOLS_LIST, list);
        handlers.put(McpSchema.METHOD_TOOLS_CALL, call);
        return handlers;
    }

    /** The notification handlers: {@code initialized} (the SDK's session marks itself ready) and cancellations. */
    Map<String, McpNotificationHandler> notificationHandlers() {
        Map<String, McpNotificationHandler> handlers = new HashMap<>();
        handlers.put(McpSchema.METHOD_NOTIFICATION_INITIALIZED, (exchange, params) -> Mono.empty());
        handlers.put("notifications/cancelled", (exchange, params) -> Mono.fromRunnable(() -> cancel(params)));
        return handlers;
    }

    /** A waiting call is dropped (and answered); the running one is interrupted, as is any when no id is named. */
    private void cancel(Object params) {
        Object requestId = params instanceof Map<?, ?> map ? map.get("requestId") : null;
        CallQueue.Cancel found = requestId == null ? CallQueue.Cancel.RUNNING : calls.cancel(requestId);
        Session current = session;
        if (found == CallQueue.Cancel.RUNNING && current != null) {
            current.interruptCalls();
        }
    }

    private McpSchema.ListToolsResult listTools() {
        Session current = requireSession();
        List<McpSchema.Tool> tools = new ArrayList<>();
        for (ToolInfo info : current.tools()) {
            Map<String, Object> schema;
            try {
                schema = Json.MAPPER.readValue(info.parameters(), new TypeReference<LinkedHashMap<String, Object>>() { });
            } catch (Exception e) {
                continue; // the kernel only offers tools whose schema parses; be safe anyway
            }
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("quiver/access", info.access());
            meta.put("quiver/decision", info.decision().id());
            meta.put("quiver/bundle", info.bundle());
            tools.add(McpSchema.Tool.builder().name(info.name()).description(info.description()).inputSchema(schema)
                    .meta(meta).build());
        }
        return new McpSchema.ListToolsResult(tools, null);
    }

    /**
     * A call of a tool the launcher listed from its record may come before the tool's bundle has
     * registered it (a {@code deploy/} bundle): it waits for the tool, for a while; then the call
     * goes on and gets the ordinary answer for a tool that is not there.
     */
    private void awaitListedTool(Session current, String tool) {
        if (!servedNames.contains(tool)) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTED_TOOL_WAIT_MILLIS);
        while (current.tools().stream().noneMatch(info -> info.name().equals(tool)) && System.nanoTime() < deadline
                && !closed) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private CallToolResult callTool(McpAsyncServerExchange exchange, Object params) {
        Session current = requireSession();
        if (!(params instanceof Map<?, ?> map)) {
            throw error(ErrorCodes.INVALID_PARAMS, "tools/call needs params {\"name\": ..., \"arguments\": {...}}.");
        }
        Object name = map.get("name");
        if (!(name instanceof String tool) || tool.isBlank()) {
            throw error(ErrorCodes.INVALID_PARAMS, "tools/call needs a tool name in params.name (a string).");
        }
        Object arguments = map.get("arguments");
        String argumentsJson = arguments == null ? "{}" : Json.write(arguments);
        awaitListedTool(current, tool);
        Object progressToken = map.get("_meta") instanceof Map<?, ?> meta ? meta.get("progressToken") : null;
        ElicitingFrontEnd listener = new ElicitingFrontEnd(exchange, interactive, approvalTimeout,
                progressToken instanceof String || progressToken instanceof Number ? progressToken : null,
                progressSender);
        CallOutcome outcome = current.call(tool, argumentsJson, listener);
        // progress reaches the client before the result that ends the call's stream
        listener.progressSent(ElicitingFrontEnd.PROGRESS_SEND);
        // a refusal or a failure is a result the model reads, never a protocol error
        return CallToolResult.builder().addTextContent(outcome.output())
                .isError(outcome.status() != CallOutcome.Status.OK)
                .meta(Map.of("quiver/status", outcome.status().id(), "quiver/decision",
                        outcome.verdict().decision().id(), "quiver/by", outcome.verdict().by()))
                .build();
    }

    private Session requireSession() {
        Session current = session;
        if (current == null || closed) {
            throw error(ErrorCodes.INVALID_REQUEST, "Send initialize first.");
        }
        return current;
    }

    static McpError error(int code, String message) {
        return new McpError(new McpSchema.JSONRPCResponse.JSONRPCError(code, message, null));
    }

    /** Closes the session (running calls are cancelled) and stops listening to the registry. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        calls.close();
        debounce.shutdownNow();
        progressSender.shutdownNow();
        if (toolsWatch != null) {
            try {
                toolsWatch.close();
            } catch (Exception ignored) {
                // the registry is gone already
            }
        }
        Session current = session;
        if (current != null) {
            try {
                current.close();
            } catch (RuntimeException e) {
                LOG.warn("Closing the MCP client's session failed", e);
            }
        }
    }
}
