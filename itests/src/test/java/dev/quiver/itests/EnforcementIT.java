package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.osgi.framework.BundleException;

/**
 * Enforcement of the catalogues on bundles installed by anyone (here: directly through the framework,
 * as a shell command or another bundle would), including the cases a resolver hook alone gets wrong.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class EnforcementIT {

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    private Path temp;
    private Path workspace;
    private TestCatalog catalog;

    @Configuration
    public Option[] configuration() {
        return HostOptions.platform();
    }

    @Before
    public void enforcingWorkspace() throws Exception {
        temp = Files.createTempDirectory("quiver-enforcement-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
        catalog = new TestCatalog(temp.resolve("catalog"));
    }

    private void enforce() throws Exception {
        TestCatalog.config(workspace, "{\"catalogs\": {\"enforce\": true, \"sources\": [" + catalog.source(false) + "]}}");
    }

    @Test
    public void aRefusedBundleLeftInstalledDoesNotKeepCataloguedBundlesFromResolving() throws Exception {
        // Felix 7.0.5 filters every provider by a resolver hook's resolvable set when the hook shrinks it
        Path listed = Bundles.tool(catalog.folder, "com.example.listed", "1.0.0", "listed", "read", "echo", "ok", false);
        catalog.writeJars(listed);
        enforce();
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            Bundle stranger = context.installBundle(Bundles.tool(temp, "com.example.stranger", "1.0.0", "stranger", "read",
                    "echo", "no", false).toUri().toString());
            try {
                stranger.start();
            } catch (BundleException expected) {
                // refused
            }
            Bundle copy = context.installBundle(Files.copy(listed, temp.resolve("listed.jar")).toUri().toString());
            copy.start();
            assertEquals(Bundle.ACTIVE, copy.getState());
            assertEquals(Bundle.INSTALLED, stranger.getState());
            assertTrue(session.tools().stream().anyMatch(t -> t.name().equals("listed")));
            assertTrue(platform.bundles().stream().filter(b -> b.name().equals("com.example.stranger"))
                    .allMatch(b -> b.problem().orElse("").startsWith("refused")));
            Bundle tools = java.util.Arrays.stream(context.getBundles())
                    .filter(b -> "dev.quiver.tools.edit.plus".equals(b.getSymbolicName())).findFirst().orElseThrow();
            tools.stop();
            tools.start();
            assertEquals("the installation's own bundles still start", Bundle.ACTIVE, tools.getState());
        }
    }

    @Test
    public void aBundleWithoutAnyRequirementResolvesButNoneOfItsClassesLoad() throws Exception {
        catalog.writeJars();
        enforce();
        System.clearProperty("quiver.fixture.sneaky");
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            Bundle sneaky = context.installBundle(Bundles.sneaky(temp).toUri().toString());
            sneaky.start();
            Thread.sleep(500); // the component runtime creates immediate components on its own thread
            assertEquals("its component never ran", null, System.getProperty("quiver.fixture.sneaky"));
            try {
                sneaky.loadClass("dev.quiver.itests.fixture.Sneaky");
                throw new AssertionError("a class of a refused bundle loaded");
            } catch (ClassNotFoundException | LinkageError refused) {
                // the weaving hook refused to define it
            }
        }
    }

    @Test
    public void withoutEnforcementTheSameBundlesRun() throws Exception {
        System.clearProperty("quiver.fixture.sneaky");
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            assertTrue(!platform.enforcing());
            Bundle sneaky = context.installBundle(Bundles.sneaky(temp).toUri().toString());
            sneaky.start();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (System.getProperty("quiver.fixture.sneaky") == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals("ran", System.getProperty("quiver.fixture.sneaky"));
        }
    }
}
