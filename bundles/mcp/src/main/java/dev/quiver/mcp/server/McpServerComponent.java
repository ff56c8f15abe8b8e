package dev.quiver.mcp.server;

import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.McpServer;
import dev.quiver.api.host.SessionOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link McpServer} service: Quiver's tools, governed by the kernel, for any MCP client. */
@Component(service = McpServer.class)
public class McpServerComponent implements McpServer {

    private static final Logger LOG = LoggerFactory.getLogger(McpServerComponent.class);
    /** How long a request to the client (an approval) may wait for the person to answer. */
    static final Duration APPROVAL_TIMEOUT = Duration.ofMinutes(10);
    /** The SDK's limit for any request it sends or waits on. */
    static final Duration REQUEST_TIMEOUT = APPROVAL_TIMEOUT.plusMinutes(1);

    private final Kernel kernel;
    private final String version;
    /** The framework's view of this bundle; null outside OSGi. */
    private final BundleContext context;
    private final Set<AutoCloseable> running = new CopyOnWriteArraySet<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    /**
     * Runs the tool calls of every connection; one per session fits every HTTP session, so none
     * waits for another's call.
     */
    private final ExecutorService calls = CallQueue.workers("quiver-mcp-call", HttpServer.MAX_SESSIONS);

    @Activate
    public McpServerComponent(@Reference Kernel kernel, BundleContext context) {
        this.kernel = kernel;
        this.context = context;
        Object header = context.getBundle().getHeaders().get("Quiver-Version");
        this.version = header == null ? context.getBundle().getVersion().toString() : header.toString();
    }

    /** Outside OSGi (tests): a server over any kernel. */
    public McpServerComponent(Kernel kernel, String version) {
        this.kernel = kernel;
        this.version = version;
        this.context = null;
    }

    @Override
    public int serveStdio(SessionOptions options, InputStream in, OutputStream out, PrintStream err) {
        if (!Files.isDirectory(options.workspace())) {
            err.println("quiver mcp: the workspace " + options.workspace() + " is not a folder.");
            return 1;
        }
        // the launcher may have answered the client already, and then owns standard input
        EarlyStart early = EarlyStart.take(context);
        ToolService service = new ToolService(kernel, options, err, version, APPROVAL_TIMEOUT, calls, early);
        StdioServer server = new StdioServer(service, early.in().orElse(in), out, REQUEST_TIMEOUT,
                early.answeredInitialize().orElse(null));
        running.add(server);
        err.println("quiver mcp " + version + " · serving " + options.workspace() + " over stdio");
        early.answeredInitialize().ifPresent(answered -> err.println("quiver mcp · answered initialize"
                + (early.servedTools().isPresent() ? " and tools/list (" + early.servedNames().size() + " tools)" : "")
                + " from the catalogue recorded at the last start"));
        try {
            server.run();
            return 0;
        } catch (IOException e) {
            LOG.debug("The MCP client's input failed", e);
            return 0;
        } finally {
            running.remove(server);
            server.close();
        }
    }

    @Override
    public int serveHttp(SessionOptions options, int port, PrintStream err) {
        if (!Files.isDirectory(options.workspace())) {
            err.println("quiver mcp: the workspace " + options.workspace() + " is not a folder.");
            return 1;
        }
        if (port < 0 || port > 65535) {
            err.println("quiver mcp: --http takes a port from 0 to 65535, got " + port + ".");
            return 1;
        }
        HttpServer server;
        try {
            server = new HttpServer(() -> new ToolService(kernel, options, err, version, APPROVAL_TIMEOUT, calls),
                    port, REQUEST_TIMEOUT);
        } catch (IOException e) {
            err.println("quiver mcp: cannot listen on 127.0.0.1:" + port + ": " + e.getMessage());
            return 1;
        }
        running.add(server);
        err.println("quiver mcp " + version + " · serving " + options.workspace() + " at " + server.url());
        err.println("token: " + server.token());
        err.println("Send it as \"Authorization: Bearer TOKEN\". It is printed only once and ends with this process.");
        err.flush();
        try {
            stopped.await();
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } finally {
            running.remove(server);
            server.close();
            err.println("quiver mcp: stopped");
        }
    }

    @Deactivate
    void deactivate() {
        stopped.countDown();
        for (AutoCloseable server : running) {
            try {
                server.close();
            } catch (Exception e) {
                LOG.debug("Stopping an MCP server failed", e);
            }
        }
        calls.shutdownNow();
    }
}
