package dev.quiver.catalog;

import dev.quiver.api.host.HostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.resource.Capability;
import org.osgi.resource.Namespace;
import org.osgi.resource.Requirement;
import org.osgi.resource.Resource;
import org.osgi.resource.Wire;
import org.osgi.resource.Wiring;
import org.osgi.service.resolver.HostedCapability;
import org.osgi.service.resolver.ResolutionException;
import org.osgi.service.resolver.ResolveContext;
import org.osgi.service.resolver.Resolver;

/**
 * Which catalogue bundles an install brings: the requested bundle and whatever it needs that no
 * running bundle provides, chosen by the framework's resolver (Felix's {@code ResolverImpl}, which the
 * system bundle registers as the {@link Resolver} service) over two kinds of candidates:
 *
 * <ul>
 *   <li>the running framework's resolved bundles, preferred, as they are wired now;</li>
 *   <li>the usable catalogues' entries whose symbolic name is not installed, described by their
 *       index (bnd's indexer writes every capability and requirement) or, where an index lists only
 *       identity and content, by the manifest of their jar, fetched and checked first.</li>
 * </ul>
 *
 * Every bundle the resolver picks is then fetched and checked exactly as a single install checks it
 * (SHA-256, size, a bundle of the listed name), and resolved again from its own manifest, until the
 * picks are all checked jars: an index that describes a jar wrongly cannot smuggle in anything its
 * manifest does not say. Nothing is installed here; a failure names the requirement, its namespace
 * and filter, and which bundle asked.
 */
final class Resolution {

    /** At most this many bundles, the requested one included, come in with one install. */
    static final int MAX_BUNDLES = 50;
    /** At most this many jars of entries their index does not describe are fetched to read their manifests. */
    static final int MAX_DESCRIBED = 200;
    static final long RESOLVE_SECONDS = 60;

    private static final String CONSEQUENCE = "Nothing was installed.";
    /** Namespaces only the framework provides: the Java it runs on and the platform's native code. */
    private static final Set<String> FRAMEWORK_ONLY = Set.of("osgi.ee", "osgi.native");
    private static final Pattern PACKAGE = Pattern.compile("\\(osgi\\.wiring\\.package=([^)]+)\\)");

    /** A catalogue bundle to install, with its checked bytes. */
    record Planned(Catalogs.Loaded catalog, Index.Resource resource, byte[] bytes) {
    }

    /** A checked jar: its bytes (dropped for a jar read only to describe it) and what its manifest says. */
    private record Checked(byte[] bytes, Manifests.Description description) {
    }

    private final Resolver resolver;
    private final BundleContext context;
    private final Catalogs.Snapshot snapshot;
    private final List<Catalogs.Loaded> ignored;
    private final String ignoredWhy;
    private final Predicate<Bundle> refused;
    private final Map<Index.Resource, Checked> checked = new HashMap<>();
    private final Map<String, String> leftOut = new LinkedHashMap<>();

    /**
     * @param resolver the framework's resolver; null when the framework registers none
     * @param context any bundle's context: the running framework's bundles are the installed candidates
     * @param snapshot the usable catalogues
     * @param ignored catalogues that are configured but may not be used now, named when they would have
     *     provided a missing requirement
     * @param ignoredWhy why they may not be used
     * @param refused running bundles nothing may be wired to: under enforcement, those in no catalogue
     */
    Resolution(Resolver resolver, BundleContext context, Catalogs.Snapshot snapshot, List<Catalogs.Loaded> ignored,
            String ignoredWhy, Predicate<Bundle> refused) {
        if (resolver == null) {
            throw new HostException("The framework offers no resolver service (org.osgi.service.resolver.Resolver), so "
                    + "the requirements of catalogue bundles cannot be resolved. " + CONSEQUENCE);
        }
        this.resolver = resolver;
        this.context = context;
        this.snapshot = snapshot;
        this.ignored = List.copyOf(ignored);
        this.ignoredWhy = ignoredWhy;
        this.refused = refused;
    }

    /**
     * The bundles to install for a requested entry, dependencies first and the requested one last,
     * each checked against its catalogue.
     *
     * @throws HostException naming what is missing or wrong; nothing has been installed
     */
    List<Planned> plan(Catalogs.Loaded catalog, Index.Resource requested) {
        check(catalog, requested, null, true);
        Set<String> installedNames = new HashSet<>();
        Map<Resource, Wiring> wirings = new LinkedHashMap<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getSymbolicName() != null) {
                installedNames.add(bundle.getSymbolicName());
            }
            BundleWiring wiring = bundle.adapt(BundleWiring.class);
            if (wiring != null && wiring.isInUse() && !refused.test(bundle)) {
                wirings.put(wiring.getRevision(), wiring);
            }
        }
        boolean describedAll = false;
        for (int round = 0; round <= MAX_BUNDLES + 1; round++) {
            Context resolveContext = new Context(catalog, requested, installedNames, wirings);
            Map<Resource, List<Wire>> result;
            try {
                result = resolve(resolveContext);
            } catch (ResolutionException e) {
                if (!describedAll && describeUndescribed(installedNames)) {
                    describedAll = true;
                    continue;
                }
                throw new HostException(explain(resolveContext, e));
            }
            List<Node> chosen = order(resolveContext.root, result);
            if (chosen.size() > MAX_BUNDLES) {
                List<String> names = chosen.stream().map(Node::toString).toList();
                throw new HostException(describe(requested) + " was not installed: it would bring " + chosen.size()
                        + " bundles from the catalogues (" + String.join(", ", names.subList(0, 5)) + " and "
                        + (chosen.size() - 5) + " more), more than the " + MAX_BUNDLES + " one install may add. Install "
                        + "some of its dependencies on their own first, or ask the catalogue's curator why it needs so many. "
                        + CONSEQUENCE);
            }
            List<Node> unchecked = chosen.stream().filter(n -> !hasBytes(n.entry)).toList();
            if (unchecked.isEmpty()) {
                return chosen.stream().map(n -> new Planned(n.catalog, n.entry, checked.get(n.entry).bytes())).toList();
            }
            for (Node node : unchecked) {
                check(node.catalog, node.entry, requested, true);
            }
        }
        throw new HostException(describe(requested) + " was not installed: the catalogues' indexes keep describing "
                + "their bundles differently from the jars' manifests, so no set of checked bundles could be settled on. "
                + CONSEQUENCE);
    }

    private boolean hasBytes(Index.Resource entry) {
        Checked found = checked.get(entry);
        return found != null && found.bytes() != null;
    }

    /**
     * Fetches and checks a jar as a single install does, and reads its manifest. A catalogue bundle
     * may not export a package of Quiver itself: it would stand beside the distribution's API and split
     * every bundle that wires to it from the kernel.
     *
     * @param neededBy the requested entry when this one is its dependency, null when it is the
     *     requested one or is only being described
     */
    private Checked check(Catalogs.Loaded catalog, Index.Resource entry, Index.Resource neededBy, boolean keepBytes) {
        String prefix = neededBy == null ? "" : describe(neededBy) + " was not installed: it needs " + describe(entry)
                + " (catalogue " + catalog.name() + "), and ";
        // the requested bundle, a dependency, or a jar read only to describe it (named in "Left out")
        String subject = neededBy != null ? prefix + "that bundle" : keepBytes ? describe(entry) + " was not installed: it"
                : "it";
        byte[] bytes;
        java.util.jar.Attributes main;
        try {
            bytes = Admin.fetchVerified(catalog, entry, CONSEQUENCE);
            main = Admin.checkManifest(bytes, entry, CONSEQUENCE);
        } catch (HostException e) {
            throw neededBy == null ? e : new HostException(prefix + lower(e.getMessage()), e);
        }
        Manifests.Description description;
        try {
            description = Manifests.describe(main);
        } catch (IllegalArgumentException e) {
            throw new HostException(subject + " has a manifest that cannot be read: " + e.getMessage() + ". "
                    + CONSEQUENCE, e);
        }
        for (Clause capability : description.capabilities()) {
            Object exported = capability.attributes().get("osgi.wiring.package");
            if ("osgi.wiring.package".equals(capability.namespace()) && exported instanceof String name
                    && (name.equals("dev.quiver") || name.startsWith("dev.quiver."))) {
                throw new HostException(subject + " exports " + name + ", a package of Quiver itself; only the "
                        + "distribution provides Quiver's packages. " + CONSEQUENCE);
            }
        }
        Checked result = new Checked(keepBytes ? bytes : null, description);
        checked.put(entry, result);
        return result;
    }

    private static String lower(String message) {
        return message.isEmpty() ? message : Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }

    /**
     * Reads the manifests of the entries their index does not describe, so they can provide what
     * the install needs. Returns whether any was read. An entry whose jar fails its checks is left out
     * and named if the install then fails.
     */
    private boolean describeUndescribed(Set<String> installedNames) {
        List<Map.Entry<Catalogs.Loaded, Index.Resource>> pending = new ArrayList<>();
        for (Catalogs.Loaded loaded : snapshot.loaded()) {
            for (Index.Resource entry : loaded.resources()) {
                if (!entry.described() && !checked.containsKey(entry) && !installedNames.contains(entry.name())) {
                    pending.add(Map.entry(loaded, entry));
                }
            }
        }
        if (pending.size() > MAX_DESCRIBED) {
            throw new HostException("The catalogues list " + pending.size() + " bundles without their capabilities and "
                    + "requirements; reading more than " + MAX_DESCRIBED + " jars to find what one install needs is refused. "
                    + "Index the catalogue with bnd's indexer, which writes them. " + CONSEQUENCE);
        }
        for (Map.Entry<Catalogs.Loaded, Index.Resource> entry : pending) {
            try {
                check(entry.getKey(), entry.getValue(), null, false);
            } catch (HostException e) {
                leftOut.put(describe(entry.getValue()), e.getMessage().replace(" " + CONSEQUENCE, ""));
            }
        }
        return !pending.isEmpty();
    }

    private Map<Resource, List<Wire>> resolve(Context resolveContext) throws ResolutionException {
        AtomicBoolean done = new AtomicBoolean();
        // a catalogue can be built to make the resolver search for long: it is cancelled after a while
        CompletableFuture.delayedExecutor(RESOLVE_SECONDS, TimeUnit.SECONDS).execute(() -> {
            if (!done.get()) {
                resolveContext.cancel();
            }
        });
        try {
            return resolver.resolve(resolveContext);
        } finally {
            done.set(true);
        }
    }

    /** The catalogue bundles of a resolution, each after the ones it wires to, the requested one last. */
    private static List<Node> order(Node root, Map<Resource, List<Wire>> result) {
        Set<Node> ordered = new LinkedHashSet<>();
        visit(root, result, new HashSet<>(), ordered);
        for (Resource resource : result.keySet()) {
            if (resource instanceof Node node && !ordered.contains(node)) {
                ordered.add(node);
            }
        }
        List<Node> list = new ArrayList<>(ordered);
        list.remove(root);
        list.add(root);
        return list;
    }

    private static void visit(Node node, Map<Resource, List<Wire>> result, Set<Node> seen, Set<Node> ordered) {
        if (!seen.add(node)) {
            return;
        }
        for (Wire wire : result.getOrDefault(node, List.of())) {
            if (wire.getProvider() instanceof Node provider && provider != node) {
                visit(provider, result, seen, ordered);
            }
        }
        ordered.add(node);
    }

    // ---- explaining a failure -----------------------------------------------------------------

    private String explain(Context resolveContext, ResolutionException e) {
        if (resolveContext.cancelled.get()) {
            return describe(resolveContext.root.entry) + " was not installed: the resolver did not settle on the bundles "
                    + "it needs within " + RESOLVE_SECONDS + " s and was stopped. " + CONSEQUENCE;
        }
        Optional<String> missing = missing(resolveContext, resolveContext.root, new HashMap<>());
        StringBuilder message = new StringBuilder(describe(resolveContext.root.entry)).append(" was not installed: ");
        if (missing.isPresent()) {
            message.append(missing.get());
        } else {
            // every requirement has a provider, yet no consistent choice exists: a uses constraint or a singleton
            String reason = firstParagraph(e.getMessage());
            message.append("it does not resolve: ").append(reason);
            if (reason.startsWith("Uses constraint violation")) {
                message.append(" (the bundles it would be wired to see that package from different bundles; a "
                        + "catalogue must offer one provider of it that all of them accept)");
            }
        }
        message.append('.');
        if (!leftOut.isEmpty()) {
            message.append(" Left out: ");
            List<String> parts = new ArrayList<>();
            leftOut.forEach((name, why) -> parts.add(name + " (" + why.replaceAll("\\.$", "") + ")"));
            message.append(String.join("; ", parts)).append('.');
        }
        List<String> unusable = snapshot.loaded().stream().filter(l -> l.problem().isPresent())
                .map(l -> l.name() + " (" + l.problem().get() + ")").toList();
        if (!unusable.isEmpty()) {
            message.append(" Not usable: ").append(String.join("; ", unusable)).append('.');
        }
        return message.append(' ').append(CONSEQUENCE).toString();
    }

    /**
     * Why a catalogue bundle cannot resolve, ignoring uses constraints: the first requirement no
     * candidate can satisfy, through the chain of bundles that need each other. Empty when every
     * requirement has a provider that could itself resolve.
     */
    private Optional<String> missing(Context resolveContext, Node node, Map<Node, Optional<String>> known) {
        if (known.containsKey(node)) {
            return known.get(node);
        }
        known.put(node, Optional.empty()); // a cycle counts as satisfied; the resolver judges cycles
        String who = node == resolveContext.root ? "it" : node.toString();
        for (Requirement requirement : node.getRequirements(null)) {
            if (!resolveContext.isEffective(requirement) || optional(requirement)) {
                continue;
            }
            List<Capability> providers = resolveContext.findProviders(requirement);
            if (providers.isEmpty()) {
                Optional<String> why = Optional.of(who + " needs " + describe(requirement) + ", which "
                        + nobodyProvides(requirement, resolveContext));
                known.put(node, why);
                return why;
            }
            if (providers.stream().anyMatch(c -> !(c.getResource() instanceof Node))) {
                continue;
            }
            Optional<String> firstWhy = Optional.empty();
            boolean satisfiable = false;
            for (Capability provider : providers) {
                Optional<String> why = missing(resolveContext, (Node) provider.getResource(), known);
                if (why.isEmpty()) {
                    satisfiable = true;
                    break;
                }
                if (firstWhy.isEmpty()) {
                    firstWhy = why;
                }
            }
            if (!satisfiable) {
                Node provider = (Node) providers.get(0).getResource();
                Optional<String> why = Optional.of(who + " needs " + describe(requirement) + ", which "
                        + (providers.size() == 1 ? "only " : "among others ") + provider + " (catalogue "
                        + provider.catalog.name() + ") provides, and " + firstWhy.get());
                known.put(node, why);
                return why;
            }
        }
        return Optional.empty();
    }

    /** The end of a sentence saying nothing provides a requirement, with what comes close. */
    private String nobodyProvides(Requirement requirement, Context resolveContext) {
        StringBuilder text = new StringBuilder(FRAMEWORK_ONLY.contains(requirement.getNamespace())
                ? "the framework (this Java and platform) does not provide"
                : "no running bundle and no usable catalogue provides");
        List<String> close = new ArrayList<>();
        String wantedPackage = packageOf(requirement);
        if (wantedPackage != null) {
            // the package exists, at versions outside the range
            for (Wiring wiring : resolveContext.wirings.values()) {
                for (Capability capability : wiring.getResourceCapabilities("osgi.wiring.package")) {
                    if (wantedPackage.equals(capability.getAttributes().get("osgi.wiring.package"))) {
                        close.add("the running " + name(capability.getResource()) + " exports it at "
                                + capability.getAttributes().get("version"));
                    }
                }
            }
            for (Node node : resolveContext.nodes) {
                for (Capability capability : node.getCapabilities("osgi.wiring.package")) {
                    if (wantedPackage.equals(capability.getAttributes().get("osgi.wiring.package"))) {
                        close.add(node + " (catalogue " + node.catalog.name() + ") exports it at "
                                + capability.getAttributes().get("version"));
                    }
                }
            }
        }
        Filter filter = filter(requirement);
        for (Bundle bundle : context.getBundles()) {
            BundleRevision revision = bundle.adapt(BundleRevision.class);
            boolean outside = bundle.getBundleId() != 0 && refused.test(bundle);
            if ((bundle.getState() == Bundle.INSTALLED || outside) && revision != null && revision
                    .getDeclaredCapabilities(requirement.getNamespace()).stream().anyMatch(c -> matches(filter, c))) {
                close.add(bundle.getSymbolicName() + " " + bundle.getVersion() + " is installed and would provide it, "
                        + "but " + (outside ? "it is in no catalogue and the catalogues are enforced"
                                : "it is not resolved (quiver catalog bundles says why)"));
            }
        }
        for (Catalogs.Loaded loaded : ignored) {
            for (Index.Resource entry : loaded.resources()) {
                Node node = new Node(loaded, entry, entry.capabilities(), List.of());
                if (node.getCapabilities(requirement.getNamespace()).stream().anyMatch(c -> matches(filter, c))) {
                    close.add(describe(entry) + " of catalogue " + loaded.name() + " would, but " + ignoredWhy);
                }
            }
        }
        if (!close.isEmpty()) {
            text.append(" (").append(String.join("; ", close)).append(')');
        }
        return text.toString();
    }

    /**
     * The one package a requirement asks for by exact name; null for another namespace or a filter
     * that could match several ({@code |}, {@code !}, a wildcard).
     */
    private static String packageOf(Requirement requirement) {
        if (!"osgi.wiring.package".equals(requirement.getNamespace())) {
            return null;
        }
        String filter = requirement.getDirectives().get(Namespace.REQUIREMENT_FILTER_DIRECTIVE);
        if (filter == null || filter.contains("|") || filter.contains("(!(osgi.wiring.package")) {
            return null;
        }
        java.util.regex.Matcher m = PACKAGE.matcher(filter);
        if (!m.find()) {
            return null;
        }
        String name = m.group(1);
        return m.find() || name.contains("*") || name.contains("\\") ? null : name;
    }

    private static String name(Resource resource) {
        return resource instanceof BundleRevision revision ? revision.getSymbolicName() + " " + revision.getVersion()
                : resource.toString();
    }

    private static String firstParagraph(String message) {
        String text = message == null ? "the resolver gave no reason" : message.split("\\R\\s*\\R")[0];
        text = text.replaceAll("\\s+", " ").strip().replaceAll("\\.$", "");
        return text.length() > 600 ? text.substring(0, 600) + "…" : text;
    }

    static String describe(Index.Resource entry) {
        return entry.name() + " " + entry.version();
    }

    static String describe(Requirement requirement) {
        String filter = requirement.getDirectives().get(Namespace.REQUIREMENT_FILTER_DIRECTIVE);
        return requirement.getNamespace() + (filter == null ? "" : " " + filter);
    }

    // ---- matching -----------------------------------------------------------------------------

    private static boolean optional(Requirement requirement) {
        return Namespace.RESOLUTION_OPTIONAL.equals(
                requirement.getDirectives().get(Namespace.REQUIREMENT_RESOLUTION_DIRECTIVE));
    }

    /** The requirement's filter; null when it has none (then every capability of its namespace matches). */
    private static Filter filter(Requirement requirement) {
        String text = requirement.getDirectives().get(Namespace.REQUIREMENT_FILTER_DIRECTIVE);
        if (text == null) {
            return null;
        }
        try {
            return FrameworkUtil.createFilter(text);
        } catch (InvalidSyntaxException e) {
            return NEVER;
        }
    }

    /** A filter nothing matches: a requirement whose filter does not parse cannot be satisfied. */
    private static final Filter NEVER;

    static {
        try {
            NEVER = FrameworkUtil.createFilter("(!(objectClass=*))");
        } catch (InvalidSyntaxException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Whether a capability matches a filter, honouring its {@code mandatory} attributes as the framework does. */
    private static boolean matches(Filter filter, Capability capability) {
        if (filter == null) {
            return true;
        }
        if (!filter.matches(capability.getAttributes())) {
            return false;
        }
        String mandatory = capability.getDirectives().get("mandatory");
        if (mandatory != null) {
            String text = filter.toString();
            for (String attribute : mandatory.split(",")) {
                if (!Pattern.compile("\\(" + Pattern.quote(attribute.strip()) + "[<>~]?=").matcher(text).find()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Version versionOf(Capability capability) {
        Object version = capability.getAttributes().get(switch (capability.getNamespace()) {
            case "osgi.wiring.bundle", "osgi.wiring.host" -> "bundle-version";
            default -> "version";
        });
        return version instanceof Version v ? v : Version.emptyVersion;
    }

    // ---- the resolver's view --------------------------------------------------------------------

    /** The resolve context of one round: the running bundles, then the catalogues' entries. */
    private final class Context extends ResolveContext {

        final Node root;
        final List<Node> nodes = new ArrayList<>();
        final Map<Resource, Wiring> wirings;
        /** The catalogue entries' capabilities by namespace, and packages also by name: a large index stays quick. */
        private final Map<String, List<Capability>> byNamespace = new HashMap<>();
        private final Map<String, List<Capability>> byPackage = new HashMap<>();
        final AtomicBoolean cancelled = new AtomicBoolean();
        private volatile Runnable onCancel;

        Context(Catalogs.Loaded catalog, Index.Resource requested, Set<String> installedNames,
                Map<Resource, Wiring> wirings) {
            this.wirings = wirings;
            this.root = node(catalog, requested);
            nodes.add(root);
            for (Catalogs.Loaded loaded : snapshot.loaded()) {
                for (Index.Resource entry : loaded.resources()) {
                    // an installed name is update's business; the requested entry is the root already
                    if (installedNames.contains(entry.name()) || entry.name().equals(requested.name())) {
                        continue;
                    }
                    if (entry.described() || checked.containsKey(entry)) {
                        nodes.add(node(loaded, entry));
                    }
                }
            }
            for (Node node : nodes) {
                for (Capability capability : node.getCapabilities(null)) {
                    byNamespace.computeIfAbsent(capability.getNamespace(), k -> new ArrayList<>()).add(capability);
                    if (capability.getAttributes().get("osgi.wiring.package") instanceof String name
                            && "osgi.wiring.package".equals(capability.getNamespace())) {
                        byPackage.computeIfAbsent(name, k -> new ArrayList<>()).add(capability);
                    }
                }
            }
        }

        /** A catalogue entry as its checked manifest describes it, or else as its index does. */
        private Node node(Catalogs.Loaded loaded, Index.Resource entry) {
            Checked found = checked.get(entry);
            if (found != null) {
                return new Node(loaded, entry, found.description().capabilities(), found.description().requirements());
            }
            return new Node(loaded, entry, entry.capabilities(), entry.requirements());
        }

        void cancel() {
            cancelled.set(true);
            Runnable callback = onCancel;
            if (callback != null) {
                callback.run();
            }
        }

        @Override
        public void onCancel(Runnable callback) {
            this.onCancel = callback;
        }

        @Override
        public Collection<Resource> getMandatoryResources() {
            return List.of(root);
        }

        @Override
        public List<Capability> findProviders(Requirement requirement) {
            String namespace = requirement.getNamespace();
            Filter filter = filter(requirement);
            List<Capability> running = new ArrayList<>();
            for (Wiring wiring : wirings.values()) {
                for (Capability capability : wiring.getResourceCapabilities(namespace)) {
                    if (matches(filter, capability)) {
                        running.add(capability);
                    }
                }
            }
            running.sort(Comparator.comparing(Resolution::versionOf, Comparator.reverseOrder()));
            List<Capability> providers = new ArrayList<>(running);
            // an optional requirement is wired to what runs, never a reason to install more; the
            // framework alone provides the Java and the platform, and the java.* packages
            if (optional(requirement) || FRAMEWORK_ONLY.contains(namespace)) {
                return providers;
            }
            String wantedPackage = packageOf(requirement);
            List<Capability> offered = new ArrayList<>();
            for (Capability capability : wantedPackage != null ? byPackage.getOrDefault(wantedPackage, List.of())
                    : byNamespace.getOrDefault(namespace, List.of())) {
                Object exported = capability.getAttributes().get("osgi.wiring.package");
                if (exported instanceof String name && name.startsWith("java.")) {
                    continue;
                }
                if (matches(filter, capability)) {
                    offered.add(capability);
                }
            }
            offered.sort(Comparator.comparing((Capability c) -> ((Node) c.getResource()).version(),
                    Comparator.reverseOrder()));
            providers.addAll(offered);
            return providers;
        }

        @Override
        public int insertHostedCapability(List<Capability> capabilities, HostedCapability hostedCapability) {
            capabilities.add(hostedCapability);
            return capabilities.size() - 1;
        }

        @Override
        public boolean isEffective(Requirement requirement) {
            String effective = requirement.getDirectives().get(Namespace.REQUIREMENT_EFFECTIVE_DIRECTIVE);
            return effective == null || Namespace.EFFECTIVE_RESOLVE.equals(effective);
        }

        @Override
        public Map<Resource, Wiring> getWirings() {
            return wirings;
        }
    }

    /** A catalogue entry as a resource the resolver can use. Identity is equality: one per entry and round. */
    private static final class Node implements Resource {

        final Catalogs.Loaded catalog;
        final Index.Resource entry;
        private final List<Capability> capabilities = new ArrayList<>();
        private final List<Requirement> requirements = new ArrayList<>();

        Node(Catalogs.Loaded catalog, Index.Resource entry, List<Clause> capabilities, List<Clause> requirements) {
            this.catalog = catalog;
            this.entry = entry;
            capabilities.forEach(c -> this.capabilities.add(new Part(this, c)));
            requirements.forEach(r -> this.requirements.add(new Part(this, r)));
        }

        Version version() {
            try {
                return Version.parseVersion(entry.version());
            } catch (IllegalArgumentException e) {
                return Version.emptyVersion;
            }
        }

        @Override
        public List<Capability> getCapabilities(String namespace) {
            return capabilities.stream().filter(c -> namespace == null || namespace.equals(c.getNamespace())).toList();
        }

        @Override
        public List<Requirement> getRequirements(String namespace) {
            return requirements.stream().filter(r -> namespace == null || namespace.equals(r.getNamespace())).toList();
        }

        @Override
        public String toString() {
            return describe(entry);
        }
    }

    /**
     * A capability or requirement of a {@link Node}: both are a namespace, attributes and directives
     * bound to their resource, so one class serves as either. Identity is equality, as the resolver
     * expects of the parts of distinct resources.
     */
    private static final class Part implements Capability, Requirement {

        private final Node node;
        private final Clause clause;

        Part(Node node, Clause clause) {
            this.node = node;
            this.clause = clause;
        }

        @Override
        public String getNamespace() {
            return clause.namespace();
        }

        @Override
        public Map<String, String> getDirectives() {
            return clause.directives();
        }

        @Override
        public Map<String, Object> getAttributes() {
            return clause.attributes();
        }

        @Override
        public Resource getResource() {
            return node;
        }

        @Override
        public String toString() {
            return clause.namespace() + clause.attributes() + clause.directives();
        }
    }
}
