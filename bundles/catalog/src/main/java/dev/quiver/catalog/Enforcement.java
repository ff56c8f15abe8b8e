package dev.quiver.catalog;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Function;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.hooks.resolver.ResolverHook;
import org.osgi.framework.hooks.resolver.ResolverHookFactory;
import org.osgi.framework.hooks.weaving.WeavingException;
import org.osgi.framework.hooks.weaving.WeavingHook;
import org.osgi.framework.hooks.weaving.WovenClass;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps bundles outside the catalogues from running while the catalogues are enforced. Two
 * framework hooks, registered only while enforcing (so an ordinary start pays nothing):
 *
 * <ul>
 *   <li>a {@link ResolverHook} that, for a refused bundle, removes every candidate of its
 *       requirements (so it cannot resolve) and removes its capabilities from everyone else's
 *       candidates (so nothing wires to it). It deliberately does not shrink the resolvable set in
 *       {@code filterResolvable}: Felix 7.0.5 then filters the providers of every requirement by
 *       that set, which holds only unresolved revisions, so one refused bundle left installed would
 *       make every later resolve fail;</li>
 *   <li>a {@link WeavingHook} that refuses to define any class of a refused bundle: the backstop
 *       for a bundle that declares no requirement at all, which no resolver hook can stop.</li>
 * </ul>
 *
 * A bundle is refused when it comes up for resolution while enforcing and its content is in no
 * catalogue; bundles already resolved before enforcement began are swept by a refresh
 * ({@link CatalogPlatform}), which brings them back here.
 */
final class Enforcement implements ResolverHookFactory, WeavingHook {

    private static final Logger LOG = LoggerFactory.getLogger(Enforcement.class);

    /** A refusal: the content hash refused and the bundle's modification time then. */
    record Refusal(String sha256, long lastModified) {
    }

    private final BundleContext context;
    private final Predicate<Bundle> allowed;
    private final Function<Bundle, String> sha256;
    private final Map<Long, Refusal> refused = new ConcurrentHashMap<>();
    private ServiceRegistration<?> resolverRegistration;
    private ServiceRegistration<?> weavingRegistration;

    /**
     * @param allowed whether a bundle may run (the framework, the installation, catalogued content)
     * @param sha256 the content hash of a bundle, for messages
     */
    Enforcement(BundleContext context, Predicate<Bundle> allowed, Function<Bundle, String> sha256) {
        this.context = context;
        this.allowed = allowed;
        this.sha256 = sha256;
    }

    /** Registers or unregisters the hooks. */
    synchronized void enforce(boolean on) {
        if (on && resolverRegistration == null) {
            resolverRegistration = context.registerService(ResolverHookFactory.class, this, null);
            weavingRegistration = context.registerService(WeavingHook.class, this, null);
        } else if (!on && resolverRegistration != null) {
            unregister();
        }
    }

    synchronized boolean active() {
        return resolverRegistration != null;
    }

    synchronized void close() {
        if (resolverRegistration != null) {
            unregister();
        }
    }

    private void unregister() {
        try {
            resolverRegistration.unregister();
            weavingRegistration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping
        }
        resolverRegistration = null;
        weavingRegistration = null;
    }

    /** The refusal of a bundle's current content, if it was refused. */
    Refusal refusal(Bundle bundle) {
        Refusal refusal = refused.get(bundle.getBundleId());
        return refusal != null && refusal.lastModified() == bundle.getLastModified() ? refusal : null;
    }

    void forget(Bundle bundle) {
        refused.remove(bundle.getBundleId());
    }

    /** Marks a bundle refused when it may not run; returns whether it is refused. */
    boolean check(Bundle bundle) {
        if (refusal(bundle) != null) {
            return true;
        }
        if (allowed.test(bundle)) {
            return false;
        }
        String sha = sha256.apply(bundle);
        if (refused.put(bundle.getBundleId(), new Refusal(sha, bundle.getLastModified())) == null) {
            LOG.warn("Refusing {} {} ({}): its content (SHA-256 {}) is in no catalogue and the catalogues are enforced",
                    bundle.getSymbolicName(), bundle.getVersion(), bundle.getLocation(), sha);
        }
        return true;
    }

    /** Marks a bundle refused from outside the hooks (the sweep when enforcement begins). */
    void refuse(Bundle bundle) {
        refused.put(bundle.getBundleId(), new Refusal(sha256.apply(bundle), bundle.getLastModified()));
    }

    @Override
    public ResolverHook begin(Collection<BundleRevision> triggers) {
        return new ResolverHook() {
            private final Map<Bundle, Boolean> decided = new java.util.HashMap<>();

            private boolean refusedNow(Bundle bundle) {
                return decided.computeIfAbsent(bundle, b -> b.adapt(BundleRevision.class) != null
                        && b.adapt(org.osgi.framework.wiring.BundleWiring.class) == null ? check(b) : refusal(b) != null);
            }

            @Override
            public void filterResolvable(Collection<BundleRevision> candidates) {
                // only observe: see the class comment for why nothing is removed here
                for (BundleRevision revision : candidates) {
                    refusedNow(revision.getBundle());
                }
            }

            @Override
            public void filterSingletonCollisions(BundleCapability singleton, Collection<BundleCapability> collisions) {
            }

            @Override
            public void filterMatches(BundleRequirement requirement, Collection<BundleCapability> candidates) {
                if (refusedNow(requirement.getRevision().getBundle())) {
                    candidates.clear();
                    return;
                }
                candidates.removeIf(capability -> refusedNow(capability.getRevision().getBundle()));
            }

            @Override
            public void end() {
            }
        };
    }

    @Override
    public void weave(WovenClass wovenClass) {
        Bundle bundle = wovenClass.getBundleWiring().getBundle();
        if (refusal(bundle) != null) {
            throw new WeavingException("Refusing to load " + wovenClass.getClassName() + ": bundle "
                    + bundle.getSymbolicName() + " is in no catalogue and the catalogues are enforced");
        }
    }
}
