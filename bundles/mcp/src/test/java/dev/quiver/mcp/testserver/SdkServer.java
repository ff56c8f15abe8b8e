package dev.quiver.mcp.testserver;

import dev.quiver.mcp.Json;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletSseServerTransportProvider;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ValveBase;

/**
 * An MCP server built with the official MCP Java SDK's server side, for the client tests: over stdio
 * in a JVM of its own ({@link #main}), or over HTTP+SSE or streamable HTTP as the SDK's servlets in an
 * embedded Tomcat on the loopback address. Its tools: {@code echo} ({@code text} back, prefixed with
 * the transport) and {@code env} (the value of an environment variable of the server's process, or
 * {@code (unset)}), so a test sees what reached the server. Every HTTP request is recorded with its
 * headers, so a test can tell that none arrived.
 */
public final class SdkServer implements AutoCloseable {

    static {
        java.util.logging.Logger.getLogger("org.apache").setLevel(java.util.logging.Level.WARNING); // no start-up chatter
    }

    private final Tomcat tomcat;
    private final McpSyncServer server;
    private final String path;
    /** Each HTTP request that arrived: its method, path and {@code Authorization} header. */
    public final List<String> requests = new CopyOnWriteArrayList<>();

    private SdkServer(Tomcat tomcat, McpSyncServer server, String path) {
        this.tomcat = tomcat;
        this.server = server;
        this.path = path;
    }

    /** Serves over stdio until stdin closes. */
    public static void main(String[] args) throws Exception {
        build(McpServer.sync(new StdioServerTransportProvider(Json.MCP)), "stdio");
        Thread.currentThread().join(); // serves until the client stops the process
    }

    private static McpSyncServer build(McpServer.SyncSpecification<?> spec, String transport) {
        return spec.serverInfo("sdk-test-server", "1.0.0").jsonMapper(Json.MCP).jsonSchemaValidator(Json.LENIENT)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(tool("echo", "Says the text back.", "text",
                        request -> transport + " echo: " + request.arguments().get("text")),
                        tool("env", "The value of an environment variable of the server.", "name",
                                request -> {
                                    String value = System.getenv(String.valueOf(request.arguments().get("name")));
                                    return value == null ? "(unset)" : value;
                                }))
                .build();
    }

    private static SyncToolSpecification tool(String name, String description, String argument,
            java.util.function.Function<McpSchema.CallToolRequest, String> answer) {
        Map<String, Object> schema = Map.of("type", "object", "properties", Map.of(argument, Map.of("type", "string")),
                "required", List.of(argument));
        return SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name(name).description(description).inputSchema(schema).build())
                .callHandler((exchange, request) -> McpSchema.CallToolResult.builder()
                        .addTextContent(answer.apply(request)).isError(false).build())
                .build();
    }

    /** The SDK's HTTP+SSE servlet: the event stream at {@code /sse}, messages to {@code /messages}. */
    public static SdkServer sse(Path baseDir) throws LifecycleException, IOException {
        HttpServletSseServerTransportProvider provider = HttpServletSseServerTransportProvider.builder()
                .jsonMapper(Json.MCP).sseEndpoint("/sse").messageEndpoint("/messages").build();
        return start(baseDir, provider, build(McpServer.sync(provider), "sse"), "/sse");
    }

    /** The SDK's streamable HTTP servlet at {@code /mcp}. */
    public static SdkServer streamable(Path baseDir) throws LifecycleException, IOException {
        HttpServletStreamableServerTransportProvider provider = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(Json.MCP).mcpEndpoint("/mcp").build();
        return start(baseDir, provider, build(McpServer.sync(provider), "http"), "/mcp");
    }

    private static SdkServer start(Path baseDir, HttpServlet provider, McpSyncServer server, String path)
            throws LifecycleException, IOException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createDirectories(baseDir).toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", null);
        SdkServer running = new SdkServer(tomcat, server, path);
        context.getPipeline().addValve(new ValveBase(true) {
            @Override
            public void invoke(Request request, Response response) throws IOException, ServletException {
                running.requests.add(request.getMethod() + " " + request.getRequestURI() + " "
                        + request.getHeader("Authorization"));
                getNext().invoke(request, response);
            }
        });
        Tomcat.addServlet(context, "mcp", provider).setAsyncSupported(true);
        context.addServletMappingDecoded("/*", "mcp");
        tomcat.start();
        return running;
    }

    /** The URL a client configures. */
    public String url() {
        return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + path;
    }

    @Override
    public void close() throws Exception {
        server.closeGracefully();
        tomcat.stop();
        tomcat.destroy();
    }
}
