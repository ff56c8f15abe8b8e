package dev.quiver.kernel;

import dev.quiver.api.Guard;
import dev.quiver.api.Workspace;
import dev.quiver.api.WorkspaceFactory;
import dev.quiver.api.host.Checkpoint;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.SessionListener;
import dev.quiver.api.host.SessionSummary;
import dev.quiver.api.host.TrustPolicy;
import dev.quiver.api.host.TrustedWorkspace;
import dev.quiver.api.host.UndoReport;
import dev.quiver.api.host.WorkspaceTrust;
import dev.quiver.kernel.checkpoint.Checkpoints;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.langchain4j.ModelProvider;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.Constants;
import org.osgi.service.component.ComponentServiceObjects;
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
    /**
     * Model providers by name, not yet obtained: a provider's component (and LangChain4j with it) is
     * activated only when a session first asks for its model, never by tools, call, check or mcp.
     */
    private final Map<String, LazyProvider> providers = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Set<SessionListener> listeners = new java.util.concurrent.CopyOnWriteArraySet<>();
    private final java.util.Set<KernelSession> open = new java.util.concurrent.CopyOnWriteArraySet<>();
    private volatile TrustPolicy trust;
    /** The managed policy's files, highest first: the machine's, then the installation's. */
    private final List<java.nio.file.Path> managed;
    private final TrustStore trustStore = TrustStore.fromEnvironment(System.getenv());
    private final org.osgi.framework.BundleContext context;
    /** The service property of the search's idle warm-up services ({@code tools-core}'s {@code SearchWarmup}). */
    static final String WARMUP_PROPERTY = "quiver.warmup";

    @Activate
    public KernelComponent(@Reference ToolRegistry registry, @Reference WorkspaceFactory workspaces,
            org.osgi.framework.BundleContext context) {
        this.registry = registry;
        this.workspaces = workspaces;
        this.context = context;
        List<java.nio.file.Path> files = new java.util.ArrayList<>();
        files.add(java.nio.file.Path.of("/etc/quiver/managed.json"));
        String home = context.getProperty("quiver.home");
        if (home != null && !home.isBlank()) {
            files.add(java.nio.file.Path.of(home, "conf", "managed.json"));
        }
        this.managed = List.copyOf(files);
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
            policyOption = ReferencePolicyOption.GREEDY, service = ModelProvider.class)
    void addModelProvider(ComponentServiceObjects<ModelProvider> provider, Map<String, Object> properties) {
        Object name = properties.get(ModelProvider.PROVIDER);
        if (name instanceof String s) {
            providers.put(s, new LazyProvider(provider));
        }
    }

    void removeModelProvider(ComponentServiceObjects<ModelProvider> provider, Map<String, Object> properties) {
        providers.values().removeIf(lazy -> lazy.objects == provider);
    }

    /** A provider obtained on first use, once. */
    private static final class LazyProvider {
        final ComponentServiceObjects<ModelProvider> objects;
        private volatile ModelProvider provider;

        LazyProvider(ComponentServiceObjects<ModelProvider> objects) {
            this.objects = objects;
        }

        synchronized ModelProvider get() {
            if (provider == null) {
                provider = objects.getService();
            }
            return provider;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setTrustPolicy(TrustPolicy policy) {
        trust = policy;
    }

    void unsetTrustPolicy(TrustPolicy policy) {
        if (trust == policy) {
            trust = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addSessionListener(SessionListener listener) {
        listeners.add(listener);
        for (KernelSession session : open) {
            notify(() -> listener.opened(session.context()));
        }
    }

    void removeSessionListener(SessionListener listener) {
        listeners.remove(listener);
    }

    private static void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException | LinkageError e) {
            org.slf4j.LoggerFactory.getLogger(KernelComponent.class).warn("A session listener failed", e);
        }
    }

    /** Whether the trust policy trusts the bundle of a tool; without a policy, nothing is trusted. */
    private boolean trusted(RegisteredTool tool) {
        TrustPolicy policy = trust;
        if (policy == null) {
            return false;
        }
        try {
            return policy.trusted(tool.bundle(), tool.bundleVersion());
        } catch (RuntimeException e) {
            return false; // a failing policy trusts nothing
        }
    }

    private static Long[] key(Map<String, Object> properties) {
        Object ranking = properties.get(Constants.SERVICE_RANKING);
        long rank = ranking instanceof Integer i ? i : 0;
        return new Long[] {rank, (Long) properties.get(Constants.SERVICE_ID)};
    }

    @Override
    public Session open(SessionOptions options) {
        Workspace workspace = openWithRecovery(options.workspace());
        Config config = Config.load(files(workspace.root(), options.config(), options.mcpConfig(),
                options.trustWorkspace()));
        KernelSession[] self = new KernelSession[1];
        KernelSession session = new KernelSession(workspace, options, config, registry,
                name -> Optional.ofNullable(providers.get(name)).map(LazyProvider::get), () -> List.copyOf(guards.values()),
                SessionStore.fromEnvironment(System.getenv()), this::trusted, () -> closed(self[0]))
                .withWorkspaces(workspaces).withSearchWarmup(this::searchWarmups);
        self[0] = session;
        open.add(session);
        for (SessionListener listener : listeners) {
            notify(() -> listener.opened(session.context()));
        }
        return session;
    }

    /**
     * Runs every search warm-up service ({@code BiConsumer<Workspace, BooleanSupplier>} with the property
     * {@value #WARMUP_PROPERTY}, a JDK type so that no API type is needed) on the idle warm-up's thread,
     * each got only now and let go after: a start that never warms up never activates them. Each runs in
     * its own try: one that fails or throws (an error included) is logged at debug and the next still runs.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    void searchWarmups(Workspace workspace, java.util.function.BooleanSupplier stop) {
        java.util.Collection<org.osgi.framework.ServiceReference<java.util.function.BiConsumer>> references;
        try {
            references = context.getServiceReferences(java.util.function.BiConsumer.class, "(" + WARMUP_PROPERTY + "=*)");
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        for (org.osgi.framework.ServiceReference<java.util.function.BiConsumer> reference : references) {
            if (stop.getAsBoolean()) {
                return;
            }
            java.util.function.BiConsumer warmup = context.getService(reference);
            if (warmup == null) {
                continue;
            }
            try {
                warmup.accept(workspace, stop);
            } catch (Throwable e) {
                // a plugin's failure, an AssertionError included, stops neither the others nor reaches a stream
                org.slf4j.LoggerFactory.getLogger(KernelComponent.class).debug("The idle warm-up service {} failed",
                        warmup.getClass().getName(), e);
            } finally {
                context.ungetService(reference);
            }
        }
    }

    private Config.Files files(java.nio.file.Path root, Optional<java.nio.file.Path> explicit,
            List<java.nio.file.Path> mcpConfigs, boolean trustForThisRun) {
        return new Config.Files(managed, explicit, mcpConfigs, Config.userConfigFile(System.getenv()), root,
                trustForThisRun ? (any, digest) -> true : trustStore);
    }

    private java.nio.file.Path realRoot(java.nio.file.Path workspace) {
        try {
            return workspace.toAbsolutePath().toRealPath();
        } catch (IOException e) {
            throw new HostException("Cannot open workspace " + workspace + ": " + e.getMessage(), e);
        }
    }

    @Override
    public WorkspaceTrust workspaceTrust(java.nio.file.Path workspace) {
        java.nio.file.Path root = realRoot(workspace);
        Config config = Config.load(files(root, Optional.empty(), List.of(), false));
        return new WorkspaceTrust(root, config.trusted(), config.held());
    }

    @Override
    public java.nio.file.Path trust(java.nio.file.Path workspace) {
        java.nio.file.Path root = realRoot(workspace);
        trustStore.trust(root);
        return root;
    }

    @Override
    public boolean revokeTrust(java.nio.file.Path workspace) {
        java.nio.file.Path root;
        try {
            root = workspace.toAbsolutePath().toRealPath();
        } catch (IOException gone) {
            root = workspace.toAbsolutePath().normalize(); // a folder since removed can still be forgotten
        }
        return trustStore.revoke(root);
    }

    @Override
    public List<TrustedWorkspace> trustedWorkspaces() {
        return trustStore.list();
    }

    private void closed(KernelSession session) {
        if (session != null && open.remove(session)) {
            for (SessionListener listener : listeners) {
                notify(() -> listener.closed(session.context()));
            }
        }
    }

    @Override
    public List<Checkpoint> checkpoints(java.nio.file.Path workspace) {
        return checkpointsOf(workspace).list();
    }

    @Override
    public UndoReport undo(java.nio.file.Path workspace, int turns, boolean force) {
        Workspace opened = openWithRecovery(workspace);
        UndoReport report;
        try {
            report = checkpointsOf(opened).undoNewest(turns, force, "quiver-undo");
        } catch (HostException e) {
            if (opened.recovered().isEmpty()) {
                throw e;
            }
            // the recovery happened whatever undo found: nothing to undo must not hide that it did
            throw new HostException(String.join(" ", opened.recovered()) + " " + e.getMessage(), e);
        }
        if (opened.recovered().isEmpty()) {
            return report;
        }
        // what was finished or rolled back before undo looked is said first
        List<String> notes = new java.util.ArrayList<>(opened.recovered());
        notes.addAll(report.notes());
        return new UndoReport(report.turns(), report.changes(), notes, report.applied(), report.rewound());
    }

    /**
     * Opens a workspace with its state folder, which finishes or rolls back a change of several files
     * a killed process left half done (said by {@link Workspace#recovered()}) before anything else runs.
     */
    private Workspace openWithRecovery(java.nio.file.Path root) {
        try {
            java.nio.file.Path real = realRoot(root);
            return workspaces.open(real, SessionStore.fromEnvironment(System.getenv()).stateFolder(real));
        } catch (IOException e) {
            throw new HostException("Cannot open workspace " + root + ": " + e.getMessage(), e);
        }
    }

    /** A workspace's checkpoints, without a session: no configuration is read, nothing is started. */
    private Checkpoints checkpointsOf(java.nio.file.Path root) {
        Workspace workspace;
        try {
            workspace = workspaces.open(root);
        } catch (IOException e) {
            throw new HostException("Cannot open workspace " + root + ": " + e.getMessage(), e);
        }
        return checkpointsOf(workspace);
    }

    private static Checkpoints checkpointsOf(Workspace workspace) {
        java.nio.file.Path state = SessionStore.fromEnvironment(System.getenv()).stateFolder(workspace.root());
        return new Checkpoints(workspace, state, Runnable::run);
    }

    @Override
    public List<SessionSummary> sessions(java.nio.file.Path workspace) {
        return SessionStore.fromEnvironment(System.getenv()).list(realRoot(workspace));
    }
}
