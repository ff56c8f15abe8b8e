package dev.quiver.kernel;

import dev.quiver.api.Access;
import dev.quiver.api.Tool;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@link Tool} service registered right now. Tools come and go with their bundles; each step
 * of the agent loop takes a {@link #snapshot()} and offers exactly those tools.
 */
@Component(service = ToolRegistry.class)
public class ToolRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(ToolRegistry.class);

    private final BundleContext context;
    private final Map<ServiceReference<Tool>, RegisteredTool> tools = new ConcurrentHashMap<>();
    /** The tools and the unloaded names as one state, replaced together on every change. */
    private volatile State state = new State(List.of(), java.util.Set.of());
    private final java.util.Set<Runnable> listeners = new java.util.concurrent.CopyOnWriteArraySet<>();
    /** How many names of tools that were registered and are gone the registry remembers. */
    static final int REMEMBERED_UNLOADED = 256;
    /** Names that were offered and are gone now, oldest first; guarded by {@code this}. */
    private final Map<String, Boolean> unloaded = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED_UNLOADED;
        }
    };

    @Activate
    public ToolRegistry(BundleContext context) {
        this.context = context;
    }

    @Reference(service = Tool.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void addTool(ServiceReference<Tool> reference) {
        Object name = reference.getProperty(Tool.NAME);
        if (!(name instanceof String s) || !s.matches("[a-z][a-z0-9_]{0,63}")) {
            LOG.warn("Ignoring a Tool service of bundle {} without a valid {} property: {}",
                    bundleName(reference), Tool.NAME, name);
            return;
        }
        Object access = reference.getProperty(Tool.ACCESS);
        Access parsed = Access.parse(access).orElseGet(() -> {
            // an unknown access class must not widen access: treat it as the strictest that asks
            LOG.warn("Tool {} of bundle {} has no valid {} ({}); treating it as execute", s, bundleName(reference),
                    Tool.ACCESS, access);
            return Access.EXECUTE;
        });
        Object set = reference.getProperty(Tool.SET);
        boolean autoApprove = Boolean.parseBoolean(String.valueOf(reference.getProperty(Tool.AUTO_APPROVE)));
        tools.put(reference, new RegisteredTool(reference, s,
                set instanceof String v && !v.isBlank() ? Optional.of(v) : Optional.empty(),
                parsed, autoApprove, bundleName(reference), this::getService));
        rebuild();
    }

    void removeTool(ServiceReference<Tool> reference) {
        RegisteredTool removed = tools.remove(reference);
        if (removed != null) {
            removed.release();
            try {
                context.ungetService(reference);
            } catch (IllegalStateException | IllegalArgumentException stale) {
                // the kernel itself is stopping, or the service is already gone
            }
        }
        rebuild();
    }

    void updatedTool(ServiceReference<Tool> reference) {
        removeTool(reference);
        addTool(reference);
    }

    /** Calls the listener after every change of the registry; close the handle to stop. */
    AutoCloseable onChange(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * The tools registered at one moment and the names unloaded by then, taken together so a call
     * that finds no tool in the one can tell from the other whether it was unloaded.
     */
    record State(List<RegisteredTool> tools, java.util.Set<String> unloaded) {

        /** Whether the name is unloaded in this state, or listed but its bundle is going. */
        boolean wasUnloaded(String name) {
            for (RegisteredTool tool : tools) {
                if (tool.name().equals(name)) {
                    var bundle = tool.reference().getBundle();
                    return bundle == null || (bundle.getState() & (org.osgi.framework.Bundle.ACTIVE
                            | org.osgi.framework.Bundle.STARTING)) == 0;
                }
            }
            return unloaded.contains(name);
        }
    }

    State state() {
        return state;
    }

    /** The tools registered now, one per name, sorted by name. */
    List<RegisteredTool> snapshot() {
        return state.tools();
    }

    /**
     * Whether a tool of this name was registered and is gone now (its bundle stopped, was updated
     * or removed); the last {@value #REMEMBERED_UNLOADED} such names are remembered. A name that
     * is registered again is no longer unloaded. A tool still listed whose bundle is going (its
     * service unregistered but the removal not yet delivered, or its bundle stopping) counts as
     * unloaded too; one of an active bundle that fails to start is not.
     */
    boolean wasUnloaded(String name) {
        return state.wasUnloaded(name);
    }

    private Tool getService(ServiceReference<Tool> reference) {
        try {
            return context.getService(reference);
        } catch (IllegalStateException | IllegalArgumentException stale) {
            return null;
        }
    }

    private synchronized void rebuild() {
        // a name registered twice goes to the higher-ranked service (OSGi's ordering of references)
        Map<String, RegisteredTool> byName = new LinkedHashMap<>();
        List<RegisteredTool> all = new ArrayList<>(tools.values());
        all.sort(Comparator.comparing(RegisteredTool::reference, Comparator.reverseOrder()));
        for (RegisteredTool tool : all) {
            RegisteredTool previous = byName.putIfAbsent(tool.name(), tool);
            if (previous != null) {
                LOG.warn("Tool name {} is registered by {} and {}; offering the one of {}", tool.name(),
                        previous.bundle(), tool.bundle(), previous.bundle());
            }
        }
        List<RegisteredTool> sorted = new ArrayList<>(byName.values());
        sorted.sort(Comparator.comparing(RegisteredTool::name));
        for (RegisteredTool previous : state.tools()) {
            if (!byName.containsKey(previous.name())) {
                unloaded.remove(previous.name()); // re-inserted last: the most recent is kept longest
                unloaded.put(previous.name(), Boolean.TRUE);
            }
        }
        byName.keySet().forEach(unloaded::remove);
        state = new State(List.copyOf(sorted), java.util.Set.copyOf(unloaded.keySet()));
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("A registry listener failed", e);
            }
        }
    }

    private static String bundleName(ServiceReference<?> reference) {
        var bundle = reference.getBundle();
        return bundle == null ? "(gone)" : bundle.getSymbolicName();
    }
}
