package dev.quiver.cli;

import dev.quiver.api.host.McpServer;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.util.concurrent.Callable;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code quiver mcp [--http PORT]}: serves the workspace's tools to MCP clients through the
 * {@link McpServer} service of the MCP bundle, looked up when the command runs, so the CLI works
 * without that bundle. Over stdio, standard output carries JSON-RPC only.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = "Serve the tools to an MCP client: over stdio, or with --http PORT on 127.0.0.1 with a bearer token")
final class McpCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--http", paramLabel = "PORT",
            description = "Serve the streamable HTTP transport on 127.0.0.1:PORT (0 picks a free port) instead of stdio")
    Integer http;

    @Override
    public Integer call() {
        Bundle bundle = FrameworkUtil.getBundle(McpCommand.class);
        BundleContext context = bundle == null ? null : bundle.getBundleContext();
        ServiceReference<McpServer> reference = context == null ? null : context.getServiceReference(McpServer.class);
        McpServer server = reference == null ? null : context.getService(reference);
        if (server == null) {
            root.terminal.err().println("quiver mcp: the MCP bundle (dev.quiver.mcp) is not installed.");
            return ExitCodes.ERROR;
        }
        try {
            CommonOptions options = common.over(root.common);
            if (http != null) {
                return server.serveHttp(options.session(false), http, root.terminal.err());
            }
            return server.serveStdio(options.session(false), new FileInputStream(FileDescriptor.in), root.terminal.out(),
                    root.terminal.err());
        } finally {
            context.ungetService(reference);
        }
    }
}
