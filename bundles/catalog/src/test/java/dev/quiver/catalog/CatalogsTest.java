package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogsTest {

    @TempDir
    Path temp;
    private Path index;
    private KeyPair key;

    @BeforeEach
    void catalogue() throws Exception {
        Path jar = TestIndexes.bundle(temp, "com.example.a", "1.0.0");
        index = temp.resolve("index.xml");
        Files.writeString(index, TestIndexes.index("acme", List.of(TestIndexes.resource("com.example.a", "1.0.0", jar,
                jar.getFileName().toString(), true))));
        key = TestIndexes.ed25519();
    }

    private Catalogs.Loaded load(boolean withKey) {
        Map<String, Object> source = withKey ? Map.of("path", index.toString(), "publicKey", TestIndexes.publicPem(key))
                : Map.of("path", index.toString());
        Policy policy = Policy.parse(List.of(source), temp, "test");
        return new Catalogs().load(policy).loaded().get(0);
    }

    @Test
    void anUnsignedCatalogueWithoutAKeyLoads() {
        Catalogs.Loaded loaded = load(false);
        assertTrue(loaded.problem().isEmpty(), loaded.problem().toString());
        assertEquals("acme", loaded.name());
        assertEquals(1, loaded.resources().size());
    }

    @Test
    void aSignedCatalogueLoadsWhenItsSignatureVerifies() throws Exception {
        Files.write(temp.resolve("index.xml.sig"), TestIndexes.sign(Files.readAllBytes(index), key.getPrivate()));
        Catalogs.Loaded loaded = load(true);
        assertTrue(loaded.problem().isEmpty(), loaded.problem().toString());
        assertTrue(loaded.keyFingerprint().isPresent());
    }

    @Test
    void aMissingSignatureWhereAKeyIsConfiguredRefusesTheCatalogue() {
        Catalogs.Loaded loaded = load(true);
        assertTrue(loaded.index().isEmpty());
        assertTrue(loaded.problem().get().contains("must be signed") && loaded.problem().get().contains("missing"),
                loaded.problem().get());
    }

    @Test
    void anIndexChangedAfterSigningIsRefused() throws Exception {
        Files.write(temp.resolve("index.xml.sig"), TestIndexes.sign(Files.readAllBytes(index), key.getPrivate()));
        Files.writeString(index, Files.readString(index).replace("acme", "evil"), StandardCharsets.UTF_8);
        Catalogs.Loaded loaded = load(true);
        assertTrue(loaded.index().isEmpty());
        assertTrue(loaded.problem().get().contains("does not verify"), loaded.problem().get());
    }

    @Test
    void aCatalogueThatCannotBeReadSaysSoAndTheOthersStillLoad() {
        Policy policy = Policy.parse(List.of(temp.resolve("missing/index.xml").toString(), index.toString()), temp, "t");
        Catalogs.Snapshot snapshot = new Catalogs().load(policy);
        assertTrue(snapshot.loaded().get(0).problem().get().contains("does not exist"));
        assertEquals(1, snapshot.loaded().get(1).resources().size());
        assertEquals(1, snapshot.bySha256().size());
    }
}
