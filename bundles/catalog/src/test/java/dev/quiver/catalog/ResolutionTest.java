package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.HostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.resolver.Resolver;

/**
 * Installs that resolve a bundle's requirements, on a real Felix framework with its own resolver
 * service, over catalogues indexed by bnd's indexer or written by hand (identity and content only),
 * with jars built here.
 */
class ResolutionTest {

    private static final String LIB_EXPORT = "com.example.lib;version=1.0.0";
    private static final String LIB_IMPORT = "com.example.lib;version=\"[1,2)\"";

    @TempDir
    Path temp;

    private Framework framework;
    private BundleContext context;
    private Path plugins;

    @BeforeEach
    void startFelix() throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("org.osgi.framework.storage", temp.resolve("felix-cache").toString());
        config.put("org.osgi.framework.storage.clean", "onFirstInit");
        framework = new FrameworkFactory().newFramework(config);
        framework.start();
        context = framework.getBundleContext();
        plugins = Files.createDirectories(temp.resolve("plugins"));
    }

    @AfterEach
    void stopFelix() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    // ---- what installs ---------------------------------------------------------------------------

    @Test
    void aToolThatNeedsALibraryFromTheSameCatalogueInstallsBothLibraryFirst() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Catalogs.Snapshot snapshot = bnd("acme", lib, tool);

        List<Resolution.Planned> planned = plan(snapshot, "com.example.tool");
        assertEquals(List.of("com.example.lib", "com.example.tool"), names(planned));
        assertEquals(ContentHashes.sha256(lib), Index.sha256(planned.get(0).bytes()), "the checked bytes are installed");

        Bundle installed = admin().install(planned);
        assertEquals("com.example.tool", installed.getSymbolicName());
        assertEquals(Bundle.ACTIVE, installed.getState());
        Bundle library = find("com.example.lib");
        assertEquals(Bundle.ACTIVE, library.getState());
        assertEquals(library, installed.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package").get(0)
                .getProvider().getBundle(), "the tool is wired to the library it brought");
        assertEquals(List.of("com.example.lib-1.0.0.jar", "com.example.tool-1.0.0.jar"), kept());
    }

    @Test
    void anIndexWithoutRequirementsIsReadFromTheCheckedJarsManifests() throws Exception {
        Path catalog = temp.resolve("hand");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Path other = TestIndexes.bundle(catalog, "com.example.other", "1.0.0");
        Catalogs.Snapshot snapshot = handWritten("hand", lib, tool, other);
        assertFalse(snapshot.loaded().get(0).resources().get(0).described());

        assertEquals(List.of("com.example.lib", "com.example.tool"), names(plan(snapshot, "com.example.tool")));
    }

    @Test
    void aLibraryAlreadyRunningSatisfiesTheRequirementAndIsNotInstalledAgain() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Bundle running = context.installBundle(lib.toUri().toString());
        running.start();
        Catalogs.Snapshot snapshot = bnd("acme", lib, tool);

        List<Resolution.Planned> planned = plan(snapshot, "com.example.tool");
        assertEquals(List.of("com.example.tool"), names(planned));
        Bundle installed = admin().install(planned);
        assertEquals(running, installed.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package").get(0)
                .getProvider().getBundle());
        assertEquals(1, Stream.of(context.getBundles()).filter(b -> "com.example.lib".equals(b.getSymbolicName())).count());
    }

    @Test
    void bundlesThatNeedEachOtherInstallTogether() throws Exception {
        Path catalog = temp.resolve("acme");
        Path a = TestIndexes.bundle(catalog, "com.example.a", "1.0.0", Map.of("Export-Package", "com.example.a",
                "Import-Package", "com.example.b"));
        Path b = TestIndexes.bundle(catalog, "com.example.b", "1.0.0", Map.of("Export-Package", "com.example.b",
                "Import-Package", "com.example.a"));
        List<Resolution.Planned> planned = plan(bnd("acme", a, b), "com.example.a");
        assertEquals(List.of("com.example.b", "com.example.a"), names(planned));
        admin().install(planned);
        assertEquals(Bundle.ACTIVE, find("com.example.a").getState());
        assertEquals(Bundle.ACTIVE, find("com.example.b").getState());
    }

    @Test
    void anOptionalRequirementNeverBringsABundle() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package",
                LIB_IMPORT + ";resolution:=optional"));
        assertEquals(List.of("com.example.tool"), names(plan(bnd("acme", lib, tool), "com.example.tool")));
    }

    @Test
    void theHighestVersionOfAProviderIsChosen() throws Exception {
        Path catalog = temp.resolve("acme");
        Path old = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path newer = TestIndexes.bundle(catalog, "com.example.lib", "1.2.0", Map.of("Export-Package",
                "com.example.lib;version=1.2.0"));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        List<Resolution.Planned> planned = plan(bnd("acme", old, newer, tool), "com.example.tool");
        assertEquals("1.2.0", planned.get(0).resource().version());
    }

    // ---- what is refused, and how it is said -------------------------------------------------

    @Test
    void aMissingRequirementIsNamedWithItsNamespaceFilterAndAskerAndNothingIsInstalled() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT,
                "Import-Package", "com.example.gone"));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Path needy = TestIndexes.bundle(catalog, "com.example.needy", "1.0.0", Map.of("Import-Package",
                "com.example.missing;version=\"[1,2)\""));
        Catalogs.Snapshot snapshot = bnd("acme", lib, tool, needy);
        int bundlesBefore = context.getBundles().length;

        HostException direct = assertThrows(HostException.class, () -> plan(snapshot, "com.example.needy"));
        assertEquals("com.example.needy 1.0.0 was not installed: it needs osgi.wiring.package "
                + "(&(osgi.wiring.package=com.example.missing)(version>=1.0.0)(!(version>=2.0.0))), which no running "
                + "bundle and no usable catalogue provides. Nothing was installed.", direct.getMessage());

        HostException chain = assertThrows(HostException.class, () -> plan(snapshot, "com.example.tool"));
        assertTrue(chain.getMessage().startsWith("com.example.tool 1.0.0 was not installed: it needs osgi.wiring.package "
                + "(&(osgi.wiring.package=com.example.lib)(version>=1.0.0)(!(version>=2.0.0))), which only com.example.lib "
                + "1.0.0 (catalogue acme) provides, and com.example.lib 1.0.0 needs osgi.wiring.package "
                + "(osgi.wiring.package=com.example.gone), which no running bundle"), chain.getMessage());
        assertEquals(bundlesBefore, context.getBundles().length, "the framework is unchanged");
        assertEquals(List.of(), kept(), "plugins/ is unchanged");
    }

    @Test
    void aVersionOutsideTheRangeIsNamedWithTheVersionsThatAreOffered() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package",
                "com.example.lib;version=\"[2,3)\""));
        HostException e = assertThrows(HostException.class, () -> plan(bnd("acme", lib, tool), "com.example.tool"));
        assertTrue(e.getMessage().contains("it needs osgi.wiring.package (&(osgi.wiring.package=com.example.lib)"
                + "(version>=2.0.0)(!(version>=3.0.0))), which no running bundle and no usable catalogue provides "
                + "(com.example.lib 1.0.0 (catalogue acme) exports it at 1.0.0)"), e.getMessage());
    }

    @Test
    void aUsesConstraintThatCannotBeMetIsReportedAsTheResolverSaysIt() throws Exception {
        Path catalog = temp.resolve("acme");
        Path apiOne = TestIndexes.bundle(catalog, "com.example.api.one", "1.0.0", Map.of("Export-Package",
                "com.example.api;version=1.0.0"));
        Path apiTwo = TestIndexes.bundle(catalog, "com.example.api.two", "2.0.0", Map.of("Export-Package",
                "com.example.api;version=2.0.0"));
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package",
                LIB_EXPORT + ";uses:=\"com.example.api\"", "Import-Package", "com.example.api;version=\"[2,3)\""));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package",
                LIB_IMPORT + ",com.example.api;version=\"[1,2)\""));
        context.installBundle(apiOne.toUri().toString()).start();
        HostException e = assertThrows(HostException.class, () -> plan(bnd("acme", apiTwo, lib, tool),
                "com.example.tool"));
        assertTrue(e.getMessage().startsWith("com.example.tool 1.0.0 was not installed: it does not resolve: Uses "
                + "constraint violation."), e.getMessage());
        assertTrue(e.getMessage().contains("com.example.api") && e.getMessage().endsWith("Nothing was installed."),
                e.getMessage());
        assertEquals(List.of(), kept());
    }

    @Test
    void aCatalogueBundleMayNotProvideQuiversOwnPackagesNeitherAskedForNorAsADependency() throws Exception {
        Path catalog = temp.resolve("acme");
        Path evil = TestIndexes.bundle(catalog, "com.example.evil", "1.0.0", Map.of("Export-Package",
                "dev.quiver.api;version=1.99.0,com.example.evil"));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", "com.example.evil"));
        Catalogs.Snapshot snapshot = bnd("acme", evil, tool);
        HostException asked = assertThrows(HostException.class, () -> plan(snapshot, "com.example.evil"));
        assertEquals("com.example.evil 1.0.0 was not installed: it exports dev.quiver.api, a package of Quiver itself; "
                + "only the distribution provides Quiver's packages. Nothing was installed.", asked.getMessage());
        HostException dependency = assertThrows(HostException.class, () -> plan(snapshot, "com.example.tool"));
        assertTrue(dependency.getMessage().startsWith("com.example.tool 1.0.0 was not installed: it needs "
                + "com.example.evil 1.0.0 (catalogue acme), and that bundle exports dev.quiver.api"), dependency.getMessage());
    }

    @Test
    void anIndexThatClaimsMoreThanTheJarIsCaughtBeforeAnythingIsInstalled() throws Exception {
        Path catalog = temp.resolve("liar");
        // the index says the library exports com.example.lib; its checked jar exports nothing
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0");
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        String claim = TestIndexes.resource("com.example.lib", "1.0.0", lib, lib.getFileName().toString(), false)
                .replace("  </resource>\n", "    <capability namespace=\"osgi.wiring.package\">\n"
                        + "      <attribute name=\"osgi.wiring.package\" value=\"com.example.lib\"/>\n"
                        + "      <attribute name=\"version\" type=\"Version\" value=\"1.0.0\"/>\n"
                        + "    </capability>\n  </resource>\n");
        Files.writeString(catalog.resolve("index.xml"), TestIndexes.index("liar", List.of(claim,
                TestIndexes.resource("com.example.tool", "1.0.0", tool, tool.getFileName().toString(), false))));
        HostException e = assertThrows(HostException.class, () -> plan(snapshot(catalog.resolve("index.xml")),
                "com.example.tool"));
        assertTrue(e.getMessage().contains("(osgi.wiring.package=com.example.lib)") && e.getMessage().contains(
                "which no running bundle and no usable catalogue provides"), e.getMessage());
        assertEquals(List.of(), kept());
    }

    @Test
    void theJavaAndThePlatformComeFromTheFrameworkOnly() throws Exception {
        Path catalog = temp.resolve("acme");
        Path fake = TestIndexes.bundle(catalog, "com.example.fakejava", "1.0.0", Map.of("Provide-Capability",
                "osgi.ee;osgi.ee=JavaSE;version:Version=99"));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Require-Capability",
                "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=99))\""));
        HostException e = assertThrows(HostException.class, () -> plan(handWritten("acme", fake, tool), "com.example.tool"));
        assertTrue(e.getMessage().contains("it needs osgi.ee (&(osgi.ee=JavaSE)(version=99)), which the framework "
                + "(this Java and platform) does not provide"), e.getMessage());

        Path fine = TestIndexes.bundle(catalog, "com.example.fine", "1.0.0", Map.of("Require-Capability",
                "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=11))\""));
        assertEquals(List.of("com.example.fine"), names(plan(bnd("ok", fine), "com.example.fine")));
    }

    @Test
    void aRequirementOnlyAnIgnoredCatalogueCouldMeetNamesThatCatalogueAndWhy() throws Exception {
        Path catalog = temp.resolve("acme");
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Path elsewhere = temp.resolve("theirs");
        Path lib = TestIndexes.bundle(elsewhere, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Catalogs.Snapshot ignored = bnd("theirs", lib);
        Catalogs.Snapshot usable = bnd("acme", tool);
        Catalogs.Loaded acme = usable.loaded().get(0);
        HostException e = assertThrows(HostException.class, () -> new Resolution(resolver(), context, usable,
                ignored.loaded(), "the installation enforces its own catalogues and ignores the session's",
                bundle -> false).plan(acme, acme.resources().get(0)));
        assertTrue(e.getMessage().contains("(com.example.lib 1.0.0 of catalogue theirs would, but the installation "
                + "enforces its own catalogues and ignores the session's)"), e.getMessage());
    }

    @Test
    void aDependencyOnlyACatalogueWithABadSignatureOffersIsRefusedNamingThatCatalogue() throws Exception {
        Path acme = temp.resolve("acme");
        Path tool = TestIndexes.bundle(acme, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Path acmeIndex = TestIndexes.bndIndex(acme.resolve("index.xml"), "acme", List.of(tool));
        Path theirs = temp.resolve("theirs");
        Path lib = TestIndexes.bundle(theirs, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path theirIndex = TestIndexes.bndIndex(theirs.resolve("index.xml"), "theirs", List.of(lib));
        // signed with one key, configured with another: the catalogue is refused and offers nothing
        Files.write(theirs.resolve("index.xml.sig"), TestIndexes.sign(Files.readAllBytes(theirIndex),
                TestIndexes.ed25519().getPrivate()));
        Source signed = new Source(theirIndex.toUri(), Optional.of(TestIndexes.publicPem(TestIndexes.ed25519())), "their key",
                theirs.resolve("index.xml.sig").toUri(), List.of("*"), "test");
        Source plain = new Source(acmeIndex.toUri(), Optional.empty(), "", acme.resolve("index.xml.sig").toUri(), List.of(),
                "test");
        Catalogs.Snapshot snapshot = new Catalogs().load(new Policy(List.of(plain, signed), false, List.of()));
        HostException e = assertThrows(HostException.class, () -> plan(snapshot, "com.example.tool"));
        assertTrue(e.getMessage().contains("which no running bundle and no usable catalogue provides. Not usable: theirs "
                + "(its signature"), e.getMessage());
        assertTrue(e.getMessage().contains("does not verify against the key their key"), e.getMessage());
    }

    @Test
    void anInstallThatWouldBringTooManyBundlesIsRefusedBeforeFetchingThem() throws Exception {
        Path catalog = temp.resolve("big");
        List<Path> jars = new ArrayList<>();
        int count = Resolution.MAX_BUNDLES + 10;
        for (int i = 0; i < count; i++) {
            Map<String, String> headers = new HashMap<>(Map.of("Export-Package", "com.example.lib" + i));
            if (i + 1 < count) {
                headers.put("Import-Package", "com.example.lib" + (i + 1)); // each library needs the next
            }
            jars.add(TestIndexes.bundle(catalog, "com.example.lib" + i, "1.0.0", headers));
        }
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", "com.example.lib0"));
        jars.add(tool);
        Catalogs.Snapshot snapshot = bnd("big", jars.toArray(Path[]::new));
        for (Path jar : jars.subList(0, count)) {
            Files.delete(jar); // a fetch of any of them would now fail: the cap must come first
        }
        HostException e = assertThrows(HostException.class, () -> plan(snapshot, "com.example.tool"));
        assertTrue(e.getMessage().contains("it would bring " + (count + 1) + " bundles from the catalogues")
                && e.getMessage().contains("more than the " + Resolution.MAX_BUNDLES + " one install may add"),
                e.getMessage());
    }

    @Test
    void aDependencyWhoseJarDoesNotMatchItsIndexStopsTheInstallNamingBoth() throws Exception {
        Path catalog = temp.resolve("acme");
        Path lib = TestIndexes.bundle(catalog, "com.example.lib", "1.0.0", Map.of("Export-Package", LIB_EXPORT));
        Path tool = TestIndexes.bundle(catalog, "com.example.tool", "1.0.0", Map.of("Import-Package", LIB_IMPORT));
        Catalogs.Snapshot snapshot = bnd("acme", lib, tool);
        Files.write(lib, new byte[] {0}, java.nio.file.StandardOpenOption.APPEND); // the jar changes after indexing
        HostException e = assertThrows(HostException.class, () -> plan(snapshot, "com.example.tool"));
        assertTrue(e.getMessage().startsWith("com.example.tool 1.0.0 was not installed: it needs com.example.lib 1.0.0 "
                + "(catalogue acme), and the jar of com.example.lib 1.0.0"), e.getMessage());
        assertTrue(e.getMessage().contains("does not match catalogue acme"), e.getMessage());
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private Resolver resolver() {
        return context.getService(context.getServiceReference(Resolver.class));
    }

    private List<Resolution.Planned> plan(Catalogs.Snapshot snapshot, String name) {
        Catalogs.Loaded loaded = snapshot.loaded().get(0);
        Index.Resource entry = loaded.resources().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
        return new Resolution(resolver(), context, snapshot, List.of(), "", bundle -> false).plan(loaded, entry);
    }

    private Admin admin() {
        return new Admin(context, new ContentHashes(), new Settings(Optional.empty(), Optional.empty(), false,
                Optional.of(plugins), Optional.empty(), List.of()));
    }

    private Catalogs.Snapshot bnd(String name, Path... jars) throws Exception {
        Path index = jars[0].getParent().resolve(name + "-index.xml");
        TestIndexes.bndIndex(index, name, List.of(jars));
        String xml = Files.readString(index);
        assertTrue(xml.contains("osgi.wiring.bundle"), "bnd describes the bundles");
        return snapshot(index);
    }

    private Catalogs.Snapshot handWritten(String name, Path... jars) throws Exception {
        List<String> resources = new ArrayList<>();
        for (Path jar : jars) {
            String file = jar.getFileName().toString();
            String bsn = file.substring(0, file.lastIndexOf('-'));
            resources.add(TestIndexes.resource(bsn, "1.0.0", jar, file, false));
        }
        Path index = jars[0].getParent().resolve(name + "-index.xml");
        Files.writeString(index, TestIndexes.index(name, resources), StandardCharsets.UTF_8);
        return snapshot(index);
    }

    private static Catalogs.Snapshot snapshot(Path index) {
        Source source = new Source(index.toUri(), Optional.empty(), "", Path.of(index + ".sig").toUri(), List.of(), "test");
        Catalogs.Snapshot snapshot = new Catalogs().load(new Policy(List.of(source), false, List.of()));
        assertEquals(Optional.empty(), snapshot.loaded().get(0).problem());
        return snapshot;
    }

    private static List<String> names(List<Resolution.Planned> planned) {
        return planned.stream().map(p -> p.resource().name()).toList();
    }

    private Bundle find(String name) {
        return Stream.of(context.getBundles()).filter(b -> name.equals(b.getSymbolicName())).findFirst().orElseThrow();
    }

    private List<String> kept() throws Exception {
        try (Stream<Path> files = Files.list(plugins)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
