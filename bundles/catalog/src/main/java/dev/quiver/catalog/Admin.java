package dev.quiver.catalog;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Platform;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every change to the framework, made on one thread: installs, updates and removals, each followed
 * by a refresh that is waited for ({@link FrameworkEvent#PACKAGES_REFRESHED}), so no class of an old
 * revision stays wired. Content is checked against the index before the framework sees it.
 */
final class Admin {

    private static final Logger LOG = LoggerFactory.getLogger(Admin.class);
    private static final long REFRESH_SECONDS = 60;
    private static final String LOCATION_PREFIX = "quiver:catalog:";

    private final BundleContext context;
    private final ContentHashes hashes;
    private final Settings settings;
    private final Set<Long> installedHere = ConcurrentHashMap.newKeySet();
    private ExecutorService thread;
    private volatile Thread adminThread;

    Admin(BundleContext context, ContentHashes hashes, Settings settings) {
        this.context = context;
        this.hashes = hashes;
        this.settings = settings;
    }

    boolean installedHere(Bundle bundle) {
        return installedHere.contains(bundle.getBundleId()) || bundle.getLocation().startsWith(LOCATION_PREFIX);
    }

    private synchronized ExecutorService executor() {
        if (thread == null) {
            thread = CatalogPlatform.newAdminThread();
        }
        return thread;
    }

    synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
            thread = null;
        }
    }

    /** Runs a task on the admin thread and waits for it (at once when already on it). */
    <T> T run(Callable<T> task) {
        if (Thread.currentThread() == adminThread) {
            try {
                return task.call();
            } catch (HostException e) {
                throw e;
            } catch (Exception e) {
                throw new HostException("The platform failed: " + e, e);
            }
        }
        try {
            return CatalogPlatform.await(executor().submit(() -> {
                adminThread = Thread.currentThread();
                return task.call();
            }));
        } catch (RejectedExecutionException e) {
            throw new HostException("The platform is stopping.", e);
        }
    }

    /** Runs a task on the admin thread without waiting; failures are logged. */
    void async(Runnable task) {
        try {
            executor().submit(() -> {
                adminThread = Thread.currentThread();
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.warn("A platform task failed", e);
                }
            });
        } catch (RejectedExecutionException stopping) {
            // the platform is going away
        }
    }

    // ---- install, update, remove ----------------------------------------------------------------

    /**
     * Installs checked jars as one change: every bundle is kept and installed from its checked bytes,
     * all are resolved together, then started dependencies first. If any of them does not resolve or
     * start, every one is uninstalled again, the framework refreshed and the kept copies deleted.
     *
     * @param planned dependencies first, the requested bundle last
     * @return the requested bundle
     */
    Bundle install(List<Resolution.Planned> planned) {
        Index.Resource requested = planned.get(planned.size() - 1).resource();
        List<Bundle> installed = new ArrayList<>();
        List<Path> kept = new ArrayList<>();
        try {
            for (Resolution.Planned one : planned) {
                Optional<Path> file = keep(one.resource(), one.bytes());
                file.ifPresent(kept::add);
                String location = file.map(p -> p.toUri().toString()).orElse(LOCATION_PREFIX + one.resource().name());
                Bundle bundle;
                try {
                    bundle = context.installBundle(location, new ByteArrayInputStream(one.bytes()));
                } catch (BundleException e) {
                    throw new Failure(describe(one.resource()) + (one.resource() == requested ? "" : ", which it needs,")
                            + " cannot be installed: " + e.getMessage(), e);
                }
                installed.add(bundle);
                hashes.record(bundle, one.resource().sha256());
                installedHere.add(bundle.getBundleId());
            }
            FrameworkWiring wiring = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class);
            wiring.resolveBundles(installed);
            for (int i = 0; i < installed.size(); i++) {
                Bundle bundle = installed.get(i);
                String who = planned.get(i).resource() == requested ? "it" : describe(planned.get(i).resource())
                        + ", which it needs,";
                try {
                    // a fragment attaches when its host resolves; one for a running host waits for a refresh
                    if (!isFragment(bundle)) {
                        bundle.start();
                    }
                } catch (BundleException | IllegalStateException e) {
                    String why = whyNotStarted(bundle, e);
                    throw new Failure(who.equals("it") ? why : who + " " + why.replaceFirst("^it ", ""), e);
                }
            }
        } catch (Failure e) {
            rollBack(installed, kept);
            throw new HostException(describe(requested) + " was not installed: " + e.getMessage()
                    + ". Nothing is left installed.", e.getCause());
        } catch (RuntimeException e) {
            rollBack(installed, kept);
            throw e;
        }
        for (Resolution.Planned one : planned) {
            LOG.info("Installed {} from catalogue {}{}", describe(one.resource()), one.catalog().name(),
                    one.resource() == requested ? "" : " (needed by " + describe(requested) + ")");
        }
        return installed.get(installed.size() - 1);
    }

    /** Why an install stopped, before the rollback. */
    private static final class Failure extends RuntimeException {
        Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private void rollBack(List<Bundle> installed, List<Path> kept) {
        for (Bundle bundle : installed) {
            try {
                bundle.uninstall();
            } catch (BundleException | IllegalStateException ignored) {
                // already gone
            }
            installedHere.remove(bundle.getBundleId());
            hashes.forget(bundle);
        }
        if (!installed.isEmpty()) {
            refresh(installed);
        }
        kept.forEach(Admin::deleteQuietly);
    }

    void update(Bundle bundle, Catalogs.Loaded catalog, Index.Resource resource) {
        byte[] bytes = fetchVerified(catalog, resource, bundle.getSymbolicName() + " " + bundle.getVersion()
                + " is unchanged.");
        checkManifest(bytes, resource, bundle.getSymbolicName() + " " + bundle.getVersion() + " is unchanged.");
        Optional<Path> old = ContentHashes.file(bundle.getLocation()).filter(p -> Settings.under(p, settings.plugins()));
        Optional<Path> kept = keep(resource, bytes);
        try {
            bundle.update(new ByteArrayInputStream(bytes));
        } catch (BundleException | IllegalStateException e) {
            kept.filter(p -> !p.equals(old.orElse(null))).ifPresent(Admin::deleteQuietly);
            throw new HostException(describe(resource) + " could not replace " + bundle.getSymbolicName() + " "
                    + bundle.getVersion() + ": " + e.getMessage(), e);
        }
        hashes.record(bundle, resource.sha256());
        refresh(List.of(bundle));
        if (old.isPresent() && kept.isPresent() && !old.get().equals(kept.get())) {
            deleteQuietly(old.get());
        }
        if (bundle.getState() != Bundle.ACTIVE && !isFragment(bundle)) {
            try {
                bundle.start();
            } catch (BundleException | IllegalStateException e) {
                throw new HostException(describe(resource) + " was installed but does not start: "
                        + whyNotStarted(bundle, e) + ".", e);
            }
        }
        LOG.info("Updated {} from catalogue {}", describe(resource), catalog.name());
    }

    void remove(Bundle bundle) {
        String name = bundle.getSymbolicName();
        Optional<Path> file = ContentHashes.file(bundle.getLocation());
        try {
            bundle.uninstall();
        } catch (BundleException | IllegalStateException e) {
            throw new HostException(name + " could not be uninstalled: " + e.getMessage(), e);
        }
        installedHere.remove(bundle.getBundleId());
        hashes.forget(bundle);
        refresh(List.of(bundle));
        file.filter(p -> Settings.under(p, settings.plugins())).ifPresent(Admin::deleteQuietly);
        forgetKept(name);
        LOG.info("Removed {}", name);
    }

    /** Refreshes bundles and waits until the framework says it is done. */
    void refresh(Collection<Bundle> bundles) {
        FrameworkWiring wiring = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class);
        CountDownLatch done = new CountDownLatch(1);
        wiring.refreshBundles(bundles, event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                done.countDown();
            }
        });
        try {
            if (!done.await(REFRESH_SECONDS, TimeUnit.SECONDS)) {
                throw new HostException("The framework did not finish refreshing within " + REFRESH_SECONDS + " s.");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostException("Interrupted while the framework refreshed.", e);
        }
    }

    private String whyNotStarted(Bundle bundle, Exception e) {
        if (bundle.getState() == Bundle.INSTALLED) {
            List<String> missing = BundleProblems.missingPackages(context, bundle);
            if (!missing.isEmpty()) {
                return "it does not resolve: it imports " + String.join(", ", missing)
                        + ", which no installed bundle exports";
            }
            return "it does not resolve: " + e.getMessage();
        }
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return "it does not start: " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    private static boolean isFragment(Bundle bundle) {
        return bundle.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
    }

    // ---- content ---------------------------------------------------------------------------------

    static String describe(Index.Resource resource) {
        return resource.name() + " " + resource.version();
    }

    /** The jar of a resource, refused unless its size and SHA-256 are the index's. */
    static byte[] fetchVerified(Catalogs.Loaded catalog, Index.Resource resource, String consequence) {
        byte[] bytes;
        try {
            bytes = Fetch.bytes(resource.url(), Fetch.MAX_JAR);
        } catch (IOException e) {
            throw new HostException("Cannot fetch " + describe(resource) + " from " + Catalogs.display(resource.url())
                    + ": " + e.getMessage() + ". " + consequence, e);
        }
        String sha = Index.sha256(bytes);
        if (!sha.equals(resource.sha256())) {
            throw new HostException("The jar of " + describe(resource) + " (" + Catalogs.display(resource.url())
                    + ") does not match catalogue " + catalog.name() + ": its SHA-256 is " + sha + ", the index says "
                    + resource.sha256() + ". " + consequence);
        }
        if (resource.size() >= 0 && bytes.length != resource.size()) {
            throw new HostException("The jar of " + describe(resource) + " is " + bytes.length + " bytes but catalogue "
                    + catalog.name() + " says " + resource.size() + ". " + consequence);
        }
        return bytes;
    }

    /** Refuses a jar that is not a bundle, or not the bundle the index names; returns its manifest's main attributes. */
    static Attributes checkManifest(byte[] bytes, Index.Resource resource, String consequence) {
        Manifest manifest = null;
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(bytes))) {
            ZipEntry entry;
            boolean any = false;
            while ((entry = zip.getNextEntry()) != null) {
                any = true;
                if (entry.getName().equalsIgnoreCase("META-INF/MANIFEST.MF")) {
                    manifest = new Manifest(zip);
                    break;
                }
            }
            if (!any) {
                throw new HostException(describe(resource) + " is not a jar (it holds no entries). " + consequence);
            }
        } catch (IOException e) {
            throw new HostException(describe(resource) + " is not a jar: " + e.getMessage() + ". " + consequence, e);
        }
        if (manifest == null) {
            throw new HostException(describe(resource) + " is not an OSGi bundle: its jar has no manifest. " + consequence);
        }
        Attributes main = manifest.getMainAttributes();
        String bsn = main.getValue(Constants.BUNDLE_SYMBOLICNAME);
        if (bsn == null || !"2".equals(String.valueOf(main.getValue(Constants.BUNDLE_MANIFESTVERSION)).strip())) {
            throw new HostException(describe(resource) + " is not an OSGi bundle: its manifest has no "
                    + (bsn == null ? "Bundle-SymbolicName" : "Bundle-ManifestVersion: 2") + ". " + consequence);
        }
        String name = bsn.split(";")[0].strip();
        if (!name.equals(resource.name())) {
            throw new HostException("The catalogue lists " + resource.name() + " but its jar is the bundle " + name
                    + "; refusing it. " + consequence);
        }
        return main;
    }

    /** One {@code verify} check of an entry: its jar is reachable and matches. */
    static Platform.Finding check(Catalogs.Loaded catalog, Index.Resource resource) {
        try {
            fetchVerified(catalog, resource, "");
            return new Platform.Finding(true, describe(resource), "matches catalogue " + catalog.name()
                    + " (SHA-256 " + CatalogPlatform.abbreviate(resource.sha256()) + ")");
        } catch (HostException e) {
            return new Platform.Finding(false, describe(resource), e.getMessage().strip());
        }
    }

    // ---- keeping installs for later processes ---------------------------------------------------

    /** Writes a verified jar to the plugins folder (atomically), where the launcher installs it next time. */
    private Optional<Path> keep(Index.Resource resource, byte[] bytes) {
        if (settings.plugins().isEmpty()) {
            return Optional.empty();
        }
        Path folder = settings.plugins().get();
        Path target = folder.resolve(fileName(resource));
        try {
            Files.createDirectories(folder);
            Path temporary = Files.createTempFile(folder, ".install-", ".tmp");
            try {
                Files.write(temporary, bytes);
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temporary);
            }
            return Optional.of(target);
        } catch (IOException e) {
            throw new HostException("Cannot keep " + describe(resource) + " in " + folder + ": " + e.getMessage()
                    + ". Nothing was installed.", e);
        }
    }

    static String fileName(Index.Resource resource) {
        return (resource.name() + "-" + resource.version()).replaceAll("[^A-Za-z0-9._-]", "_") + ".jar";
    }

    /** Deletes every kept jar of a symbolic name. */
    private void forgetKept(String name) {
        if (settings.plugins().isEmpty() || !Files.isDirectory(settings.plugins().get())) {
            return;
        }
        String prefix = name.replaceAll("[^A-Za-z0-9._-]", "_") + "-";
        try (DirectoryStream<Path> files = Files.newDirectoryStream(settings.plugins().get(), prefix + "*.jar")) {
            for (Path file : files) {
                String rest = file.getFileName().toString().substring(prefix.length());
                if (!rest.isEmpty() && Character.isDigit(rest.charAt(0))) {
                    deleteQuietly(file);
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot clean up {}", settings.plugins().get(), e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Cannot delete {}", file, e);
        }
    }
}
