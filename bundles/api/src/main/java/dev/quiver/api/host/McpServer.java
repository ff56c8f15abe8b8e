package dev.quiver.api.host;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Serves the live tool registry to Model Context Protocol clients, registered as a service by the
 * MCP bundle ({@code dev.quiver.mcp}); {@code quiver mcp} is its front end.
 *
 * <p>Every MCP connection (the one stdio client, or each HTTP session) gets its own
 * {@link Session}, opened from the given options when the client sends {@code initialize}:
 * {@code tools/list} is {@link Session#tools()}, {@code tools/call} is {@link Session#call} with the
 * whole permission chain, and a refusal is a tool result with {@code isError}, never a protocol
 * error. A call that asks is refused unless the configuration or {@code --yolo} allows it, or the
 * client declared the {@code elicitation} capability: then the session is interactive and the
 * client's user is asked through {@code elicitation/create}. When a tool bundle comes or goes,
 * the client receives {@code notifications/tools/list_changed}.
 */
@ProviderType
public interface McpServer {

    /**
     * Serves one client over standard streams until the input ends or the service stops.
     *
     * @param options the workspace, config file and modes of the sessions; {@code interactive} is
     *     ignored (it follows the client's elicitation capability)
     * @param in where JSON-RPC messages arrive, one per line
     * @param out where JSON-RPC messages go, one per line, and nothing else
     * @param err where start-up lines and warnings go
     * @return the exit code: 0 when the client hung up, 1 when serving failed
     */
    int serveStdio(SessionOptions options, InputStream in, OutputStream out, PrintStream err);

    /**
     * Serves the streamable HTTP transport on {@code 127.0.0.1} until the calling thread is
     * interrupted or the service stops. A random bearer token is made at start and printed once on
     * {@code err}, with the endpoint's URL; a request without it gets 401.
     *
     * @param options as for {@link #serveStdio}
     * @param port the TCP port, 0 for any free one
     * @param err where the endpoint, the token and warnings go
     * @return the exit code: 0 after a clean stop, 1 when the port could not be bound
     */
    int serveHttp(SessionOptions options, int port, PrintStream err);
}
