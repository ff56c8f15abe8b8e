package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Version;

/** A manifest read as the framework reads it, checked against what bnd's indexer makes of the same jar. */
class ManifestsTest {

    @TempDir
    Path temp;

    private static final Map<String, String> RICH = Map.of(
            "Export-Package", "com.example.a;version=\"1.2.3\";uses:=\"com.example.b,org.osgi.framework\","
                    + "com.example.b;version=2.0.0;flavour=mild;mandatory:=flavour",
            "Import-Package", "org.osgi.framework;version=\"[1.8,2)\",com.example.c;version=\"[1.0,2.0)\";"
                    + "resolution:=optional,com.example.d;version=1.5",
            "Require-Bundle", "com.example.host;bundle-version=\"[3,4)\"",
            "Require-Capability", "osgi.extender;filter:=\"(&(osgi.extender=osgi.component)(version>=1.5.0)"
                    + "(!(version>=2.0.0)))\",osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=17))\"",
            "Provide-Capability", "osgi.service;objectClass:List<String>=\"dev.quiver.api.Tool,java.lang.Runnable\";"
                    + "uses:=\"dev.quiver.api\"");

    @Test
    void theRequirementsAreTheOnesBndsIndexerWritesForTheSameJar() throws Exception {
        Path jar = TestIndexes.bundle(temp, "com.example.rich", "1.0.0", RICH);
        Path index = TestIndexes.bndIndex(temp.resolve("index.xml"), "x", List.of(jar));
        Index.Resource indexed = Index.parse(Files.readAllBytes(index), index.toUri()).resources().get(0);
        Manifests.Description mine = Manifests.describe(manifest(jar));

        assertEquals(filters(indexed.requirements()), filters(mine.requirements()));
        assertEquals(Set.of("osgi.wiring.package com.example.a 1.2.3", "osgi.wiring.package com.example.b 2.0.0"),
                exports(mine.capabilities()));
        assertEquals(exports(indexed.capabilities()), exports(mine.capabilities()));
    }

    @Test
    void quotedValuesKeepTheirCommasAndAttributesTheirTypes() throws Exception {
        Manifests.Description description = Manifests.describe(manifest(TestIndexes.bundle(temp, "com.example.rich",
                "1.0.0", RICH)));
        Clause a = export(description, "com.example.a");
        assertEquals("com.example.b,org.osgi.framework", a.directives().get("uses"));
        assertEquals(new Version(1, 2, 3), a.attributes().get("version"));
        assertEquals("com.example.rich", a.attributes().get("bundle-symbolic-name"));
        assertEquals("flavour", export(description, "com.example.b").directives().get("mandatory"));
        Clause service = description.capabilities().stream().filter(c -> c.namespace().equals("osgi.service"))
                .findFirst().orElseThrow();
        assertEquals(List.of("dev.quiver.api.Tool", "java.lang.Runnable"), service.attributes().get("objectClass"));
        Clause optional = description.requirements().stream().filter(r -> r.directives().get("filter")
                .contains("com.example.c")).findFirst().orElseThrow();
        assertEquals("optional", optional.directives().get("resolution"));
    }

    @Test
    void aFragmentNeedsItsHostAndProvidesNoBundleOfItsOwn() throws Exception {
        Manifests.Description fragment = Manifests.describe(manifest(TestIndexes.bundle(temp, "com.example.frag",
                "1.0.0", Map.of("Fragment-Host", "com.example.host;bundle-version=\"[1,2)\""))));
        assertEquals("(&(osgi.wiring.host=com.example.host)(bundle-version>=1.0.0)(!(bundle-version>=2.0.0)))",
                fragment.requirements().get(0).directives().get("filter"));
        assertTrue(fragment.capabilities().stream().noneMatch(c -> c.namespace().startsWith("osgi.wiring.")));
        assertEquals("osgi.fragment", fragment.capabilities().get(0).attributes().get("type"));
    }

    @Test
    void theOldExecutionEnvironmentHeaderBecomesAnEeRequirement() throws Exception {
        Manifests.Description old = Manifests.describe(manifest(TestIndexes.bundle(temp, "com.example.old", "1.0.0",
                Map.of("Bundle-RequiredExecutionEnvironment", "J2SE-1.5,JavaSE-1.8"))));
        assertEquals("(|(&(osgi.ee=JavaSE)(version=1.5))(&(osgi.ee=JavaSE)(version=1.8)))",
                old.requirements().get(0).directives().get("filter"));
    }

    @Test
    void aHeaderThatCannotBeReadIsNamed() throws Exception {
        IllegalArgumentException quote = assertThrows(IllegalArgumentException.class, () -> Manifests.describe(
                manifest(TestIndexes.bundle(temp, "com.example.bad", "1.0.0", Map.of("Import-Package",
                        "com.example.x;version=\"[1,2)")))));
        assertTrue(quote.getMessage().contains("Import-Package has a quote that is never closed"), quote.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> Manifests.describe(
                manifest(TestIndexes.bundle(temp, "com.example.bad2", "1.0.0", Map.of("Import-Package",
                        "com.example.x;version=\"[one,two)\"")))));
        assertTrue(range.getMessage().contains("is not a version range"), range.getMessage());
        IllegalArgumentException typed = assertThrows(IllegalArgumentException.class, () -> Manifests.describe(
                manifest(TestIndexes.bundle(temp, "com.example.bad3", "1.0.0", Map.of("Provide-Capability",
                        "x;n:Long=many")))));
        assertTrue(typed.getMessage().contains("Provide-Capability: 'many' is not a Long"), typed.getMessage());
    }

    @Test
    void filterValuesAreEscaped() {
        assertEquals("a\\(b\\)\\*\\\\", Manifests.escape("a(b)*\\"));
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static Attributes manifest(Path jar) throws Exception {
        try (InputStream in = Files.newInputStream(jar); JarInputStream stream = new JarInputStream(in)) {
            return stream.getManifest().getMainAttributes();
        }
    }

    /** Namespace and filter of every requirement the framework resolves by wiring (not services, which bnd adds). */
    private static Set<String> filters(List<Clause> requirements) {
        Set<String> filters = new TreeSet<>();
        for (Clause requirement : requirements) {
            if (!requirement.namespace().equals("osgi.service")) {
                filters.add(requirement.namespace() + " " + requirement.directives().get("filter")
                        + (requirement.directives().containsKey("resolution") ? " optional" : ""));
            }
        }
        return filters;
    }

    private static Set<String> exports(List<Clause> capabilities) {
        Set<String> exports = new TreeSet<>();
        for (Clause capability : capabilities) {
            if (capability.namespace().equals("osgi.wiring.package")) {
                exports.add(capability.namespace() + " " + capability.attributes().get("osgi.wiring.package") + " "
                        + capability.attributes().get("version"));
            }
        }
        return exports;
    }

    private static Clause export(Manifests.Description description, String name) {
        return description.capabilities().stream().filter(c -> name.equals(c.attributes().get("osgi.wiring.package")))
                .findFirst().orElseThrow();
    }
}
