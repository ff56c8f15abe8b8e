package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexTest {

    @TempDir
    Path temp;

    @Test
    void readsIdentityContentAndToolServicesAndResolvesRelativeUrls() throws Exception {
        Path jar = TestIndexes.bundle(temp, "com.example.hello", "1.0.0");
        String xml = TestIndexes.index("demo", List.of(TestIndexes.resource("com.example.hello", "1.0.0", jar,
                "../jars/com.example.hello-1.0.0.jar", true)));
        Index index = Index.parse(xml.getBytes(StandardCharsets.UTF_8), temp.resolve("catalog/index.xml").toUri());
        assertEquals("demo", index.name());
        Index.Resource resource = index.resources().get(0);
        assertEquals("com.example.hello", resource.name());
        assertEquals("1.0.0", resource.version());
        assertEquals(ContentHashes.sha256(jar), resource.sha256(), "lower-cased");
        assertTrue(resource.providesTools());
        assertEquals(temp.resolve("jars/com.example.hello-1.0.0.jar").toUri(), resource.url());
    }

    @Test
    void skipsBndsSyntheticMultiReleaseResources() throws Exception {
        String synthetic = "<resource><capability namespace=\"osgi.identity\"><attribute name=\"osgi.identity\" value=\"x__17\"/>"
                + "<attribute name=\"type\" value=\"bnd.synthetic\"/></capability><capability namespace=\"osgi.content\">"
                + "<attribute name=\"url\" value=\"urn:osgi-bnd-mrj:x:1:17\"/><attribute name=\"osgi.content\" value=\""
                + "0".repeat(64) + "\"/></capability></resource>";
        Index index = Index.parse(TestIndexes.index("d", List.of(synthetic)).getBytes(StandardCharsets.UTF_8),
                temp.toUri());
        assertTrue(index.resources().isEmpty());
    }

    @Test
    void readsAGzippedIndex() throws Exception {
        Path jar = TestIndexes.bundle(temp, "a", "1.0.0");
        byte[] xml = TestIndexes.index("z", List.of(TestIndexes.resource("a", "1.0.0", jar, "a.jar", false)))
                .getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(xml);
        }
        Index index = Index.parse(bytes.toByteArray(), temp.resolve("index.xml.gz").toUri());
        assertEquals(1, index.resources().size());
        assertFalse(index.resources().get(0).providesTools());
    }

    @Test
    void refusesDoctypesSoNoEntityIsEverExpanded() {
        String xxe = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<repository xmlns=\"http://www.osgi.org/xmlns/repository/v1.0.0\" name=\"&x;\"/>";
        IOException e = assertThrows(IOException.class, () -> Index.parse(xxe.getBytes(StandardCharsets.UTF_8), temp.toUri()));
        assertTrue(e.getMessage().contains("not a valid XML"), e.getMessage());
    }

    @Test
    void refusesWhatIsNotAnIndexOrAResourceWithoutContent() {
        IOException notIndex = assertThrows(IOException.class,
                () -> Index.parse("<html/>".getBytes(StandardCharsets.UTF_8), temp.toUri()));
        assertTrue(notIndex.getMessage().contains("not an OSGi repository index"));
        String noContent = "<resource><capability namespace=\"osgi.identity\"><attribute name=\"osgi.identity\" value=\"a\"/>"
                + "</capability></resource>";
        IOException missing = assertThrows(IOException.class, () -> Index.parse(TestIndexes.index("d", List.of(noContent))
                .getBytes(StandardCharsets.UTF_8), temp.toUri()));
        assertTrue(missing.getMessage().contains("no osgi.content"));
    }
}
