package dev.quiver.mcp.client;

import dev.quiver.api.host.SessionContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP servers the open sessions configure. A session that opens starts its servers and waits
 * for them (each up to its {@code startupTimeout}), so their tools are in the registry before the
 * session's first step; a changed config adds, restarts and removes servers to match, and restarts
 * servers that failed; a session that closes stops the servers no other session uses. Sessions
 * that configure the same server (same name, entry and workspace) share one.
 */
public final class Servers {

    private static final Logger LOG = LoggerFactory.getLogger(Servers.class);

    private final ServerHandle.Registrar registrar;
    private final String version;
    private final Map<String, String> environment;
    private final Map<String, Shared> running = new LinkedHashMap<>();
    private final Map<SessionContext, Using> sessions = new IdentityHashMap<>();
    private final Set<String> reported = new LinkedHashSet<>();

    /** A running server and the sessions that use it. */
    private static final class Shared {
        final ServerHandle handle;
        final Path workspace;
        final Set<SessionContext> users = java.util.Collections.newSetFromMap(new IdentityHashMap<>());

        Shared(ServerHandle handle, Path workspace) {
            this.handle = handle;
            this.workspace = workspace;
        }
    }

    /** What one session uses: its config watch and the servers it got. */
    private static final class Using {
        AutoCloseable watch;
        Map<String, ServerSpec> specs = Map.of();
    }

    public Servers(ServerHandle.Registrar registrar, String version, Map<String, String> environment) {
        this.registrar = registrar;
        this.version = version;
        this.environment = Map.copyOf(environment);
    }

    /** A session opened: start its servers and wait until they are up or failed. */
    public void opened(SessionContext session) {
        Using using = new Using();
        synchronized (this) {
            sessions.put(session, using);
        }
        List<ServerHandle> started = apply(session, false);
        try {
            using.watch = session.onConfigChange(() -> apply(session, true));
        } catch (RuntimeException e) {
            LOG.warn("Cannot watch the config of session {}", session.id(), e);
        }
        await(started);
    }

    /** A session closed: stop the servers nobody else uses. */
    public void closed(SessionContext session) {
        Using using;
        List<ServerHandle> stopping = new ArrayList<>();
        synchronized (this) {
            using = sessions.remove(session);
            if (using == null) {
                return;
            }
            for (String name : using.specs.keySet()) {
                release(session, name, stopping);
            }
        }
        if (using.watch != null) {
            try {
                using.watch.close();
            } catch (Exception ignored) {
                // the session is gone
            }
        }
        stopping.forEach(ServerHandle::stop);
    }

    /** Stops everything (the bundle is stopping). */
    public void stopAll() {
        List<ServerHandle> stopping = new ArrayList<>();
        synchronized (this) {
            running.values().forEach(shared -> stopping.add(shared.handle));
            running.clear();
            for (Using using : sessions.values()) {
                if (using.watch != null) {
                    try {
                        using.watch.close();
                    } catch (Exception ignored) {
                        // going anyway
                    }
                }
            }
            sessions.clear();
        }
        stopping.forEach(ServerHandle::stop);
    }

    /** The running server of a name, for tests. */
    synchronized ServerHandle handle(String name) {
        Shared shared = running.get(name);
        return shared == null ? null : shared.handle;
    }

    private List<ServerHandle> apply(SessionContext session, boolean changed) {
        List<String> problems = new ArrayList<>();
        Map<String, ServerSpec> wanted;
        try {
            wanted = ServerSpec.parse(session.config("mcp"), environment, problems);
        } catch (RuntimeException e) {
            LOG.warn("Reading the mcp config failed", e);
            return List.of();
        }
        report(problems);
        List<ServerHandle> started = new ArrayList<>();
        List<ServerHandle> stopping = new ArrayList<>();
        synchronized (this) {
            Using using = sessions.get(session);
            if (using == null) {
                return List.of(); // closed meanwhile
            }
            Map<String, ServerSpec> previous = using.specs;
            Map<String, ServerSpec> accepted = new LinkedHashMap<>();
            for (Map.Entry<String, ServerSpec> old : previous.entrySet()) {
                ServerSpec now = wanted.get(old.getKey());
                Shared shared = running.get(old.getKey());
                boolean failed = shared != null && shared.handle.state() == ServerHandle.State.FAILED;
                if (!old.getValue().equals(now) || (changed && failed)) {
                    release(session, old.getKey(), stopping);
                } else {
                    accepted.put(old.getKey(), old.getValue());
                }
            }
            for (Map.Entry<String, ServerSpec> entry : wanted.entrySet()) {
                String name = entry.getKey();
                if (accepted.containsKey(name)) {
                    continue;
                }
                Shared shared = running.get(name);
                if (shared != null && shared.handle.state() == ServerHandle.State.FAILED && shared.users.isEmpty()) {
                    running.remove(name);
                    stopping.add(shared.handle);
                    shared = null;
                }
                if (shared == null) {
                    // a server inherits the session's scrubbed environment; ${NAME} in its entry may still name any
                    ServerHandle handle = new ServerHandle(entry.getValue(), session.workspace(), session.environment(),
                            registrar,
                            version);
                    shared = new Shared(handle, session.workspace());
                    running.put(name, shared);
                    started.add(handle);
                } else if (!shared.handle.spec().equals(entry.getValue())
                        || !Objects.equals(shared.workspace, session.workspace())) {
                    report(List.of("mcp server \"" + name + "\" already runs for another session with another entry or "
                            + "workspace; this session does not get it. Give it another name."));
                    continue;
                }
                shared.users.add(session);
                accepted.put(name, entry.getValue());
            }
            using.specs = Map.copyOf(accepted);
        }
        stopping.forEach(ServerHandle::stop);
        started.forEach(ServerHandle::start);
        if (changed) {
            await(started);
        }
        return started;
    }

    /** Drops one session's use of a server; collects the server to stop when nobody uses it. */
    private void release(SessionContext session, String name, List<ServerHandle> stopping) {
        Shared shared = running.get(name);
        if (shared == null) {
            return;
        }
        shared.users.remove(session);
        if (shared.users.isEmpty()) {
            running.remove(name);
            stopping.add(shared.handle);
        }
    }

    private static void await(List<ServerHandle> started) {
        for (ServerHandle handle : started) {
            try {
                handle.ready().get(handle.spec().startupTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.debug("MCP server {} is not ready yet", handle.spec().name(), e);
            }
        }
    }

    private void report(List<String> problems) {
        for (String problem : problems) {
            boolean fresh;
            synchronized (reported) {
                fresh = reported.add(problem);
            }
            if (fresh) {
                LOG.warn(problem);
                System.err.println("quiver: " + problem);
            }
        }
    }
}
