package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import java.io.File;
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

/**
 * The Platform service over real catalogues: installing checks the jar against the index first,
 * signatures are required where a key is configured, updates and removals refresh the framework,
 * trust follows the catalogue's policy, and every refusal says what was wrong and leaves nothing
 * installed.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class PlatformIT {

    private static final TurnListener QUIET = new TurnListener() { };

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
    public void folders() throws Exception {
        temp = Files.createTempDirectory("quiver-platform-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
        catalog = new TestCatalog(temp.resolve("catalog"));
        try (Stream<Path> kept = Files.list(plugins())) {
            for (Path file : kept.toList()) {
                Files.delete(file);
            }
        }
    }

    private Session session() {
        return kernel.open(TestCatalog.trusted(workspace));
    }

    private void useCatalog(boolean signed, String... trusted) throws Exception {
        TestCatalog.config(workspace, "{\"catalogs\": [" + catalog.source(signed, trusted) + "]}");
    }

    private Path echoTool(String version, String label) throws Exception {
        return Bundles.tool(catalog.folder, "com.example.echo", version, "echo_tool", "read", "echo", label, false);
    }

    @Test
    public void installingFromACatalogueMakesTheToolCallableAndKeepsTheCheckedJar() throws Exception {
        Path jar = echoTool("1.0.0", "v1");
        catalog.writeJars(jar);
        useCatalog(false);
        try (Session session = session()) {
            assertTrue(platform.entries().stream().anyMatch(e -> e.name().equals("com.example.echo") && e.providesTools()));
            Platform.BundleInfo installed = platform.install("echo");
            assertEquals("com.example.echo", installed.name());
            assertEquals("active", installed.state());
            assertEquals(Platform.ORIGIN_CATALOG, installed.origin());
            assertEquals(Optional.of("test"), installed.catalog());
            assertEquals(List.of("echo_tool"), installed.tools());

            CallOutcome call = session.call("echo_tool", "{}", QUIET);
            assertEquals(call.output(), CallOutcome.Status.OK, call.status());
            assertEquals("echo_tool v1", call.output());

            Path kept = plugins().resolve("com.example.echo-1.0.0.jar");
            assertTrue("kept for later processes", Files.exists(kept));
            assertEquals(TestCatalog.sha256(jar), TestCatalog.sha256(kept));

            HostException again = expect(() -> platform.install("com.example.echo"));
            assertTrue(again.getMessage(), again.getMessage().contains("is already installed"));
        }
    }

    @Test
    public void aJarWhoseSha256DiffersFromTheIndexIsRefusedAndNothingIsInstalled() throws Exception {
        Path jar = echoTool("1.0.0", "v1");
        catalog.write(List.of(new TestCatalog.Entry(jar, "ab".repeat(32))));
        useCatalog(false);
        try (Session session = session()) {
            HostException refused = expect(() -> platform.install("com.example.echo"));
            assertTrue(refused.getMessage(), refused.getMessage().contains("does not match catalogue test")
                    && refused.getMessage().contains(TestCatalog.sha256(jar))
                    && refused.getMessage().contains("Nothing was installed"));
            assertNull("com.example.echo");
            assertTrue(session.tools().stream().noneMatch(t -> t.name().equals("echo_tool")));
            try (Stream<Path> kept = Files.list(plugins())) {
                assertEquals(0, kept.count());
            }
        }
    }

    @Test
    public void aSignedCatalogueIsUsedOnlyWhileItsSignatureVerifies() throws Exception {
        Path jar = echoTool("1.0.0", "v1");
        catalog.writeJars(jar);
        useCatalog(true);
        try (Session session = session()) {
            Platform.CatalogInfo missing = platform.catalogs().get(0);
            assertTrue(missing.toString(), missing.problem().orElse("").contains("must be signed")
                    && missing.problem().get().contains("missing"));
            HostException unsigned = expect(() -> platform.install("com.example.echo"));
            assertTrue(unsigned.getMessage(), unsigned.getMessage().contains("No catalogue offers 'com.example.echo'")
                    && unsigned.getMessage().contains("must be signed"));

            catalog.sign();
            assertEquals(Optional.empty(), platform.catalogs().get(0).problem());
            assertTrue(platform.catalogs().get(0).signed());

            // the index changes after signing: someone added a bundle without the key
            catalog.writeJars(jar, Bundles.tool(catalog.folder, "com.example.evil", "1.0.0", "evil", "execute", "echo",
                    "x", true));
            Platform.CatalogInfo tampered = platform.catalogs().get(0);
            assertTrue(tampered.toString(), tampered.problem().orElse("").contains("does not verify"));
            assertTrue(platform.entries().isEmpty());
            HostException refused = expect(() -> platform.install("com.example.evil"));
            assertTrue(refused.getMessage(), refused.getMessage().contains("does not verify"));
            assertNull("com.example.evil");

            catalog.sign();
            assertEquals("active", platform.install("com.example.echo").state());
            assertTrue(platform.verify().stream().anyMatch(f -> f.ok() && f.message().contains("signature verified")));
        }
    }

    @Test
    public void updateReplacesTheRevisionAndRemoveUnloadsTheToolAndForgetsTheJar() throws Exception {
        catalog.writeJars(echoTool("1.0.0", "v1"));
        useCatalog(false);
        try (Session session = session()) {
            platform.install("com.example.echo");
            assertEquals("echo_tool v1", session.call("echo_tool", "{}", QUIET).output());

            catalog.writeJars(echoTool("1.1.0", "v2"));
            Platform.BundleInfo updated = platform.update("echo");
            assertEquals("1.1.0", updated.version());
            assertEquals("echo_tool v2", session.call("echo_tool", "{}", QUIET).output());
            assertFalse("the old jar is forgotten", Files.exists(plugins().resolve("com.example.echo-1.0.0.jar")));
            assertTrue(Files.exists(plugins().resolve("com.example.echo-1.1.0.jar")));
            assertEquals("unchanged when already the catalogue's", updated.id(), platform.update("echo").id());

            platform.remove("com.example.echo");
            assertNull("com.example.echo");
            CallOutcome gone = session.call("echo_tool", "{}", QUIET);
            assertEquals(CallOutcome.Status.ERROR, gone.status());
            assertTrue(gone.output(), gone.output().startsWith("Tool echo_tool was unloaded"));
            try (Stream<Path> kept = Files.list(plugins())) {
                assertEquals(0, kept.count());
            }
            HostException notThere = expect(() -> platform.remove("com.example.echo"));
            assertTrue(notThere.getMessage(), notThere.getMessage().contains("No bundle named 'com.example.echo'"));
        }
    }

    @Test
    public void autoApprovalIsHonouredOnlyForBundlesTheCatalogueTrusts() throws Exception {
        Path hello = Files.copy(exampleJar(), catalog.folder.resolve("hello-tool-1.0.0.jar"));
        catalog.writeJars(hello);
        useCatalog(false);
        try (Session session = session()) {
            platform.install("com.example.hello");
            ToolInfo untrusted = tool(session, "hello");
            assertEquals(Decision.ASK, untrusted.decision());
            assertEquals(Optional.of("auto-approve requested, not trusted"), untrusted.note());
            assertFalse(info("com.example.hello").trusted());
            CallOutcome refused = session.call("hello", "{\"name\":\"Ada\"}", QUIET);
            assertEquals(refused.output(), CallOutcome.Status.DENIED, refused.status());
        }
        useCatalog(false, "com.example.hello");
        try (Session session = session()) {
            ToolInfo trusted = tool(session, "hello");
            assertEquals(Decision.ALLOW, trusted.decision());
            assertEquals(Optional.of("auto-approved (trusted bundle)"), trusted.note());
            assertTrue(info("com.example.hello").trusted());
            CallOutcome ran = session.call("hello", "{\"name\":\"Ada\"}", QUIET);
            assertEquals(ran.output(), CallOutcome.Status.OK, ran.status());
            assertEquals("Hello, Ada!\n", Files.readString(workspace.resolve("hello.txt")));
        }
        try (Session session = session()) {
            // with its catalogue gone, nothing vouches for the bundle any more
            TestCatalog.config(workspace, "{\"catalogs\": []}");
            assertFalse(info("com.example.hello").trusted());
            assertEquals(Decision.ASK, tool(session, "hello").decision());
        }
    }

    @Test
    public void aJarThatIsNotABundleOrDoesNotResolveIsRefusedWithWhyAndLeavesNothingInstalled() throws Exception {
        Path plain = Bundles.plainJar(catalog.folder, "com.example.plain");
        Path unresolvable = Bundles.tool(catalog.folder, "com.example.needy", "1.0.0", "needy", "read", "echo", "x", false,
                ",com.example.missing;version=\"[1,2)\"");
        catalog.writeJars(plain, unresolvable);
        useCatalog(false);
        try (Session session = session()) {
            HostException notBundle = expect(() -> platform.install("com.example.plain"));
            assertTrue(notBundle.getMessage(), notBundle.getMessage().contains("is not an OSGi bundle")
                    && notBundle.getMessage().contains("Nothing was installed"));

            HostException needy = expect(() -> platform.install("com.example.needy"));
            assertTrue(needy.getMessage(), needy.getMessage().contains("it needs osgi.wiring.package "
                    + "(&(osgi.wiring.package=com.example.missing)(version>=1.0.0)(!(version>=2.0.0)))")
                    && needy.getMessage().endsWith("Nothing was installed."));
            assertNull("com.example.needy");
            try (Stream<Path> kept = Files.list(plugins())) {
                assertEquals(0, kept.count());
            }
            CallOutcome host = session.call("read_file", "{\"path\":\".quiver/config.json\"}", QUIET);
            assertEquals("the host is unaffected: " + host.output(), CallOutcome.Status.OK, host.status());
        }
    }

    @Test
    public void verifyReportsEachCatalogueEachJarAndEveryBundleOutsideTheCatalogues() throws Exception {
        Path good = echoTool("1.0.0", "v1");
        Path lying = Bundles.tool(catalog.folder, "com.example.liar", "1.0.0", "liar", "read", "echo", "x", false);
        catalog.write(List.of(TestCatalog.Entry.of(good), new TestCatalog.Entry(lying, "cd".repeat(32))));
        useCatalog(false);
        Bundle stray = context.installBundle(Bundles.tool(temp, "com.example.stray", "1.0.0", "stray", "read", "echo", "s",
                false).toUri().toString());
        stray.start();
        try (Session session = session()) {
            List<Platform.Finding> findings = platform.verify();
            assertFalse("problems first", findings.get(0).ok());
            assertTrue(findings.toString(), findings.stream().anyMatch(f -> f.ok() && f.subject().equals("com.example.echo 1.0.0")
                    && f.message().contains("matches catalogue test")));
            assertTrue(findings.toString(), findings.stream().anyMatch(f -> !f.ok()
                    && f.subject().equals("com.example.liar 1.0.0") && f.message().contains("does not match")));
            assertTrue(findings.toString(), findings.stream().anyMatch(f -> !f.ok()
                    && f.subject().startsWith("com.example.stray") && f.message().contains("in no catalogue")));
            assertTrue(findings.toString(), findings.stream().anyMatch(f -> f.ok() && f.message().contains("not signed")));
        }
    }

    @Test
    public void bundlesThePlatformDidNotInstallAreNotItsToRemove() throws Exception {
        useCatalog(false);
        try (Session session = session()) {
            HostException refused = expect(() -> platform.remove("tools.core"));
            assertTrue(refused.getMessage(), refused.getMessage().contains("dev.quiver.tools.core")
                    && refused.getMessage().contains("does not manage it"));
            assertNotNull(find("dev.quiver.tools.core"));
            HostException nothing = expect(() -> platform.install("nothing.at.all"));
            assertTrue(nothing.getMessage(), nothing.getMessage().contains("No catalogue offers 'nothing.at.all'"));
            assertTrue(platform.bundles().stream().anyMatch(b -> b.name().equals("dev.quiver.kernel")
                    && b.state().equals("active") && b.problem().isEmpty()));
            assertEquals(List.of("bash", "bash_status", "bash_stop", "edit_file", "glob", "grep", "read_file",
                    "read_many_files", "write_file"), info("dev.quiver.tools.core").tools());
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private Path plugins() {
        return Path.of(context.getProperty("quiver.plugins.dir"));
    }

    private Platform.BundleInfo info(String name) {
        return platform.bundles().stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not installed"));
    }

    private static ToolInfo tool(Session session, String name) {
        return session.registered().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not registered: " + session.registered()));
    }

    private Bundle find(String name) {
        for (Bundle bundle : context.getBundles()) {
            if (name.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        return null;
    }

    private void assertNull(String name) {
        assertTrue(name + " must not be installed", find(name) == null);
    }

    /** The example's jar, from the test class path (the build puts it there). */
    static Path exampleJar() {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("hello-tool") && entry.endsWith(".jar")) {
                return Path.of(entry);
            }
        }
        throw new AssertionError("examples/hello-tool's jar is not on the class path");
    }

    interface Action {
        void run() throws Exception;
    }

    static HostException expect(Action action) throws Exception {
        try {
            action.run();
        } catch (HostException e) {
            return e;
        }
        fail("expected a refusal");
        return null;
    }
}
