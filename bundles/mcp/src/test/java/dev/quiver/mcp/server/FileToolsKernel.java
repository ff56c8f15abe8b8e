package dev.quiver.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TrustedWorkspace;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.TurnResult;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.Verdict;
import dev.quiver.api.host.WorkspaceTrust;
import dev.quiver.mcp.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kernel whose sessions run tools on real files of the workspace: {@code write} replaces
 * {@code note.txt}, {@code append} adds a line to {@code log.txt}, {@code read} returns a file,
 * {@code block} waits until it is interrupted, and {@code ask} puts a question to the front end. Each
 * session counts calls that overlapped, which a {@link Session} does not allow.
 */
final class FileToolsKernel implements Kernel {

    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger running = new AtomicInteger();

    @Override
    public Session open(SessionOptions options) {
        return new FileSession(options.workspace());
    }

    private final class FileSession implements Session {
        private final Path workspace;
        private final AtomicBoolean inCall = new AtomicBoolean();
        private volatile Thread caller;

        FileSession(Path workspace) {
            this.workspace = workspace;
        }

        @Override
        public CallOutcome call(String tool, String argumentsJson, TurnListener listener) {
            if (!inCall.compareAndSet(false, true)) {
                overlaps.incrementAndGet();
            }
            running.incrementAndGet();
            caller = Thread.currentThread();
            try {
                JsonNode arguments = Json.MAPPER.readTree(argumentsJson);
                String output = switch (tool) {
                    case "write" -> {
                        Files.writeString(workspace.resolve("note.txt"), arguments.path("text").asText());
                        yield "written";
                    }
                    case "append" -> {
                        Files.writeString(workspace.resolve("log.txt"), arguments.path("text").asText() + "\n",
                                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                        yield "appended";
                    }
                    case "read" -> Files.readString(workspace.resolve(arguments.path("path").asText()));
                    case "block" -> {
                        try {
                            Thread.sleep(Long.MAX_VALUE);
                            yield "woke up";
                        } catch (InterruptedException e) {
                            yield "interrupted";
                        }
                    }
                    case "progress" -> {
                        // what a command's output or a subagent's calls stream while the call runs
                        arguments.path("lines").forEach(line -> listener.callOutput(tool, line.asText()));
                        yield "progressed";
                    }
                    case "ask" -> {
                        java.util.List<dev.quiver.api.UserQuestion.Option> options = new java.util.ArrayList<>();
                        arguments.path("options").forEach(label -> options.add(
                                new dev.quiver.api.UserQuestion.Option(label.asText(), "about " + label.asText())));
                        yield listener.ask(new dev.quiver.api.UserQuestion(arguments.path("question").asText(), options,
                                arguments.path("multiple").asBoolean())).map(answer -> "answer " + answer).orElse("dismissed");
                    }
                    default -> throw new IllegalArgumentException("no tool " + tool);
                };
                return new CallOutcome(tool, CallOutcome.Status.OK, output, 0, new Verdict(Decision.ALLOW, "test", ""));
            } catch (IOException | RuntimeException e) {
                return new CallOutcome(tool, CallOutcome.Status.ERROR, String.valueOf(e), 0,
                        new Verdict(Decision.ALLOW, "test", ""));
            } finally {
                caller = null;
                running.decrementAndGet();
                inCall.set(false);
            }
        }

        @Override
        public boolean interruptCalls() {
            Thread thread = caller;
            if (thread != null) {
                thread.interrupt();
            }
            return thread != null;
        }

        @Override
        public List<ToolInfo> tools() {
            return List.of("append", "ask", "block", "progress", "read", "write").stream()
                    .map(name -> new ToolInfo(name, Optional.empty(), "write", Decision.ALLOW, "test", 2, name,
                            "{\"type\":\"object\"}", Optional.empty(), true))
                    .toList();
        }

        @Override
        public String id() {
            return "file-session";
        }

        @Override
        public Path workspace() {
            return workspace;
        }

        @Override
        public List<String> warnings() {
            return List.of();
        }

        @Override
        public AutoCloseable onToolsChanged(Runnable listener) {
            return () -> { };
        }

        @Override
        public void close() {
            interruptCalls();
        }

        @Override
        public Optional<String> model() {
            return Optional.empty();
        }

        @Override
        public Optional<Object> config(String key) {
            return Optional.empty();
        }

        @Override
        public List<String> toolSets() {
            return List.of();
        }

        @Override
        public List<ToolInfo> registered() {
            return tools();
        }

        @Override
        public Verdict check(String tool, String argumentsJson) {
            return new Verdict(Decision.ALLOW, "test", "");
        }

        @Override
        public TurnResult send(String prompt, TurnListener listener) {
            throw new UnsupportedOperationException("no model in these tests");
        }

        @Override
        public void cancelTurn() {
            interruptCalls();
        }

        @Override
        public void switchModel(String spec) {
            throw new UnsupportedOperationException("no model in these tests");
        }

        @Override
        public String agent() {
            return "default";
        }

        @Override
        public void switchAgent(String name) {
            throw new UnsupportedOperationException("no agent in these tests");
        }

        @Override
        public String thinking() {
            return "off";
        }

        @Override
        public void switchThinking(String level) {
            throw new UnsupportedOperationException("no model in these tests");
        }

        @Override
        public String compact() {
            throw new UnsupportedOperationException("no conversation in these tests");
        }

        @Override
        public void clear() {
        }

        @Override
        public UndoReport previewUndo(int turns, boolean force) {
            throw new UnsupportedOperationException("no turns in these tests");
        }

        @Override
        public UndoReport undo(int turns, boolean force) {
            throw new UnsupportedOperationException("no turns in these tests");
        }
    }

    @Override
    public List<SessionSummary> sessions(Path workspace) {
        return List.of();
    }

    @Override
    public WorkspaceTrust workspaceTrust(Path workspace) {
        throw new UnsupportedOperationException("trust is not part of these tests");
    }

    @Override
    public Path trust(Path workspace) {
        throw new UnsupportedOperationException("trust is not part of these tests");
    }

    @Override
    public boolean revokeTrust(Path workspace) {
        return false;
    }

    @Override
    public List<TrustedWorkspace> trustedWorkspaces() {
        return List.of();
    }

    @Override
    public List<Checkpoint> checkpoints(Path workspace) {
        return List.of();
    }

    @Override
    public UndoReport undo(Path workspace, int turns, boolean force) {
        throw new UnsupportedOperationException("no turns in these tests");
    }
}
