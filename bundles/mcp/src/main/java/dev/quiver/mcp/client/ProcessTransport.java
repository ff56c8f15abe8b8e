package dev.quiver.mcp.client;

import dev.quiver.mcp.Json;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The stdio client transport: starts the server's process and speaks newline-delimited JSON-RPC
 * over its standard streams. Written instead of the SDK's {@code StdioClientTransport} to know
 * when the process dies (so a call in flight fails at once, naming the exit code and the last lines
 * of standard error, instead of waiting for its timeout), to skip a malformed line rather than end
 * the connection, to answer an oversized message with an error for its request, to run in a
 * chosen folder, and to kill the server's whole process tree on close.
 */
final class ProcessTransport implements McpClientTransport {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessTransport.class);
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
    private static final int STDERR_LINES = 20;
    /** Variables of Quiver's environment a server inherits; anything else must be named in "env". */
    static final List<String> INHERITED = List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR",
            "TZ", "JAVA_HOME", "NODE_PATH", "NVM_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
            "XDG_STATE_HOME", "XDG_RUNTIME_DIR");
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(-?\\d{1,18}|\"(?:[^\"\\\\]|\\\\.){0,200}\")");

    private final ServerSpec spec;
    private final Path workspace;
    private final Map<String, String> environment;
    private final Deque<String> stderr = new ArrayDeque<>();
    private final CompletableFuture<String> exited = new CompletableFuture<>();
    private final Object writeLock = new Object();
    private volatile Process process;
    private volatile OutputStream stdin;
    private volatile boolean closing;

    ProcessTransport(ServerSpec spec, Path workspace, Map<String, String> environment) {
        this.spec = spec;
        this.workspace = workspace;
        this.environment = environment;
    }

    /** Completes with a sentence saying how the process ended, once it has. */
    CompletableFuture<String> exited() {
        return exited;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> start(handler));
    }

    private void start(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        List<String> command = new ArrayList<>();
        command.add(spec.command());
        command.addAll(spec.args());
        ProcessBuilder builder = new ProcessBuilder(command);
        Path folder = spec.cwd() == null ? workspace : workspace.resolve(spec.cwd());
        builder.directory(folder.toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        for (String name : INHERITED) {
            String value = environment.get(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        environment.forEach((name, value) -> {
            if (name.startsWith("LC_")) {
                env.put(name, value);
            }
        });
        env.putAll(spec.env());
        Process started;
        try {
            started = builder.start();
        } catch (IOException e) {
            String reason = "could not be started (" + e.getMessage() + ")";
            exited.complete(reason);
            throw new IllegalStateException("The command " + spec.where() + " " + reason + ".", e);
        }
        process = started;
        stdin = started.getOutputStream();
        Thread out = new Thread(() -> readMessages(started.getInputStream(), handler), "quiver-mcp-" + spec.name() + "-out");
        Thread err = new Thread(() -> readStderr(started.getErrorStream()), "quiver-mcp-" + spec.name() + "-err");
        out.setDaemon(true);
        err.setDaemon(true);
        out.start();
        err.start();
    }

    private void readMessages(InputStream stream,
            Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        try (InputStream in = new BufferedInputStream(stream, 64 * 1024)) {
            ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
            byte[] head = new byte[512];
            while (true) {
                line.reset();
                int headLength = 0;
                boolean oversized = false;
                boolean any = false;
                int b;
                while ((b = in.read()) != -1 && b != '\n') {
                    any = true;
                    if (headLength < head.length) {
                        head[headLength++] = (byte) b;
                    }
                    if (!oversized) {
                        if (line.size() >= MAX_MESSAGE_BYTES) {
                            oversized = true;
                            line.reset();
                        } else {
                            line.write(b);
                        }
                    }
                }
                if (oversized) {
                    tooLarge(new String(head, 0, headLength, StandardCharsets.UTF_8), handler);
                } else if (any) {
                    deliver(line.toString(StandardCharsets.UTF_8).strip(), handler);
                }
                if (b == -1) {
                    break;
                }
            }
        } catch (IOException e) {
            LOG.debug("Reading MCP server {} failed", spec.name(), e);
        }
        ended();
    }

    private void deliver(String text, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        if (text.isEmpty()) {
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(Json.MCP, text);
        } catch (Exception e) {
            // a server that logs to stdout by mistake: skip the line, keep the connection
            LOG.warn("MCP server {} wrote a line that is not a JSON-RPC message; skipped: {}", spec.name(),
                    text.length() > 200 ? text.substring(0, 200) + "..." : text);
            return;
        }
        handler.apply(Mono.just(message)).subscribe(null, e -> LOG.debug("Handling a message of {} failed", spec.name(), e));
    }

    /** Fails the request an oversized answer was for, instead of leaving it to time out. */
    private void tooLarge(String head, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        LOG.warn("MCP server {} sent a message over {} MiB; dropped", spec.name(), MAX_MESSAGE_BYTES / (1024 * 1024));
        Matcher matcher = ID.matcher(head);
        if (!matcher.find() || head.contains("\"method\"") && head.indexOf("\"method\"") < matcher.start()) {
            return;
        }
        Object id;
        try {
            id = Json.MAPPER.readValue(matcher.group(1), Object.class);
        } catch (IOException e) {
            return;
        }
        McpSchema.JSONRPCResponse error = new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, id, null,
                new McpSchema.JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, "the answer was larger than "
                        + MAX_MESSAGE_BYTES / (1024 * 1024) + " MiB and was dropped", null));
        handler.apply(Mono.just(error)).subscribe(null, e -> LOG.debug("Handling a message of {} failed", spec.name(), e));
    }

    private void readStderr(InputStream stream) {
        try (InputStream in = stream) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') {
                    keep(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                } else if (line.size() < 2000) {
                    line.write(b);
                }
            }
            if (line.size() > 0) {
                keep(line.toString(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            LOG.debug("Reading the standard error of MCP server {} failed", spec.name(), e);
        }
    }

    private void keep(String line) {
        LOG.debug("mcp {} stderr: {}", spec.name(), line);
        synchronized (stderr) {
            stderr.addLast(line);
            while (stderr.size() > STDERR_LINES) {
                stderr.removeFirst();
            }
        }
    }

    /** The last lines the server wrote to standard error, joined. */
    String stderrTail(int lines) {
        synchronized (stderr) {
            List<String> all = new ArrayList<>(stderr);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())).strip();
        }
    }

    private void ended() {
        Process current = process;
        String reason;
        if (closing) {
            reason = "was stopped";
        } else if (current == null) {
            reason = "closed its output";
        } else {
            try {
                if (current.waitFor(2, TimeUnit.SECONDS)) {
                    reason = "exited with code " + current.exitValue();
                } else {
                    reason = "closed its output but is still running";
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reason = "closed its output";
            }
            // let the standard error reader catch the last lines
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String tail = stderrTail(3);
            if (!tail.isEmpty()) {
                reason += "; its last output on stderr: " + tail.replace('\n', ' ');
            }
        }
        exited.complete(reason);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.fromRunnable(() -> {
            OutputStream out = stdin;
            if (out == null || exited.isDone()) {
                throw new IllegalStateException("MCP server " + spec.name() + " is not running"
                        + (exited.isDone() ? ": it " + exited.getNow("ended") : "") + ".");
            }
            byte[] bytes = (Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (writeLock) {
                try {
                    out.write(bytes);
                    out.flush();
                } catch (IOException e) {
                    throw new IllegalStateException("MCP server " + spec.name() + " stopped reading its input ("
                            + e.getMessage() + ").", e);
                }
            }
        });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return Json.MCP.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    /** Closes the server's input, then ends its whole process tree: TERM, and KILL after two seconds. */
    @Override
    public void close() {
        closing = true;
        Process current = process;
        if (current == null) {
            return;
        }
        try {
            OutputStream out = stdin;
            if (out != null) {
                out.close();
            }
        } catch (IOException ignored) {
            // it is going anyway
        }
        List<ProcessHandle> tree = new ArrayList<>(current.descendants().toList());
        tree.forEach(ProcessHandle::destroy);
        current.destroy();
        try {
            if (!current.waitFor(2, TimeUnit.SECONDS)) {
                current.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            current.destroyForcibly();
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}
