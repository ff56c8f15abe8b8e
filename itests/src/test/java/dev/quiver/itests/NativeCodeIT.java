package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.namespace.NativeNamespace;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * dev.quiver.bash and dev.quiver.tools.nav declare tree-sitter's natives (Bundle-NativeCode) for Linux
 * on x86-64 and on aarch64. Real Felix resolves the host's bundles and the nav bundle as it would on
 * each platform, told the platform by its OS name and processor properties: where a clause matches,
 * Felix also checks that every library the clause names is in the bundle, so both architectures' paths
 * are checked on either machine. Elsewhere the host still resolves (bash's clause list ends in "*") and
 * the nav bundle does not, naming the native requirement.
 */
public class NativeCodeIT {

    private static final String BASH = "dev.quiver.bash";
    private static final String NAV = "dev.quiver.tools.nav";

    @Rule
    public TemporaryFolder temp = new TemporaryFolder();

    private Framework framework;

    @After
    public void stop() throws Exception {
        if (framework != null) {
            framework.stop();
            framework.waitForStop(10_000);
        }
    }

    @Test
    public void onLinuxX8664TheHostAndTheNavBundleResolveWithTheLibrariesTheyDeclare() throws Exception {
        start("Linux", "x86-64").values().forEach(NativeCodeIT::assertResolved);
    }

    @Test
    public void onLinuxAarch64TheHostAndTheNavBundleResolveWithTheLibrariesTheyDeclare() throws Exception {
        start("Linux", "aarch64").values().forEach(NativeCodeIT::assertResolved);
    }

    @Test
    public void elsewhereTheHostStillResolvesAndTheNavBundleNamesTheNativeRequirement() throws Exception {
        Map<String, Bundle> bundles = start("Linux", "riscv64");
        // the kernel imports dev.quiver.bash, so the host resolves only if bash does without natives
        bundles.values().stream().filter(bundle -> !bundle.getSymbolicName().equals(NAV)).forEach(NativeCodeIT::assertResolved);
        assertEquals(Bundle.INSTALLED, bundles.get(NAV).getState());
        try {
            bundles.get(NAV).start();
            fail("dev.quiver.tools.nav started on a platform without its natives");
        } catch (BundleException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("osgi.native")
                    && e.getMessage().contains("osgi.native.processor~=x86-64")
                    && e.getMessage().contains("osgi.native.processor~=aarch64"));
        }
        assertEquals("a Mac is another platform too", Bundle.INSTALLED, start("Mac OS X", "aarch64").get(NAV).getState());
    }

    @Test
    public void theBashRequirementIsOptionalAndTheNavOneIsNot() throws Exception {
        Map<String, Bundle> bundles = start("Linux", "x86-64");
        assertEquals(Constants.RESOLUTION_OPTIONAL, nativeRequirement(bundles.get(BASH)).getDirectives().get(Constants.RESOLUTION_DIRECTIVE));
        assertNull(nativeRequirement(bundles.get(NAV)).getDirectives().get(Constants.RESOLUTION_DIRECTIVE));
    }

    /**
     * A fresh framework told it runs on this OS and processor, with the host's bundles (target/bundles,
     * as the distribution has them) and dev.quiver.tools.nav installed and resolved; by symbolic name.
     */
    private Map<String, Bundle> start(String osName, String processor) throws Exception {
        stop();
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, temp.newFolder().getAbsolutePath());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put(Constants.FRAMEWORK_OS_NAME, osName);
        config.put(Constants.FRAMEWORK_PROCESSOR, processor);
        framework = new FrameworkFactory().newFramework(config);
        framework.start();
        List<Path> jars = new ArrayList<>();
        try (Stream<Path> host = Files.list(Path.of(System.getProperty("itest.bundles", "target/bundles")))) {
            host.filter(jar -> jar.toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        jars.add(jarHolding("dev/quiver/tools/nav/Natives.class"));
        Map<String, Bundle> bundles = new HashMap<>();
        for (Path jar : jars) {
            Bundle bundle = framework.getBundleContext().installBundle("reference:" + jar.toUri());
            bundles.put(bundle.getSymbolicName(), bundle);
        }
        assertTrue("the host's bundles are installed: " + bundles.keySet(), bundles.containsKey(BASH) && bundles.containsKey("dev.quiver.kernel"));
        framework.adapt(FrameworkWiring.class).resolveBundles(null);
        return bundles;
    }

    /** Fails with the resolver's own words, which starting an unresolved bundle gives. */
    private static void assertResolved(Bundle bundle) {
        if (bundle.getState() != Bundle.RESOLVED) {
            try {
                bundle.start();
                fail(bundle.getSymbolicName() + " was not resolved but started");
            } catch (BundleException e) {
                throw new AssertionError(bundle.getSymbolicName() + " is not resolved: " + e.getMessage(), e);
            }
        }
    }

    private static BundleRequirement nativeRequirement(Bundle bundle) {
        List<BundleRequirement> requirements = bundle.adapt(BundleRevision.class).getDeclaredRequirements(NativeNamespace.NATIVE_NAMESPACE);
        assertEquals(bundle.getSymbolicName() + " declares one native requirement", 1, requirements.size());
        return requirements.get(0);
    }

    private static Path jarHolding(String resource) {
        URL url = NativeCodeIT.class.getClassLoader().getResource(resource);
        assertNotNull(resource + " is on the test class path", url);
        String jar = url.toString();
        assertTrue(resource + " is in a jar, not in a classes folder: " + jar, jar.startsWith("jar:file:"));
        return Path.of(URI.create(jar.substring("jar:".length(), jar.indexOf("!/"))));
    }
}
