package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.host.HostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTest {

    @TempDir
    Path temp;

    private static Catalogs.Loaded catalog() {
        return new Catalogs.Loaded(new Source(Path.of("/c/index.xml").toUri(), Optional.empty(), "",
                Path.of("/c/index.xml.sig").toUri(), List.of(), "t"), "acme", Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    private Index.Resource resource(String name, Path jar, String sha, long size) {
        return new Index.Resource(name, "1.0.0", sha, size, jar.toUri(), List.of());
    }

    @Test
    void aJarWhoseHashDiffersFromTheIndexIsRefusedNamingBoth() throws Exception {
        Path jar = TestIndexes.bundle(temp, "a", "1.0.0");
        HostException e = assertThrows(HostException.class, () -> Admin.fetchVerified(catalog(),
                resource("a", jar, "0".repeat(64), Files.size(jar)), "Nothing was installed."));
        assertTrue(e.getMessage().contains("does not match catalogue acme") && e.getMessage().contains(ContentHashes.sha256(jar))
                && e.getMessage().endsWith("Nothing was installed."), e.getMessage());
    }

    @Test
    void theSizeIsCheckedToo() throws Exception {
        Path jar = TestIndexes.bundle(temp, "a", "1.0.0");
        HostException e = assertThrows(HostException.class, () -> Admin.fetchVerified(catalog(),
                resource("a", jar, ContentHashes.sha256(jar), 1), ""));
        assertTrue(e.getMessage().contains("says 1"), e.getMessage());
    }

    @Test
    void aJarThatIsNotABundleOrNotTheNamedBundleIsRefused() throws Exception {
        Path text = Files.writeString(temp.resolve("a.jar"), "not a zip");
        HostException notJar = assertThrows(HostException.class, () -> Admin.checkManifest(Files.readAllBytes(text),
                resource("a", text, "", -1), ""));
        assertTrue(notJar.getMessage().contains("is not a jar"), notJar.getMessage());

        Path plain = temp.resolve("plain.jar");
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(plain))) {
            out.putNextEntry(new java.util.zip.ZipEntry("a.txt"));
        }
        HostException noManifest = assertThrows(HostException.class, () -> Admin.checkManifest(Files.readAllBytes(plain),
                resource("a", plain, "", -1), ""));
        assertTrue(noManifest.getMessage().contains("not an OSGi bundle"), noManifest.getMessage());

        Path other = TestIndexes.bundle(temp, "b", "1.0.0");
        HostException renamed = assertThrows(HostException.class, () -> Admin.checkManifest(Files.readAllBytes(other),
                resource("a", other, "", -1), ""));
        assertTrue(renamed.getMessage().contains("its jar is the bundle b"), renamed.getMessage());

        Admin.checkManifest(Files.readAllBytes(other), resource("b", other, "", -1), "");
    }

    @Test
    void keptFilesAreNamedByNameAndVersion() {
        assertEquals("com.example.hello-1.0.0.jar", Admin.fileName(new Index.Resource("com.example.hello", "1.0.0", "",
                -1, temp.toUri(), List.of())));
    }

    @Test
    void locationsNameTheirFiles() {
        assertEquals(Optional.of(Path.of("/a/b.jar")), ContentHashes.file("reference:file:/a/b.jar"));
        assertEquals(Optional.of(Path.of("/a/b c.jar")), ContentHashes.file("file:/a/b c.jar"));
        assertEquals(Optional.empty(), ContentHashes.file("quiver:catalog:x"));
        assertEquals(Optional.empty(), ContentHashes.file("https://example.com/x.jar"));
    }
}
