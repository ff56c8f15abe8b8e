package dev.quiver.catalog;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.SessionContext;
import dev.quiver.api.host.SessionListener;
import dev.quiver.api.host.TrustPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.resolver.Resolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin platform: the configured catalogues, the trust policy over them, their enforcement on
 * everything that resolves, and the {@link Platform} service.
 *
 * <p>Enforcement is a pair of framework hooks ({@link Enforcement}): a bundle whose content is in no
 * catalogue cannot resolve and none of its classes can load, whoever installed it (FileInstall from
 * {@code deploy/}, a shell command, another bundle). The bundle stays installed and is listed with
 * why it does not run; FileInstall, which would reinstall an uninstalled bundle on its next scan, has
 * nothing to fight. With {@code quiver.catalog.enforce=true} the hooks are registered when this
 * immediate component activates, which the launcher does before FileInstall starts.
 */
@Component(service = {Platform.class, TrustPolicy.class, SessionListener.class}, immediate = true)
public class CatalogPlatform implements Platform, TrustPolicy, SessionListener {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogPlatform.class);
    private static final long ADMIN_TIMEOUT_MINUTES = 10;

    private final BundleContext context;
    private final Settings settings;
    private final Catalogs catalogs = new Catalogs();
    private final ContentHashes hashes = new ContentHashes();
    private final Admin admin;
    private final Deque sessions = new Deque();
    private final Enforcement enforcement;
    private volatile Policy installation;
    private volatile ServiceComponentRuntime runtime;
    private volatile Resolver resolver;
    private volatile boolean enforcedLast;

    /** The open sessions, newest first, and the policy their config gives. */
    private static final class Deque {
        private final ConcurrentLinkedDeque<SessionContext> open = new ConcurrentLinkedDeque<>();
        private final Map<SessionContext, AutoCloseable> watches = new ConcurrentHashMap<>();
        private volatile Object lastValue;
        private volatile SessionContext lastContext;
        private volatile Policy lastPolicy = Policy.NONE;

        Policy policy() {
            SessionContext current = open.peekFirst();
            if (current == null) {
                return Policy.NONE;
            }
            Object value;
            try {
                value = current.config("catalogs").orElse(null);
            } catch (RuntimeException e) {
                return Policy.NONE;
            }
            if (current == lastContext && java.util.Objects.equals(value, lastValue)) {
                return lastPolicy;
            }
            Policy parsed = Policy.parse(value, current.workspace(), "the session's config");
            lastContext = current;
            lastValue = value;
            lastPolicy = parsed;
            return parsed;
        }
    }

    @Activate
    public CatalogPlatform(BundleContext context) {
        this.context = context;
        this.settings = Settings.from(context);
        this.admin = new Admin(context, hashes, settings);
        this.enforcedLast = settings.enforce();
        this.enforcement = new Enforcement(context, bundle -> allowed(bundle, snapshot()),
                bundle -> hashes.of(bundle).orElse("unknown"));
        enforcement.enforce(settings.enforce());
    }

    @Deactivate
    void deactivate() {
        enforcement.close();
        admin.close();
        for (AutoCloseable watch : sessions.watches.values()) {
            closeQuietly(watch);
        }
        sessions.watches.clear();
        sessions.open.clear();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void setRuntime(ServiceComponentRuntime scr) {
        runtime = scr;
    }

    void unsetRuntime(ServiceComponentRuntime scr) {
        if (runtime == scr) {
            runtime = null;
        }
    }

    /** The framework's resolver (the system bundle registers Felix's), for the requirements of installs. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void setResolver(Resolver framework) {
        resolver = framework;
    }

    void unsetResolver(Resolver framework) {
        if (resolver == framework) {
            resolver = null;
        }
    }

    // ---- policy -------------------------------------------------------------------------------

    /** The installation's catalogues, read once ({@code quiver.catalogs}). */
    private Policy installation() {
        Policy current = installation;
        if (current == null) {
            current = readInstallation();
            installation = current;
            for (String warning : current.warnings()) {
                LOG.warn("{}", warning);
            }
        }
        return current;
    }

    private Policy readInstallation() {
        if (settings.installationCatalogs().isEmpty()) {
            return new Policy(List.of(), settings.enforce(), List.of());
        }
        Path file = settings.installationCatalogs().get();
        if (!Files.exists(file)) {
            return new Policy(List.of(), settings.enforce(), List.of("The installation's catalogue list " + file
                    + " does not exist; no catalogue of the installation applies."));
        }
        Object value;
        try {
            // comments and trailing commas as in every config file Quiver reads
            value = com.fasterxml.jackson.databind.json.JsonMapper.builder()
                    .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_JAVA_COMMENTS,
                            com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_TRAILING_COMMA)
                    .build().readValue(file.toFile(), Object.class);
        } catch (IOException e) {
            return new Policy(List.of(), settings.enforce(), List.of("The installation's catalogue list " + file
                    + " is not valid JSON (" + e.getMessage() + "); no catalogue of the installation applies."));
        }
        Policy parsed = Policy.parse(value, file.getParent(), file.toString());
        List<String> warnings = new ArrayList<>(parsed.warnings());
        if (parsed.enforce() && !settings.enforce()) {
            warnings.add("\"enforce\" in " + file + " is ignored: the installation enforces its catalogues with "
                    + Settings.ENFORCE + "=true in conf/config.properties, which holds from the first instant.");
        }
        return new Policy(parsed.sources(), settings.enforce(), warnings);
    }

    Policy policy() {
        return Policy.combine(installation(), sessions.policy(), "the session's config");
    }

    Catalogs.Snapshot snapshot() {
        return catalogs.load(policy());
    }

    /**
     * The session's catalogues that an enforcing installation ignores, loaded only to say so when one
     * of them would have provided what an install needs.
     */
    private List<Catalogs.Loaded> ignoredCatalogues() {
        Policy installation = installation();
        if (!installation.enforce()) {
            return List.of();
        }
        Set<java.net.URI> used = new java.util.HashSet<>();
        installation.sources().forEach(source -> used.add(source.uri()));
        List<Source> dropped = sessions.policy().sources().stream().filter(s -> !used.contains(s.uri())).toList();
        return dropped.isEmpty() ? List.of() : catalogs.load(new Policy(dropped, false, List.of())).loaded();
    }

    @Override
    public boolean enforcing() {
        return settings.enforce() || sessions.policy().enforce();
    }

    // ---- sessions -----------------------------------------------------------------------------

    @Override
    public void opened(SessionContext session) {
        sessions.open.addFirst(session);
        try {
            if (session.config("catalogs").isPresent()) {
                sessions.watches.put(session, session.onConfigChange(this::policyMayHaveChanged));
            }
        } catch (Exception e) {
            LOG.warn("Cannot watch the config of session {}", session.id(), e);
        }
        policyMayHaveChanged();
    }

    @Override
    public void closed(SessionContext session) {
        sessions.open.remove(session);
        closeQuietly(sessions.watches.remove(session));
        enforcedLast = enforcing();
        enforcement.enforce(enforcedLast);
    }

    /**
     * When enforcement has just begun (a session's config turned it on), bundles already running
     * that no catalogue lists are refreshed: the hook then keeps them from resolving again. Done on the
     * admin thread without waiting: a session listener may be called from inside a service binding.
     */
    private void policyMayHaveChanged() {
        boolean now = enforcing();
        boolean before = enforcedLast;
        enforcedLast = now;
        enforcement.enforce(now);
        if (now && !before) {
            admin.async(this::sweep);
        }
    }

    private void sweep() {
        Catalogs.Snapshot snapshot = snapshot();
        List<Bundle> outside = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            String origin = origin(bundle);
            boolean running = (bundle.getState() & (Bundle.RESOLVED | Bundle.STARTING | Bundle.ACTIVE)) != 0;
            if (running && (ORIGIN_DEPLOY.equals(origin) || ORIGIN_CATALOG.equals(origin)) && !allowed(bundle, snapshot)) {
                outside.add(bundle);
            }
        }
        if (!outside.isEmpty()) {
            LOG.warn("Catalogue enforcement began; stopping bundles outside the catalogues: {}",
                    outside.stream().map(Bundle::getSymbolicName).toList());
            for (Bundle bundle : outside) {
                enforcement.refuse(bundle);
            }
            admin.refresh(outside);
        }
    }

    // ---- enforcement --------------------------------------------------------------------------

    /** Whether a bundle may resolve under enforcement: the framework, the installation, or catalogued content. */
    boolean allowed(Bundle bundle, Catalogs.Snapshot snapshot) {
        if (bundle.getBundleId() == 0) {
            return true;
        }
        Optional<Path> file = ContentHashes.file(bundle.getLocation());
        if (file.isPresent() && settings.exempt().stream().anyMatch(folder -> file.get().startsWith(folder))) {
            return true;
        }
        return snapshot.find(hashes.of(bundle).orElse(null)).isPresent();
    }

    // ---- trust --------------------------------------------------------------------------------

    @Override
    public boolean trusted(String symbolicName, String version) {
        Catalogs.Snapshot snapshot = snapshot();
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName()) && version.equals(bundle.getVersion().toString())
                    && trusted(bundle, snapshot)) {
                return true;
            }
        }
        return false;
    }

    private boolean trusted(Bundle bundle, Catalogs.Snapshot snapshot) {
        return snapshot.find(hashes.of(bundle).orElse(null))
                .filter(found -> found.getValue().name().equals(bundle.getSymbolicName()))
                .filter(found -> found.getKey().source().trusts(bundle.getSymbolicName()))
                .isPresent();
    }

    // ---- listing ------------------------------------------------------------------------------

    String origin(Bundle bundle) {
        if (bundle.getBundleId() == 0) {
            return ORIGIN_OTHER;
        }
        if (admin.installedHere(bundle)) {
            return ORIGIN_CATALOG;
        }
        Optional<Path> file = ContentHashes.file(bundle.getLocation());
        if (file.isEmpty()) {
            return ORIGIN_OTHER;
        }
        if (Settings.under(file.get(), settings.plugins())) {
            return ORIGIN_CATALOG;
        }
        if (Settings.under(file.get(), settings.deploy())) {
            return ORIGIN_DEPLOY;
        }
        if (settings.home().isPresent() && settings.exempt().stream().anyMatch(folder -> file.get().startsWith(folder))) {
            return ORIGIN_DISTRIBUTION;
        }
        return ORIGIN_OTHER;
    }

    @Override
    public List<BundleInfo> bundles() {
        Catalogs.Snapshot snapshot = snapshot();
        List<BundleInfo> infos = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getBundleId() != 0) {
                infos.add(info(bundle, snapshot));
            }
        }
        return infos;
    }

    BundleInfo info(Bundle bundle, Catalogs.Snapshot snapshot) {
        Optional<String> sha = hashes.of(bundle);
        Optional<Map.Entry<Catalogs.Loaded, Index.Resource>> found = snapshot.find(sha.orElse(null));
        String name = bundle.getSymbolicName() == null ? bundle.getLocation() : bundle.getSymbolicName();
        return new BundleInfo(bundle.getBundleId(), name, bundle.getVersion().toString(), state(bundle), origin(bundle),
                found.map(f -> f.getKey().name()), trusted(bundle, snapshot), tools(bundle), problem(bundle, sha));
    }

    static String state(Bundle bundle) {
        return switch (bundle.getState()) {
            case Bundle.INSTALLED -> "installed";
            case Bundle.RESOLVED -> "resolved";
            case Bundle.STARTING -> "starting";
            case Bundle.ACTIVE -> "active";
            case Bundle.STOPPING -> "stopping";
            default -> "uninstalled";
        };
    }

    static List<String> tools(Bundle bundle) {
        org.osgi.framework.ServiceReference<?>[] references;
        try {
            references = bundle.getRegisteredServices();
        } catch (IllegalStateException uninstalled) {
            return List.of();
        }
        if (references == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (org.osgi.framework.ServiceReference<?> reference : references) {
            Object classes = reference.getProperty(org.osgi.framework.Constants.OBJECTCLASS);
            if (classes instanceof String[] list && List.of(list).contains(Index.TOOL)
                    && reference.getProperty("quiver.tool.name") instanceof String tool) {
                names.add(tool);
            }
        }
        names.sort(null);
        return names;
    }

    private Optional<String> problem(Bundle bundle, Optional<String> sha) {
        if (bundle.getState() == Bundle.INSTALLED) {
            Enforcement.Refusal refusal = enforcement.refusal(bundle);
            if (refusal != null && enforcing()) {
                return Optional.of("refused: its content (SHA-256 " + abbreviate(refusal.sha256())
                        + ") is in no catalogue and the catalogues are enforced");
            }
            boolean fragment = bundle.getHeaders("").get(org.osgi.framework.Constants.FRAGMENT_HOST) != null;
            List<String> missing = BundleProblems.missingPackages(context, bundle);
            if (!missing.isEmpty()) {
                return Optional.of("does not resolve: it imports " + String.join(", ", missing)
                        + ", which no installed bundle exports");
            }
            return Optional.of(fragment ? "not attached to its host" : "not resolved (see the log)");
        }
        List<String> failed = BundleProblems.failedComponents(Optional.ofNullable(runtime), bundle);
        return failed.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", failed));
    }

    static String abbreviate(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) + "…" : sha;
    }

    @Override
    public List<CatalogInfo> catalogs() {
        List<CatalogInfo> infos = new ArrayList<>();
        for (Catalogs.Loaded loaded : snapshot().loaded()) {
            infos.add(new CatalogInfo(loaded.name(), loaded.source().location(), loaded.source().publicKey().isPresent(),
                    loaded.source().trusted(), loaded.resources().size(), loaded.problem()));
        }
        return infos;
    }

    @Override
    public List<EntryInfo> entries() {
        Catalogs.Snapshot snapshot = snapshot();
        List<EntryInfo> entries = new ArrayList<>();
        for (Catalogs.Loaded loaded : snapshot.loaded()) {
            for (Index.Resource resource : loaded.resources()) {
                entries.add(new EntryInfo(loaded.name(), resource.name(), resource.version(), resource.sha256(),
                        resource.size(), Catalogs.display(resource.url()), resource.providesTools(),
                        installed(resource.name()).map(b -> b.getVersion().toString())));
            }
        }
        entries.sort(Comparator.comparing(EntryInfo::name).thenComparing(
                (a, b) -> Versions.compare(b.version(), a.version())));
        return entries;
    }

    Optional<Bundle> installed(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName()) && bundle.getState() != Bundle.UNINSTALLED) {
                return Optional.of(bundle);
            }
        }
        return Optional.empty();
    }

    // ---- changes ------------------------------------------------------------------------------

    @Override
    public BundleInfo install(String name) {
        return admin.run(() -> {
            Catalogs.Snapshot snapshot = snapshot();
            Choice choice = choose(snapshot, name);
            Optional<Bundle> existing = installed(choice.resource().name());
            if (existing.isPresent()) {
                Bundle bundle = existing.get();
                throw new HostException(bundle.getSymbolicName() + " " + bundle.getVersion() + " is already installed ("
                        + origin(bundle) + "). Use update to move it to " + choice.resource().version() + ".");
            }
            boolean enforced = enforcing();
            Resolution resolution = new Resolution(resolver, context, snapshot, ignoredCatalogues(),
                    "the installation enforces its own catalogues and ignores the session's",
                    bundle -> enforced && !allowed(bundle, snapshot));
            Bundle bundle = admin.install(resolution.plan(choice.loaded(), choice.resource()));
            return info(bundle, snapshot);
        });
    }

    @Override
    public BundleInfo update(String name) {
        return admin.run(() -> {
            Bundle bundle = installedNamed(name);
            String origin = origin(bundle);
            if (!ORIGIN_CATALOG.equals(origin)) {
                throw notManaged(bundle, origin, "updated");
            }
            Catalogs.Snapshot snapshot = snapshot();
            Choice choice = choose(snapshot, bundle.getSymbolicName());
            if (choice.resource().sha256().equals(hashes.of(bundle).orElse(null))) {
                return info(bundle, snapshot);
            }
            admin.update(bundle, choice.loaded(), choice.resource());
            return info(bundle, snapshot);
        });
    }

    @Override
    public void remove(String name) {
        admin.run(() -> {
            Bundle bundle = installedNamed(name);
            String origin = origin(bundle);
            if (!ORIGIN_CATALOG.equals(origin)) {
                throw notManaged(bundle, origin, "removed");
            }
            enforcement.forget(bundle);
            admin.remove(bundle);
            return null;
        });
    }

    private HostException notManaged(Bundle bundle, String origin, String verb) {
        String name = bundle.getSymbolicName();
        return switch (origin) {
            case ORIGIN_DISTRIBUTION -> new HostException(name + " is part of the distribution (bundle/) and cannot be "
                    + verb + " at run time; change the distribution instead.");
            case ORIGIN_DEPLOY -> new HostException(name + " came from the deploy folder ("
                    + ContentHashes.file(bundle.getLocation()).map(Path::toString).orElse(bundle.getLocation())
                    + "); " + (verb.equals("removed") ? "delete that file to remove it." : "replace that file to update it."));
            default -> new HostException(name + " was not installed from a catalogue (" + bundle.getLocation()
                    + "), so the platform does not manage it.");
        };
    }

    /** An installed bundle by symbolic name, or by the last segments of one. */
    private Bundle installedNamed(String name) {
        String wanted = name == null ? "" : name.strip();
        List<Bundle> matches = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            String bsn = bundle.getSymbolicName();
            if (bsn == null || bundle.getBundleId() == 0) {
                continue;
            }
            if (bsn.equals(wanted)) {
                return bundle;
            }
            if (bsn.endsWith("." + wanted)) {
                matches.add(bundle);
            }
        }
        if (matches.size() == 1) {
            return matches.get(0);
        }
        if (matches.size() > 1) {
            throw new HostException("'" + wanted + "' is ambiguous: it could be "
                    + String.join(", ", matches.stream().map(Bundle::getSymbolicName).sorted().toList()) + ".");
        }
        throw new HostException("No bundle named '" + wanted + "' is installed.");
    }

    /** A catalogue and the resource chosen from it. */
    record Choice(Catalogs.Loaded loaded, Index.Resource resource) {
    }

    /** The highest version any catalogue offers under a name (a symbolic name, or its last segments). */
    Choice choose(Catalogs.Snapshot snapshot, String name) {
        String wanted = name == null ? "" : name.strip();
        List<Choice> exact = new ArrayList<>();
        List<Choice> suffix = new ArrayList<>();
        for (Catalogs.Loaded loaded : snapshot.loaded()) {
            for (Index.Resource resource : loaded.resources()) {
                if (resource.name().equals(wanted)) {
                    exact.add(new Choice(loaded, resource));
                } else if (resource.name().endsWith("." + wanted)) {
                    suffix.add(new Choice(loaded, resource));
                }
            }
        }
        List<Choice> candidates = exact.isEmpty() ? suffix : exact;
        Set<String> names = new LinkedHashSet<>();
        candidates.forEach(c -> names.add(c.resource().name()));
        if (names.size() > 1) {
            throw new HostException("'" + wanted + "' is ambiguous: the catalogues offer " + String.join(", ", names)
                    + ". Give the full name.");
        }
        if (candidates.isEmpty()) {
            StringBuilder message = new StringBuilder("No catalogue offers '" + wanted + "'.");
            List<String> failed = snapshot.loaded().stream().filter(l -> l.problem().isPresent())
                    .map(l -> l.name() + " (" + l.problem().get() + ")").toList();
            if (!failed.isEmpty()) {
                message.append(" Not usable: ").append(String.join("; ", failed)).append('.');
            }
            if (snapshot.loaded().isEmpty()) {
                message.append(" No catalogue is configured: add one to \"catalogs\" in .quiver/config.json.");
            }
            throw new HostException(message.toString());
        }
        candidates.sort((a, b) -> Versions.compare(b.resource().version(), a.resource().version()));
        return candidates.get(0);
    }

    // ---- verify -------------------------------------------------------------------------------

    @Override
    public List<Finding> verify() {
        Policy policy = policy();
        catalogs.clear();
        Catalogs.Snapshot snapshot = catalogs.load(policy);
        List<Finding> findings = new ArrayList<>();
        for (String warning : policy.warnings()) {
            findings.add(new Finding(false, "config", warning));
        }
        if (snapshot.loaded().isEmpty()) {
            findings.add(new Finding(false, "catalogs", "No catalogue is configured."));
        }
        for (Catalogs.Loaded loaded : snapshot.loaded()) {
            if (loaded.problem().isPresent()) {
                findings.add(new Finding(false, loaded.name(), loaded.source().location() + ": " + loaded.problem().get()));
                continue;
            }
            findings.add(new Finding(true, loaded.name(), loaded.source().location() + ": " + loaded.resources().size()
                    + " bundles, " + loaded.keyFingerprint().map(k -> "signature verified (key " + k + ")")
                            .orElse("not signed (no public key configured)")));
            for (Index.Resource resource : loaded.resources()) {
                findings.add(Admin.check(loaded, resource));
            }
        }
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getBundleId() == 0) {
                continue;
            }
            BundleInfo info = info(bundle, snapshot);
            String subject = info.name() + " " + info.version();
            if (info.problem().isPresent()) {
                findings.add(new Finding(false, subject, info.problem().get()));
            } else if (info.catalog().isPresent()) {
                findings.add(new Finding(true, subject, "installed (" + info.origin() + "), in catalogue "
                        + info.catalog().get() + (info.trusted() ? ", trusted" : "")));
            } else {
                findings.add(new Finding(false, subject, "installed (" + info.origin() + ") but in no catalogue"
                        + (hashes.of(bundle).map(s -> ": its SHA-256 " + abbreviate(s) + " is listed nowhere")
                                .orElse(": its content cannot be checked (" + bundle.getLocation() + ")"))));
            }
        }
        findings.sort(Comparator.comparing(Finding::ok));
        return findings;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // nothing to do
        }
    }

    /** Runs a task on the admin thread for callers in this bundle's tests. */
    <T> T onAdmin(Callable<T> task) {
        return admin.run(task);
    }

    static <T> T await(Future<T> future) {
        try {
            return future.get(ADMIN_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostException("Interrupted while waiting for the platform.", e);
        } catch (TimeoutException e) {
            throw new HostException("The platform did not finish within " + ADMIN_TIMEOUT_MINUTES + " minutes.", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof HostException host) {
                throw host;
            }
            throw new HostException("The platform failed: " + e.getCause(), e.getCause());
        }
    }

    static ExecutorService newAdminThread() {
        return Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "quiver-catalog-admin");
            thread.setDaemon(true);
            return thread;
        });
    }
}
