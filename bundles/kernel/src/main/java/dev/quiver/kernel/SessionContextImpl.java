package dev.quiver.kernel;

import dev.quiver.api.host.SessionContext;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SessionContext} given to session listeners. Config changes are noticed by polling the
 * files' times once a second, started only when a listener asks to hear about them.
 */
final class SessionContextImpl implements SessionContext {

    private static final Logger LOG = LoggerFactory.getLogger(SessionContextImpl.class);
    private static final long POLL_MILLIS = 1000;

    private final Supplier<String> id;
    private final Path workspace;
    private final Config config;
    private final java.util.Map<String, String> environment;
    private final boolean inspectOnly;
    private final Set<Runnable> listeners = new CopyOnWriteArraySet<>();
    private ScheduledExecutorService poller;
    private long notified;

    SessionContextImpl(Supplier<String> id, Path workspace, Config config, java.util.Map<String, String> environment,
            boolean inspectOnly) {
        this.environment = environment;
        this.inspectOnly = inspectOnly;
        this.id = id;
        this.workspace = workspace;
        this.config = config;
    }

    @Override
    public String id() {
        return id.get();
    }

    @Override
    public java.util.Map<String, String> environment() {
        return environment;
    }

    @Override
    public boolean inspectOnly() {
        return inspectOnly;
    }

    @Override
    public Path workspace() {
        return workspace;
    }

    @Override
    public Optional<Object> config(String key) {
        config.reloadIfChanged();
        return config.plain(key);
    }

    @Override
    public synchronized AutoCloseable onConfigChange(Runnable listener) {
        listeners.add(listener);
        if (poller == null) {
            poller = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "quiver-config-watch");
                thread.setDaemon(true);
                return thread;
            });
            notified = config.generation();
            poller.scheduleWithFixedDelay(this::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        }
        return () -> listeners.remove(listener);
    }

    private void poll() {
        config.reloadIfChanged();
        // a reader of config() may have reloaded first; the generation tells either way
        long now = config.generation();
        if (now == notified) {
            return;
        }
        notified = now;
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("A config change listener failed", e);
            }
        }
    }

    synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
        listeners.clear();
    }
}
