package dev.quiver.kernel;

import dev.quiver.api.Guard;
import dev.quiver.api.Workspace;
import dev.quiver.api.WorkspaceFactory;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.langchain4j.ModelProvider;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** The {@link Kernel} service: opens sessions over the live registry, the guards and the model providers. */
@Component(service = Kernel.class)
public class KernelComponent implements Kernel {

    private final ToolRegistry registry;
    private final WorkspaceFactory workspaces;
    /** Guards in service ranking order, highest first; keyed by ranking then id so the order is stable. */
    private final ConcurrentSkipListMap<Long[], Guard> guards = new ConcurrentSkipListMap<>(
            (a, b) -> a[0].equals(b[0]) ? Long.compare(a[1], b[1]) : Long.compare(b[0], a[0]));
    private final Map<String, ModelProvider> providers = new java.util.concurrent.ConcurrentHashMap<>();

    @Activate
    public KernelComponent(@Reference ToolRegistry registry, @Reference WorkspaceFactory workspaces) {
        this.registry = registry;
        this.workspaces = workspaces;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addGuard(Guard guard, Map<String, Object> properties) {
        guards.put(key(properties), guard);
    }

    void removeGuard(Guard guard, Map<String, Object> properties) {
        guards.remove(key(properties));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addModelProvider(ModelProvider provider, Map<String, Object> properties) {
        Object name = properties.get(ModelProvider.PROVIDER);
        if (name instanceof String s) {
            providers.put(s, provider);
        }
    }

    void removeModelProvider(ModelProvider provider, Map<String, Object> properties) {
        providers.values().remove(provider);
    }

    private static Long[] key(Map<String, Object> properties) {
        Object ranking = properties.get(Constants.SERVICE_RANKING);
        long rank = ranking instanceof Integer i ? i : 0;
        return new Long[] {rank, (Long) properties.get(Constants.SERVICE_ID)};
    }

    @Override
    public Session open(SessionOptions options) {
        Workspace workspace;
        try {
            workspace = workspaces.open(options.workspace());
        } catch (IOException e) {
            throw new HostException("Cannot open workspace " + options.workspace() + ": " + e.getMessage(), e);
        }
        Config config = Config.load(options.config(), workspace.root(), System.getenv());
        return new KernelSession(workspace, options, config, registry, name -> Optional.ofNullable(providers.get(name)),
                () -> List.copyOf(guards.values()));
    }
}
