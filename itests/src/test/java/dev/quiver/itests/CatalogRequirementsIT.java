package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.TurnListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.BundleWiring;

/**
 * {@code install} on the whole host resolves a tool bundle's requirements against the running bundles
 * and the catalogue: the library it needs comes with it, one already running is used as it is, and a
 * requirement nothing provides is named while nothing is installed.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class CatalogRequirementsIT {

    private static final TurnListener QUIET = new TurnListener() { };
    private static final String NEEDS_LIB = ",com.example.lib;version=\"[1,2)\"";

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    private Path workspace;
    private TestCatalog catalog;

    @Configuration
    public Option[] configuration() {
        return HostOptions.platform();
    }

    @Before
    public void folders() throws Exception {
        Path temp = Files.createTempDirectory("quiver-requirements-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
        catalog = new TestCatalog(temp.resolve("catalog"));
        TestCatalog.config(workspace, "{\"catalogs\": [" + catalog.source(false) + "]}");
        // the plugins folder outlives each test's framework
        try (Stream<Path> kept = Files.list(Path.of(context.getProperty("quiver.plugins.dir")))) {
            for (Path file : kept.toList()) {
                Files.delete(file);
            }
        }
    }

    private Session session() {
        return kernel.open(TestCatalog.trusted(workspace));
    }

    private Path tool(String extraImports) throws Exception {
        return Bundles.tool(catalog.folder, "com.example.needs", "1.0.0", "needs_lib", "read", "echo", "with-lib", false,
                extraImports);
    }

    @Test
    public void aToolAndTheLibraryItNeedsInstallInOneCommandAndTheToolRuns() throws Exception {
        catalog.writeJars(tool(NEEDS_LIB), Bundles.library(catalog.folder, "com.example.lib", "1.0.0", "com.example.lib",
                "1.0.0"));
        try (Session session = session()) {
            Platform.BundleInfo installed = platform.install("com.example.needs");
            assertEquals("active", installed.state());
            Platform.BundleInfo library = info("com.example.lib");
            assertEquals("active", library.state());
            assertEquals(Platform.ORIGIN_CATALOG, library.origin());
            assertEquals(Optional.of("test"), library.catalog());
            assertEquals(find("com.example.lib"), wiredTo(find("com.example.needs"), "com.example.lib"));
            CallOutcome call = session.call("needs_lib", "{}", QUIET);
            assertEquals(call.output(), CallOutcome.Status.OK, call.status());
            assertEquals(List.of("com.example.lib-1.0.0.jar", "com.example.needs-1.0.0.jar"), kept());

            // removing the tool leaves the library: it is a bundle of its own, removed by name
            platform.remove("com.example.needs");
            assertEquals("active", info("com.example.lib").state());
        }
    }

    @Test
    public void aMissingRequirementIsNamedAndNothingIsInstalled() throws Exception {
        catalog.writeJars(tool(NEEDS_LIB));
        try (Session session = session()) {
            int before = context.getBundles().length;
            HostException refused = PlatformIT.expect(() -> platform.install("needs"));
            assertEquals("com.example.needs 1.0.0 was not installed: it needs osgi.wiring.package "
                    + "(&(osgi.wiring.package=com.example.lib)(version>=1.0.0)(!(version>=2.0.0))), which no running "
                    + "bundle and no usable catalogue provides. Nothing was installed.", refused.getMessage());
            assertEquals("the framework is unchanged", before, context.getBundles().length);
            assertEquals("plugins/ is unchanged", List.of(), kept());
            assertTrue(session.tools().stream().noneMatch(t -> t.name().equals("needs_lib")));
        }
    }

    @Test
    public void aLibraryAlreadyInstalledIsUsedAndNotInstalledAgain() throws Exception {
        catalog.writeJars(tool(NEEDS_LIB), Bundles.library(catalog.folder, "com.example.lib", "1.0.0", "com.example.lib",
                "1.0.0"));
        try (Session session = session()) {
            Platform.BundleInfo library = platform.install("com.example.lib");
            platform.install("com.example.needs");
            assertEquals(library.id(), info("com.example.lib").id());
            assertEquals(find("com.example.lib"), wiredTo(find("com.example.needs"), "com.example.lib"));
            assertEquals(1, Stream.of(context.getBundles()).filter(b -> "com.example.lib".equals(b.getSymbolicName()))
                    .count());
        }
    }

    @Test
    public void aLibraryOutsideTheVersionRangeIsNamedWithTheVersionItHas() throws Exception {
        catalog.writeJars(tool(",com.example.lib;version=\"[2,3)\""), Bundles.library(catalog.folder, "com.example.lib",
                "1.0.0", "com.example.lib", "1.0.0"));
        try (Session session = session()) {
            HostException refused = PlatformIT.expect(() -> platform.install("com.example.needs"));
            assertTrue(refused.getMessage(), refused.getMessage().contains("(&(osgi.wiring.package=com.example.lib)"
                    + "(version>=2.0.0)(!(version>=3.0.0)))") && refused.getMessage().contains(
                    "(com.example.lib 1.0.0 (catalogue test) exports it at 1.0.0)"));
            assertEquals(List.of(), kept());
        }
    }

    @Test
    public void aCatalogueBundleThatExportsQuiversApiIsRefused() throws Exception {
        catalog.writeJars(tool(",com.example.lib"), Bundles.library(catalog.folder, "com.example.lib", "1.0.0",
                "com.example.lib,dev.quiver.api", "1.99.0"));
        try (Session session = session()) {
            HostException refused = PlatformIT.expect(() -> platform.install("com.example.needs"));
            // the hand-written index does not describe the library: its manifest is read, and it is left out
            assertTrue(refused.getMessage(), refused.getMessage().contains("which no running bundle and no usable "
                    + "catalogue provides. Left out: com.example.lib 1.0.0 (it exports dev.quiver.api, a package of "
                    + "Quiver itself; only the distribution provides Quiver's packages)"));
            assertEquals(List.of(), kept());
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private Platform.BundleInfo info(String name) {
        return platform.bundles().stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not installed"));
    }

    private Bundle find(String name) {
        return Stream.of(context.getBundles()).filter(b -> name.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not installed"));
    }

    private static Bundle wiredTo(Bundle bundle, String packageName) {
        return bundle.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package").stream()
                .filter(w -> packageName.equals(w.getCapability().getAttributes().get("osgi.wiring.package")))
                .findFirst().orElseThrow().getProvider().getBundle();
    }

    private List<String> kept() throws Exception {
        try (Stream<Path> files = Files.list(Path.of(context.getProperty("quiver.plugins.dir")))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
