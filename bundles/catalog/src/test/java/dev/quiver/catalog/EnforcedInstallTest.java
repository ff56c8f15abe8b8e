package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.SessionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.launch.Framework;
import org.osgi.service.resolver.Resolver;

/**
 * {@code install} through the platform on a real Felix framework whose installation enforces its
 * catalogues: the enforcement hooks are registered, the installation's catalogue is the only one that
 * counts, and a session's catalogue is ignored.
 */
class EnforcedInstallTest {

    @TempDir
    Path temp;

    private Framework framework;
    private CatalogPlatform platform;

    @AfterEach
    void stop() throws Exception {
        if (platform != null) {
            platform.deactivate();
        }
        framework.stop();
        framework.waitForStop(10_000);
    }

    private BundleContext start(Path installationIndex) throws Exception {
        Path conf = Files.createDirectories(temp.resolve("conf"));
        Files.writeString(conf.resolve("catalogs.json"), "[\"" + installationIndex + "\"]");
        Map<String, String> config = new HashMap<>();
        config.put("org.osgi.framework.storage", temp.resolve("felix-cache").toString());
        config.put("org.osgi.framework.storage.clean", "onFirstInit");
        config.put(Settings.CATALOGS, conf.resolve("catalogs.json").toString());
        config.put(Settings.ENFORCE, "true");
        config.put(Settings.PLUGINS, temp.resolve("plugins").toString());
        framework = new FrameworkFactory().newFramework(config);
        framework.start();
        BundleContext context = framework.getBundleContext();
        platform = new CatalogPlatform(context);
        platform.setResolver(context.getService(context.getServiceReference(Resolver.class)));
        return context;
    }

    @Test
    void theInstallationsCatalogueBringsToolAndLibraryPastTheEnforcementHooks() throws Exception {
        Path acme = temp.resolve("acme");
        Path lib = library(acme);
        Path tool = tool(acme);
        BundleContext context = start(TestIndexes.bndIndex(acme.resolve("index.xml"), "acme", List.of(lib, tool)));
        assertTrue(platform.enforcing());

        Platform.BundleInfo installed = platform.install("tool");
        assertEquals("active", installed.state());
        Platform.BundleInfo library = platform.bundles().stream().filter(b -> b.name().equals("com.example.lib"))
                .findFirst().orElseThrow();
        assertEquals("active", library.state());
        assertEquals(Platform.ORIGIN_CATALOG, library.origin());
        assertEquals(Optional.of("acme"), library.catalog());
        assertEquals(2, Stream.of(context.getBundles()).filter(b -> b.getBundleId() != 0).count());
    }

    @Test
    void aDependencyOnlyTheSessionsCatalogueOffersIsRefusedNamingThatCatalogue() throws Exception {
        Path acme = temp.resolve("acme");
        Path tool = tool(acme);
        Path theirs = temp.resolve("theirs");
        Path lib = library(theirs);
        Path theirIndex = TestIndexes.bndIndex(theirs.resolve("index.xml"), "theirs", List.of(lib));
        BundleContext context = start(TestIndexes.bndIndex(acme.resolve("index.xml"), "acme", List.of(tool)));
        platform.opened(session(List.of(theirIndex.toString())));

        HostException e = assertThrows(HostException.class, () -> platform.install("com.example.tool"));
        assertTrue(e.getMessage().startsWith("com.example.tool 1.0.0 was not installed: it needs osgi.wiring.package "
                + "(&(osgi.wiring.package=com.example.lib)(version>=1.0.0)(!(version>=2.0.0)))"), e.getMessage());
        assertTrue(e.getMessage().contains("com.example.lib 1.0.0 of catalogue theirs would, but the installation "
                + "enforces its own catalogues and ignores the session's"), e.getMessage());
        assertEquals(1, context.getBundles().length, "only the framework");
        assertEquals(false, Files.exists(temp.resolve("plugins")) && Files.list(temp.resolve("plugins")).findAny().isPresent());
    }

    @Test
    void aRunningLibraryInNoCatalogueDoesNotSatisfyTheRequirementAndIsNamed() throws Exception {
        Path acme = temp.resolve("acme");
        Path tool = tool(acme);
        Path stray = library(temp.resolve("stray"));
        BundleContext context = start(TestIndexes.bndIndex(acme.resolve("index.xml"), "acme", List.of(tool)));
        // it declares no requirement, so it resolves; the weaving hook keeps its classes from loading
        Bundle outside = context.installBundle(stray.toUri().toString());
        outside.start();

        HostException e = assertThrows(HostException.class, () -> platform.install("com.example.tool"));
        assertTrue(e.getMessage().contains("com.example.lib 1.0.0 is installed and would provide it, but it is in no "
                + "catalogue and the catalogues are enforced"), e.getMessage());
        assertEquals(2, context.getBundles().length, "the framework and the stray library only");
    }

    private static Path library(Path folder) throws Exception {
        return TestIndexes.bundle(folder, "com.example.lib", "1.0.0", Map.of("Export-Package",
                "com.example.lib;version=1.0.0"));
    }

    private static Path tool(Path folder) throws Exception {
        return TestIndexes.bundle(folder, "com.example.tool", "1.0.0", Map.of("Import-Package",
                "com.example.lib;version=\"[1,2)\""));
    }

    /** A session whose config names catalogues. */
    private SessionContext session(List<String> catalogs) {
        return new SessionContext() {
            @Override
            public String id() {
                return "test";
            }

            @Override
            public Path workspace() {
                return temp;
            }

            @Override
            public Optional<Object> config(String key) {
                return key.equals("catalogs") ? Optional.of(catalogs) : Optional.empty();
            }

            @Override
            public Map<String, String> environment() {
                return Map.of();
            }

            @Override
            public AutoCloseable onConfigChange(Runnable listener) {
                return () -> { };
            }
        };
    }
}
