package dev.quiver.mcp.client;

import dev.quiver.api.Access;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * One configured MCP server while a session uses it: the SDK's client over a process or HTTP
 * transport, and one {@link Tool} service per remote tool, registered from the MCP bundle.
 * A server that fails to start registers no tools; one that dies keeps its tools, whose calls then
 * fail with a sentence saying what happened. The tool list follows the server's
 * {@code notifications/tools/list_changed}.
 */
final class ServerHandle {

    private static final Logger LOG = LoggerFactory.getLogger(ServerHandle.class);
    private static final long POLL_MILLIS = 100;

    /** Registers Tool services; the bundle context in OSGi. */
    interface Registrar {
        /** Registers a tool service; close the handle to unregister it. */
        AutoCloseable register(Tool tool, Map<String, Object> properties);
    }

    /** Where a server is in its life. */
    enum State { STARTING, RUNNING, FAILED, STOPPED }

    private final ServerSpec spec;
    private final Path workspace;
    private final Map<String, String> environment;
    private final Registrar registrar;
    private final String version;
    private final Map<String, Registered> tools = new LinkedHashMap<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private volatile State state = State.STARTING;
    private volatile String problem = "";
    private volatile McpAsyncClient client;
    private volatile ProcessTransport process;

    private record Registered(McpSchema.Tool remote, RemoteTool tool, AutoCloseable registration) {
    }

    ServerHandle(ServerSpec spec, Path workspace, Map<String, String> environment, Registrar registrar, String version) {
        this.spec = spec;
        this.workspace = workspace;
        this.environment = environment;
        this.registrar = registrar;
        this.version = version;
    }

    ServerSpec spec() {
        return spec;
    }

    State state() {
        return state;
    }

    /** Why the server is not running, or empty. */
    String problem() {
        return problem;
    }

    /** Completes when the server is running with its tools registered, or has failed. */
    CompletableFuture<Void> ready() {
        return ready;
    }

    /** The Quiver names of the tools registered now. */
    synchronized List<String> toolNames() {
        List<String> names = new ArrayList<>();
        tools.values().forEach(r -> names.add(r.tool().spec().name()));
        return names;
    }

    /** Starts the server in the background; {@link #ready()} tells when it is up or failed. */
    void start() {
        Thread thread = new Thread(this::connect, "quiver-mcp-start-" + spec.name());
        thread.setDaemon(true);
        thread.start();
    }

    private void connect() {
        try {
            McpClientTransport transport;
            if (spec.stdio()) {
                ProcessTransport stdio = new ProcessTransport(spec, workspace, environment);
                stdio.exited().thenAccept(this::died);
                process = stdio;
                transport = stdio;
            } else if (spec.transport() == ServerSpec.Transport.SSE) {
                transport = sse();
            } else {
                transport = http();
            }
            McpAsyncClient built = McpClient.async(transport)
                    .requestTimeout(spec.callTimeout())
                    .initializationTimeout(spec.startupTimeout())
                    .capabilities(McpSchema.ClientCapabilities.builder().build())
                    .clientInfo(new McpSchema.Implementation("quiver", "Quiver", version))
                    .jsonSchemaValidator(Json.LENIENT)
                    .toolsChangeConsumer(list -> Mono.fromRunnable(() -> sync(list)))
                    .build();
            client = built;
            await(built.initialize(), spec.startupTimeout().plusSeconds(1));
            if (state == State.STOPPED) {
                built.close();
                return;
            }
            sync(listAll(built));
            synchronized (this) {
                if (state == State.STARTING) {
                    state = State.RUNNING;
                }
            }
            LOG.info("MCP server {} is running with {} tools", spec.name(), tools.size());
        } catch (RuntimeException e) {
            ProcessTransport stdio = process;
            if (stdio != null) {
                try {
                    stdio.exited().get(3, TimeUnit.SECONDS); // a failed write may come before the exit is seen
                } catch (Exception stillRunning) {
                    // then the failure itself is the news
                }
            }
            fail(stdio != null && stdio.exited().isDone() ? "failed to start: the process " + stdio.exited().getNow("ended")
                    : "failed to start: " + describe(e));
        } finally {
            ready.complete(null);
        }
    }

    private McpClientTransport http() {
        URI uri = URI.create(spec.url());
        Map<String, String> headers = spec.headers();
        return HttpClientStreamableHttpTransport.builder(origin(uri)).endpoint(pathAndQuery(uri)).jsonMapper(Json.MCP)
                .clientBuilder(HttpClient.newBuilder().connectTimeout(spec.startupTimeout()))
                .httpRequestCustomizer((request, method, target, body, context) -> headers.forEach(request::header))
                .build();
    }

    /**
     * The older HTTP+SSE transport: a GET of the URL opens the event stream, whose {@code endpoint}
     * event names where to POST; the SDK accepts only a same-origin endpoint without {@code ..}, so a
     * server cannot send the messages (and the headers) elsewhere.
     */
    private McpClientTransport sse() {
        URI uri = URI.create(spec.url());
        Map<String, String> headers = spec.headers();
        return HttpClientSseClientTransport.builder(origin(uri)).sseEndpoint(pathAndQuery(uri)).jsonMapper(Json.MCP)
                .clientBuilder(HttpClient.newBuilder().connectTimeout(spec.startupTimeout()))
                .httpRequestCustomizer((request, method, target, body, context) -> headers.forEach(request::header))
                .build();
    }

    private static String origin(URI uri) {
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    private static String pathAndQuery(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    private List<McpSchema.Tool> listAll(McpAsyncClient from) {
        List<McpSchema.Tool> all = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < 100; page++) {
            McpSchema.ListToolsResult result = await(from.listTools(cursor), spec.startupTimeout().plus(spec.callTimeout()));
            if (result == null) {
                break;
            }
            if (result.tools() != null) {
                all.addAll(result.tools());
            }
            cursor = result.nextCursor();
            if (cursor == null || cursor.isEmpty()) {
                break;
            }
        }
        return all;
    }

    /** Waits for a start-up request; a process that exits meanwhile fails it at once, saying how it ended. */
    private <T> T await(Mono<T> request, Duration timeout) {
        CompletableFuture<T> answer = request.toFuture();
        ProcessTransport stdio = process;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return answer.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException pending) {
                if (stdio != null && stdio.exited().isDone()) {
                    answer.cancel(true);
                    throw new IllegalStateException("the process " + stdio.exited().getNow("ended"));
                }
                if (System.nanoTime() > deadline || state == State.STOPPED) {
                    answer.cancel(true);
                    throw new IllegalStateException("no answer to initialize within " + timeout.toSeconds()
                            + " s (its \"startupTimeout\")");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted");
            } catch (ExecutionException e) {
                throw new IllegalStateException(describe(e.getCause()), e.getCause());
            }
        }
    }

    /** Registers and unregisters services so they match the server's tools. */
    private synchronized void sync(List<McpSchema.Tool> remote) {
        if (state == State.STOPPED || state == State.FAILED) {
            return;
        }
        Map<String, McpSchema.Tool> wanted = new LinkedHashMap<>();
        for (McpSchema.Tool tool : remote) {
            if (tool != null && tool.name() != null && !tool.name().isEmpty()) {
                wanted.putIfAbsent(tool.name(), tool);
            }
        }
        for (var it = tools.entrySet().iterator(); it.hasNext();) {
            var entry = it.next();
            McpSchema.Tool now = wanted.get(entry.getKey());
            if (now == null || !now.equals(entry.getValue().remote())) {
                unregister(entry.getValue());
                it.remove();
            }
        }
        Set<String> taken = new HashSet<>();
        tools.values().forEach(r -> taken.add(r.tool().spec().name()));
        for (McpSchema.Tool tool : wanted.values()) {
            if (tools.containsKey(tool.name())) {
                continue;
            }
            String name = ToolNames.tool(spec.name(), tool.name(), taken);
            taken.add(name);
            RemoteTool local = new RemoteTool(this, name, tool);
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put(Tool.NAME, name);
            properties.put(Tool.ACCESS, (spec.stdio() ? Access.EXECUTE : Access.NETWORK).id());
            properties.put("quiver.mcp.server", spec.name());
            properties.put("quiver.mcp.tool", tool.name());
            try {
                tools.put(tool.name(), new Registered(tool, local, registrar.register(local, properties)));
            } catch (RuntimeException e) {
                LOG.warn("Could not register tool {} of MCP server {}", name, spec.name(), e);
            }
        }
    }

    private void unregister(Registered registered) {
        try {
            registered.registration().close();
        } catch (Exception e) {
            LOG.debug("Unregistering {} failed", registered.tool().spec().name(), e);
        }
    }

    private void died(String how) {
        if (state == State.STOPPED || state == State.STARTING) {
            return; // connect() reports a death during start-up
        }
        fail(how);
    }

    private void fail(String why) {
        synchronized (this) {
            if (state == State.STOPPED || state == State.FAILED) {
                return;
            }
            state = State.FAILED;
            problem = why;
        }
        LOG.warn("MCP server {} ({}) {}", spec.name(), spec.where(), why);
        System.err.println("quiver: mcp server " + spec.name() + " " + why);
    }

    /** Calls a remote tool, waiting for the answer, the server's death, the timeout or cancellation. */
    ToolResult call(String localName, String remoteName, Map<String, Object> arguments, ToolContext context)
            throws ToolException {
        McpAsyncClient current = client;
        if (state != State.RUNNING || current == null) {
            throw new ToolException(notRunning(localName));
        }
        CompletableFuture<McpSchema.CallToolResult> answer = current
                .callTool(new McpSchema.CallToolRequest(remoteName, arguments)).toFuture();
        ProcessTransport stdio = process;
        long deadline = System.nanoTime() + spec.callTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
        try {
            while (true) {
                try {
                    return render(localName, answer.get(POLL_MILLIS, TimeUnit.MILLISECONDS));
                } catch (TimeoutException pending) {
                    if (context.isCancelled()) {
                        answer.cancel(true);
                        throw new ToolException(localName + " was cancelled. It did not finish, so its effects are unknown.");
                    }
                    if (stdio != null && stdio.exited().isDone() || state == State.FAILED) {
                        answer.cancel(true);
                        throw new ToolException("The MCP server " + spec.name() + " " + (stdio != null
                                ? stdio.exited().getNow(problem) : problem) + " while " + localName
                                + " ran. The call did not complete, so its effects are unknown. Its tools fail until "
                                + "the server is restarted (changing its entry in the config restarts it).");
                    }
                    if (System.nanoTime() > deadline) {
                        answer.cancel(true);
                        throw new ToolException(timedOut(localName));
                    }
                }
            }
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new ToolException(localName + " was interrupted. It did not finish, so its effects are unknown.");
        } catch (CancellationException e) {
            throw new ToolException(localName + " was cancelled. It did not finish, so its effects are unknown.");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof McpError error && error.getJsonRpcError() != null) {
                throw new ToolException("The MCP server " + spec.name() + " refused the call to " + remoteName + ": "
                        + error.getJsonRpcError().message() + " (JSON-RPC error " + error.getJsonRpcError().code() + ").");
            }
            if (cause instanceof TimeoutException) {
                throw new ToolException(timedOut(localName));
            }
            if (stdio != null && stdio.exited().isDone()) {
                throw new ToolException("The MCP server " + spec.name() + " " + stdio.exited().getNow("ended")
                        + " while " + localName + " ran. The call did not complete, so its effects are unknown.");
            }
            throw new ToolException("The call to " + remoteName + " on the MCP server " + spec.name() + " failed: "
                    + describe(cause) + ". Its effects are unknown.");
        }
    }

    private String timedOut(String localName) {
        return "The MCP server " + spec.name() + " did not answer " + localName + " within "
                + spec.callTimeout().toSeconds() + " s (its \"timeout\"); the call was abandoned and its effects are unknown.";
    }

    private String notRunning(String localName) {
        return switch (state) {
            case STARTING -> "The MCP server " + spec.name() + " is still starting; try " + localName + " again shortly.";
            case STOPPED -> "The MCP server " + spec.name() + " was stopped; " + localName + " is no longer available.";
            default -> "The MCP server " + spec.name() + " is not running: it " + problem + ". " + localName
                    + " cannot run until the server is fixed and restarted (changing its entry in the config restarts it).";
        };
    }

    /** The text the model reads: text parts as they are, other parts described. */
    static ToolResult render(String localName, McpSchema.CallToolResult result) throws ToolException {
        if (result == null) {
            return ToolResult.of("");
        }
        StringBuilder text = new StringBuilder();
        if (result.content() != null) {
            for (McpSchema.Content content : result.content()) {
                if (text.length() > 0) {
                    text.append('\n');
                }
                text.append(describe(content));
            }
        }
        if (text.length() == 0 && result.structuredContent() != null) {
            text.append(Json.write(result.structuredContent()));
        }
        if (Boolean.TRUE.equals(result.isError())) {
            throw new ToolException(text.length() == 0 ? localName + " reported an error without a message." : text.toString());
        }
        return ToolResult.of(text.toString());
    }

    private static String describe(McpSchema.Content content) {
        if (content instanceof McpSchema.TextContent t) {
            return t.text() == null ? "" : t.text();
        }
        if (content instanceof McpSchema.ImageContent image) {
            return "[image " + image.mimeType() + ", " + (image.data() == null ? 0 : image.data().length() * 3 / 4)
                    + " bytes, not shown]";
        }
        if (content instanceof McpSchema.AudioContent audio) {
            return "[audio " + audio.mimeType() + ", not shown]";
        }
        if (content instanceof McpSchema.EmbeddedResource embedded) {
            if (embedded.resource() instanceof McpSchema.TextResourceContents t) {
                return t.text();
            }
            return "[resource " + embedded.resource().uri() + " (" + embedded.resource().mimeType() + "), not shown]";
        }
        if (content instanceof McpSchema.ResourceLink link) {
            return "[resource link " + link.name() + ": " + link.uri() + "]";
        }
        return "[" + content.type() + " content, not shown]";
    }

    /** The most telling message of a failure: a JSON-RPC error's, else the deepest cause's. */
    private static String describe(Throwable e) {
        String message = null;
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof McpError error && error.getJsonRpcError() != null) {
                return error.getJsonRpcError().message();
            }
            if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
                message = cause.getMessage();
            } else if (message == null) {
                message = cause.getClass().getSimpleName();
            }
        }
        return message == null ? "unknown error" : message;
    }

    /** Unregisters the tools and stops the server (its process tree for stdio). */
    void stop() {
        List<Registered> registered;
        synchronized (this) {
            state = State.STOPPED;
            registered = new ArrayList<>(tools.values());
            tools.clear();
        }
        registered.forEach(this::unregister);
        McpAsyncClient current = client;
        if (current != null) {
            try {
                current.closeGracefully().block(Duration.ofSeconds(3));
            } catch (RuntimeException e) {
                LOG.debug("Closing MCP server {} failed", spec.name(), e);
            }
        }
        ProcessTransport stdio = process;
        if (stdio != null) {
            stdio.close();
        }
    }

    /** The SDK's description of the remote tools, for tests. */
    synchronized List<McpSchema.Tool> remoteTools() {
        List<McpSchema.Tool> list = new ArrayList<>();
        tools.values().forEach(r -> list.add(r.remote()));
        return list;
    }
}
