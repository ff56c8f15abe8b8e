package dev.quiver.mcp.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.SessionContext;
import dev.quiver.mcp.testserver.TinyMcpServer;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/** What the client tests share: the tiny server's command line, a registry of services, a session context. */
final class TestSupport {

    private TestSupport() {
    }

    /** The command that starts {@link TinyMcpServer} in a JVM of its own. */
    static List<String> tinyServer(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xshare:auto");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(List.of(TinyMcpServer.class, ObjectMapper.class, JsonFactory.class, JsonProperty.class).stream()
                .map(TestSupport::location).distinct().collect(Collectors.joining(File.pathSeparator)));
        command.add(TinyMcpServer.class.getName());
        command.addAll(List.of(args));
        return command;
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The config entry of a stdio server running the tiny server. */
    static Map<String, Object> stdioEntry(String... args) {
        List<String> command = tinyServer(args);
        return Map.of("command", command.get(0), "args", command.subList(1, command.size()));
    }

    /** One registered service. */
    record Registration(Tool tool, Map<String, Object> properties) {
        String name() {
            return (String) properties.get(Tool.NAME);
        }
    }

    /** Collects registrations as the framework would hold them. */
    static final class Registry implements ServerHandle.Registrar {
        final List<Registration> services = new CopyOnWriteArrayList<>();

        @Override
        public AutoCloseable register(Tool tool, Map<String, Object> properties) {
            Registration registration = new Registration(tool, Map.copyOf(properties));
            services.add(registration);
            return () -> services.remove(registration);
        }

        List<String> names() {
            return services.stream().map(Registration::name).sorted().toList();
        }

        Tool tool(String name) {
            return services.stream().filter(r -> r.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " is not registered: " + names())).tool();
        }
    }

    /** A session's context whose config the test sets. */
    static final class Context implements SessionContext {
        private final Path workspace;
        private volatile Object mcp;
        private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

        Context(Path workspace, Object mcp) {
            this.workspace = workspace;
            this.mcp = mcp;
        }

        void change(Object config) {
            this.mcp = config;
            listeners.forEach(Runnable::run);
        }

        @Override
        public String id() {
            return "test-session";
        }

        @Override
        public Path workspace() {
            return workspace;
        }

        @Override
        public java.util.Map<String, String> environment() {
            return System.getenv();
        }

        @Override
        public Optional<Object> config(String key) {
            return "mcp".equals(key) ? Optional.ofNullable(mcp) : Optional.empty();
        }

        @Override
        public AutoCloseable onConfigChange(Runnable listener) {
            listeners.add(listener);
            return () -> listeners.remove(listener);
        }
    }

    /** A call's context that the test can cancel. */
    static final class Call implements ToolContext {
        final AtomicBoolean cancelled = new AtomicBoolean();

        @Override
        public Workspace workspace() {
            throw new UnsupportedOperationException("MCP tools do not use the workspace");
        }

        @Override
        public Optional<Object> config(String key) {
            return Optional.empty();
        }

        @Override
        public void stream(String text) {
        }

        @Override
        public java.util.Map<String, String> environment() {
            return System.getenv();
        }

        @Override
        public boolean isCancelled() {
            return cancelled.get();
        }
    }
}
