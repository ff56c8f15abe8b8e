package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.BundleContext;

/**
 * A folder watched by Felix FileInstall, as the distribution's deploy/: a jar dropped in brings its
 * tools, deleting it takes them away, and with the catalogues enforced a jar they do not list never
 * resolves, whether it was dropped before or after enforcement began.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class DeployFolderIT {

    private static final TurnListener QUIET = new TurnListener() { };
    private static Path deploy;

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    @Inject
    Platform platform;

    private Path temp;
    private Path workspace;

    @Configuration
    public Option[] configuration() throws Exception {
        deploy = Files.createTempDirectory("quiver-deploy");
        return HostOptions.withDeployFolder(deploy);
    }

    @Before
    public void folders() throws Exception {
        temp = Files.createTempDirectory("quiver-deploy-it");
        workspace = Files.createDirectories(temp.resolve("ws"));
    }

    private Path deployFolder() {
        return Path.of(context.getProperty("felix.fileinstall.dir"));
    }

    @Test
    public void droppingTheExampleIntoTheFolderBringsItsToolAndDeletingItTakesItAway() throws Exception {
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            Path jar = Files.copy(PlatformIT.exampleJar(), deployFolder().resolve("hello-tool-1.0.0.jar"));
            awaitTrue("the hello tool appears", () -> has(session, "hello"));
            ToolInfo hello = session.registered().stream().filter(t -> t.name().equals("hello")).findFirst().get();
            assertEquals(Optional.of("auto-approve requested, not trusted"), hello.note());
            Platform.BundleInfo info = info("com.example.hello").get();
            assertEquals(Platform.ORIGIN_DEPLOY, info.origin());
            assertTrue(!info.trusted());

            Files.delete(jar);
            awaitTrue("the hello tool disappears", () -> !has(session, "hello"));
            awaitTrue("its bundle is uninstalled", () -> info("com.example.hello").isEmpty());
        }
    }

    @Test
    public void withTheCataloguesEnforcedAJarTheyDoNotListIsInstalledButNeverResolves() throws Exception {
        TestCatalog catalog = new TestCatalog(temp.resolve("catalog"));
        Path listed = Bundles.tool(catalog.folder, "com.example.listed", "1.0.0", "listed", "read", "echo", "ok", false);
        catalog.writeJars(listed);
        TestCatalog.config(workspace, "{\"catalogs\": {\"enforce\": true, \"sources\": [" + catalog.source(false) + "]}}");
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            assertTrue(platform.enforcing());
            Files.copy(Bundles.tool(temp, "com.example.stranger", "1.0.0", "stranger", "read", "echo", "no", false),
                    deployFolder().resolve("stranger.jar"));
            Files.copy(listed, deployFolder().resolve("listed.jar"));
            try {
                awaitTrue("the listed tool appears", () -> has(session, "listed"));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": " + platform.bundles().stream()
                        .filter(b -> b.name().startsWith("com.example")).toList() + " locations "
                        + java.util.Arrays.stream(context.getBundles()).map(b -> b.getLocation()).toList());
            }
            awaitTrue("the stranger is installed", () -> info("com.example.stranger").isPresent());
            Thread.sleep(1000); // FileInstall has tried to start it by now
            Platform.BundleInfo stranger = info("com.example.stranger").get();
            assertEquals("installed", stranger.state());
            assertTrue(stranger.toString(), stranger.problem().orElse("").startsWith("refused: its content")
                    && stranger.problem().get().contains("in no catalogue"));
            assertTrue(!has(session, "stranger"));
            CallOutcome call = session.call("stranger", "{}", QUIET);
            assertTrue(call.output(), call.output().contains("No tool named 'stranger'"));
        }
    }

    @Test
    public void whenASessionTurnsEnforcementOnARunningJarOutsideTheCataloguesIsStopped() throws Exception {
        try (Session open = kernel.open(TestCatalog.trusted(workspace))) {
            Files.copy(Bundles.tool(temp, "com.example.early", "1.0.0", "early", "read", "echo", "e", false),
                    deployFolder().resolve("early.jar"));
            awaitTrue("the early tool appears", () -> has(open, "early"));

            Path strict = Files.createDirectories(temp.resolve("strict"));
            TestCatalog catalog = new TestCatalog(temp.resolve("catalog")).writeJars();
            TestCatalog.config(strict, "{\"catalogs\": {\"enforce\": true, \"sources\": [" + catalog.source(false) + "]}}");
            try (Session enforcing = kernel.open(TestCatalog.trusted(strict))) {
                awaitTrue("the early tool is gone", () -> !has(enforcing, "early"));
                Platform.BundleInfo early = info("com.example.early").get();
                assertEquals("installed", early.state());
                assertTrue(early.toString(), early.problem().orElse("").startsWith("refused"));
            }
        }
    }

    @Test
    public void aJarThatIsNotABundleInTheFolderHarmsNothing() throws Exception {
        Files.writeString(workspace.resolve("notes.txt"), "fine\n");
        try (Session session = kernel.open(TestCatalog.trusted(workspace))) {
            Files.copy(Bundles.plainJar(temp, "plain"), deployFolder().resolve("plain.jar"));
            Files.writeString(deployFolder().resolve("broken.jar"), "this is not a zip file");
            Thread.sleep(1500);
            CallOutcome read = session.call("read_file", "{\"path\":\"notes.txt\"}", QUIET);
            assertEquals(read.output(), CallOutcome.Status.OK, read.status());
            assertTrue(platform.bundles().stream().allMatch(b -> !b.state().equals("uninstalled")));
        }
    }

    private static boolean has(Session session, String tool) {
        return session.tools().stream().anyMatch(t -> t.name().equals(tool));
    }

    private Optional<Platform.BundleInfo> info(String name) {
        return platform.bundles().stream().filter(b -> b.name().equals(name)).findFirst();
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("timed out waiting until " + what);
    }
}
