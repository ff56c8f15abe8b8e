package dev.quiver.mcp.client;

import dev.quiver.api.Tool;
import dev.quiver.api.host.SessionContext;
import dev.quiver.api.host.SessionListener;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The MCP client as a {@link SessionListener}: the servers of the {@code "mcp"} config key become
 * {@link Tool} services of this bundle, named {@code mcp__<server>__<tool>}, for as long as a
 * session uses them. They carry no tool set and the access class {@code execute} (a process) or
 * {@code network} (a URL); the kernel makes every {@code mcp__*} tool ask unless a rule allows it.
 */
@Component(service = SessionListener.class)
public class McpClientComponent implements SessionListener {

    private final Servers servers;

    @Activate
    public McpClientComponent(BundleContext context) {
        Object header = context.getBundle().getHeaders().get("Quiver-Version");
        String version = header == null ? context.getBundle().getVersion().toString() : header.toString();
        this.servers = new Servers((tool, properties) -> {
            ServiceRegistration<Tool> registration = context.registerService(Tool.class, tool, new Hashtable<>(properties));
            return () -> {
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the bundle is stopping
                }
            };
        }, version, System.getenv());
    }

    @Override
    public void opened(SessionContext session) {
        if (session.inspectOnly()) {
            return; // tools and check start no server
        }
        servers.opened(session);
    }

    @Override
    public void closed(SessionContext session) {
        servers.closed(session);
    }

    @Deactivate
    void deactivate() {
        servers.stopAll();
    }
}
