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
    private volatile List<RegisteredTool> snapshot = List.of();
    private final java.util.Set<Runnable> listeners = new java.util.concurrent.CopyOnWriteArraySet<>();

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

    /** The tools registered now, one per name, sorted by name. */
    List<RegisteredTool> snapshot() {
        return snapshot;
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
        snapshot = List.copyOf(sorted);
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
