package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;

/**
 * Bundles that misbehave, installed the way anything from outside arrives (not through a catalogue):
 * each is reported clearly — by the call that hit it, or by the platform's listing — and the host
 * goes on serving the other tools.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class BadBundlesIT {

    private static final TurnListener QUIET = new TurnListener() { };

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    private Path temp;
    private Path workspace;
    private Bundle bad;

    @Configuration
    public Option[] configuration() {
        return HostOptions.platform();
    }

    @Before
    public void folders() throws Exception {
        temp = Files.createTempDirectory("quiver-bad-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("notes.txt"), "still here\n");
    }

    @After
    public void uninstall() throws BundleException {
        if (bad != null && bad.getState() != Bundle.UNINSTALLED) {
            bad.uninstall();
        }
    }

    private Bundle install(Path jar) throws BundleException {
        bad = context.installBundle(jar.toUri().toString());
        return bad;
    }

    private void assertHostServes(Session session) {
        CallOutcome read = session.call("read_file", "{\"path\":\"notes.txt\"}", QUIET);
        assertEquals("the host is unaffected: " + read.output(), CallOutcome.Status.OK, read.status());
        assertTrue(read.output().contains("still here"));
    }

    @Test
    public void aComponentThatThrowsInActivateIsNotOfferedAndTheListingSaysWhy() throws Exception {
        install(Bundles.tool(temp, "com.example.grumpy", "1.0.0", "grumpy", "read", "activate-throws", "x", false)).start();
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertTrue(session.tools().stream().noneMatch(t -> t.name().equals("grumpy")));
            CallOutcome call = session.call("grumpy", "{}", QUIET);
            assertEquals(CallOutcome.Status.ERROR, call.status());
            assertTrue(call.output(), call.output().contains("No tool named 'grumpy'"));
            Platform.BundleInfo info = info("com.example.grumpy");
            assertEquals("active", info.state());
            assertTrue(info.toString(), info.problem().orElse("").contains("failed to activate")
                    && info.problem().get().contains("the fixture refused to activate"));
            assertHostServes(session);
        }
    }

    @Test
    public void aToolThatThrowsFailsItsCallWithTheReasonAndNothingElse() throws Exception {
        install(Bundles.tool(temp, "com.example.boom", "1.0.0", "boom", "read", "throw", "x", false)).start();
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            CallOutcome call = session.call("boom", "{}", QUIET);
            assertEquals(CallOutcome.Status.ERROR, call.status());
            assertEquals("boom failed: IllegalStateException: the fixture tool exploded", call.output());
            assertHostServes(session);
            assertEquals("it can be called again", CallOutcome.Status.ERROR, session.call("boom", "{}", QUIET).status());
        }
    }

    @Test
    public void aToolThatNeverReturnsIsCutByTheToolTimeout() throws Exception {
        TestCatalog.config(workspace, "{\"toolTimeout\": 1}");
        install(Bundles.tool(temp, "com.example.sloth", "1.0.0", "sloth", "read", "hang", "x", false)).start();
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            long started = System.nanoTime();
            CallOutcome call = session.call("sloth", "{}", QUIET);
            long seconds = (System.nanoTime() - started) / 1_000_000_000L;
            assertEquals(CallOutcome.Status.ERROR, call.status());
            assertTrue(call.output(), call.output().contains("did not return within 1 s and was cancelled"));
            assertTrue("cut after the timeout and the grace period, not after the tool: " + seconds + " s", seconds < 10);
            assertHostServes(session);
        }
    }

    @Test
    public void aBundleWithAnUnresolvableImportStaysInstalledAndTheListingNamesThePackage() throws Exception {
        Bundle needy = install(Bundles.tool(temp, "com.example.needy", "1.0.0", "needy", "read", "echo", "x", false,
                ",com.example.missing;version=\"[1,2)\""));
        try {
            needy.start();
        } catch (BundleException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("com.example.missing"));
        }
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            Platform.BundleInfo info = info("com.example.needy");
            assertEquals("installed", info.state());
            assertEquals(java.util.Optional.of("does not resolve: it imports com.example.missing, which no installed "
                    + "bundle exports"), info.problem());
            assertTrue(session.tools().stream().noneMatch(t -> t.name().equals("needy")));
            assertHostServes(session);
        }
    }

    @Test
    public void aJarThatIsNotABundleRunsNothingAndHarmsNothing() throws Exception {
        Bundle plain = install(Bundles.plainJar(temp, "plain"));
        try {
            plain.start();
        } catch (BundleException refused) {
            // the framework may refuse a jar without OSGi headers outright; either way nothing runs
        }
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertTrue(platform.bundles().stream().filter(b -> b.id() == plain.getBundleId())
                    .allMatch(b -> b.tools().isEmpty()));
            assertHostServes(session);
        }
    }

    private Platform.BundleInfo info(String name) {
        return platform.bundles().stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not installed"));
    }
}
