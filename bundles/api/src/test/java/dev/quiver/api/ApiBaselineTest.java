package dev.quiver.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import aQute.bnd.differ.Baseline;
import aQute.bnd.differ.DiffPluginImpl;
import aQute.bnd.header.OSGiHeader;
import aQute.bnd.header.Parameters;
import aQute.bnd.osgi.Constants;
import aQute.bnd.osgi.FileResource;
import aQute.bnd.osgi.Instructions;
import aQute.bnd.osgi.Jar;
import aQute.bnd.osgi.Processor;
import aQute.bnd.service.diff.Delta;
import aQute.bnd.version.Version;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.jar.Manifest;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build baselines this bundle (bnd-baseline-maven-plugin in this module's pom) against the API as
 * last released, the committed {@code baseline/dev.quiver.api-COMMIT.jar}, and fails when a package
 * changed more than its version says. These tests run bnd's baseline as that plugin does, on the bundle
 * as built and on the same bundle with breaking changes made to it, so a check that cannot fail is seen.
 */
class ApiBaselineTest {

    private static final Path BASELINE = Path.of(System.getProperty("quiver.api.baseline"));
    private static final Path CLASSES = Path.of(System.getProperty("quiver.api.classes"));
    private static final Path SOURCES = Path.of(System.getProperty("quiver.api.sources"));

    @TempDir
    Path temp;

    @Test
    void theApiAsBuiltHasTheVersionsItsChangesSinceTheBaselineNeed() throws Exception {
        try (Jar built = new Jar(CLASSES.toFile()); Jar baseline = new Jar(BASELINE.toFile())) {
            List<Baseline.Info> infos = baseline(built, baseline);
            assertEquals(List.of(), mismatches(infos));
            assertTrue(infos.stream().anyMatch(info -> info.packageName.equals("dev.quiver.api")), "dev.quiver.api was compared");
            assertTrue(infos.stream().anyMatch(info -> info.packageName.equals("dev.quiver.api.host")), "dev.quiver.api.host was compared");
            assertEquals(List.of(), lostExports(built, baseline));
        }
    }

    /** {@code Tool} is a consumer type: every tool bundle implements it, so a new abstract method breaks them all. */
    @Test
    void aMethodAddedToToolWhichEveryToolBundleImplementsNeedsANewMajorVersion() throws Exception {
        try (Jar built = withToolMethodAdded(); Jar baseline = new Jar(BASELINE.toFile())) {
            Baseline.Info api = info(baseline(built, baseline), "dev.quiver.api");
            assertEquals(Delta.MAJOR, api.packageDiff.getDelta());
            assertTrue(api.mismatch, "a breaking change at " + api.newerVersion + " must fail the build");
            assertEquals(new Version(api.olderVersion.getMajor() + 1, 0, 0), api.suggestedVersion);
        }
    }

    /** The check is about the version: the same change under a new major version passes. */
    @Test
    void theSameMethodWithTheMajorVersionRaisedPasses() throws Exception {
        try (Jar built = withToolMethodAdded(); Jar baseline = new Jar(BASELINE.toFile())) {
            Version major = new Version(exports(baseline).get("dev.quiver.api").getMajor() + 1, 0, 0);
            editExports(built, exports -> exports.get("dev.quiver.api").put(Constants.VERSION_ATTRIBUTE, major.toString()));
            Baseline.Info api = info(baseline(built, baseline), "dev.quiver.api");
            assertEquals(Delta.MAJOR, api.packageDiff.getDelta());
            assertFalse(api.mismatch, "the major version was raised to " + major);
        }
    }

    @Test
    void aClassTakenOutOfTheHostApiNeedsANewMajorVersion() throws Exception {
        try (Jar built = new Jar(CLASSES.toFile()); Jar baseline = new Jar(BASELINE.toFile())) {
            assertNotEquals(null, built.remove("dev/quiver/api/host/Usage.class"));
            Baseline.Info host = info(baseline(built, baseline), "dev.quiver.api.host");
            assertEquals(Delta.MAJOR, host.packageDiff.getDelta());
            assertTrue(host.mismatch, "removing a class at " + host.newerVersion + " must fail the build");
        }
    }

    /**
     * bnd reports a package that is no longer exported as removed, not as a mismatch, and checks the
     * bundle's own version only from 1.0 on (this bundle is 0.1): so a lost export is checked here.
     */
    @Test
    void aPackageNoLongerExportedPassesBndSoThisTestCatchesIt() throws Exception {
        try (Jar built = new Jar(CLASSES.toFile()); Jar baseline = new Jar(BASELINE.toFile())) {
            editExports(built, exports -> exports.remove("dev.quiver.api.host"));
            assertEquals(List.of(), mismatches(baseline(built, baseline)));
            assertEquals(List.of("dev.quiver.api.host"), lostExports(built, baseline));
        }
    }

    /** The bundle as built with {@code String addedByTheTest();} added to {@code Tool}, compiled from its real source. */
    private Jar withToolMethodAdded() throws Exception {
        String declaration = "public interface Tool {";
        String source = Files.readString(SOURCES.resolve("dev/quiver/api/Tool.java"), StandardCharsets.UTF_8);
        assertTrue(source.contains(declaration), "Tool.java declares " + declaration);
        Path file = Files.createDirectories(temp.resolve("src/dev/quiver/api")).resolve("Tool.java");
        Files.writeString(file, source.replace(declaration, declaration + "\n    String addedByTheTest();\n"));
        Path out = Files.createDirectories(temp.resolve("classes"));
        String classPath = CLASSES + File.pathSeparator
                + Path.of(org.osgi.annotation.versioning.ConsumerType.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        int status = ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "--release", "17", "-proc:none", "-cp", classPath, "-d", out.toString(), file.toString());
        assertEquals(0, status, "the changed Tool.java compiles");
        Jar jar = new Jar(CLASSES.toFile());
        jar.putResource("dev/quiver/api/Tool.class", new FileResource(out.resolve("dev/quiver/api/Tool.class")));
        return jar;
    }

    /** Baselines as bnd-baseline-maven-plugin does with its defaults: every package, nothing ignored. */
    private static List<Baseline.Info> baseline(Jar newer, Jar older) throws Exception {
        try (Processor processor = new Processor()) {
            Baseline baseliner = new Baseline(processor, new DiffPluginImpl());
            List<Baseline.Info> infos = new ArrayList<>(baseliner.baseline(newer, older, new Instructions(new Parameters("*", processor))));
            assertTrue(processor.isOk(), () -> "bnd reported " + processor.getErrors());
            return infos;
        }
    }

    private static List<String> mismatches(List<Baseline.Info> infos) {
        return infos.stream().filter(info -> info.mismatch)
                .map(info -> info.packageName + " " + info.packageDiff.getDelta() + " at " + info.newerVersion
                        + " (baseline " + info.olderVersion + ", needs " + info.suggestedVersion + ")")
                .toList();
    }

    private static Baseline.Info info(List<Baseline.Info> infos, String packageName) {
        return infos.stream().filter(info -> info.packageName.equals(packageName)).findFirst()
                .orElseThrow(() -> new AssertionError(packageName + " was not compared"));
    }

    /** Packages the baseline exports that the newer bundle does not export, or exports at a lower version. */
    private static List<String> lostExports(Jar newer, Jar older) throws Exception {
        Map<String, Version> now = exports(newer);
        return exports(older).entrySet().stream()
                .filter(export -> !now.containsKey(export.getKey()) || now.get(export.getKey()).compareTo(export.getValue()) < 0)
                .map(Map.Entry::getKey)
                .toList();
    }

    private static Map<String, Version> exports(Jar jar) throws Exception {
        Map<String, Version> versions = new TreeMap<>();
        OSGiHeader.parseHeader(jar.getManifest().getMainAttributes().getValue(Constants.EXPORT_PACKAGE))
                .forEach((name, attributes) -> versions.put(name, Version.parseVersion(attributes.getVersion())));
        return versions;
    }

    /** Changes the bundle's Export-Package header in memory (the built classes are never written). */
    private static void editExports(Jar jar, Consumer<Parameters> edit) throws Exception {
        Manifest manifest = new Manifest(jar.getManifest());
        Parameters exports = OSGiHeader.parseHeader(manifest.getMainAttributes().getValue(Constants.EXPORT_PACKAGE));
        edit.accept(exports);
        manifest.getMainAttributes().putValue(Constants.EXPORT_PACKAGE, exports.toString());
        jar.setManifest(manifest);
    }
}
