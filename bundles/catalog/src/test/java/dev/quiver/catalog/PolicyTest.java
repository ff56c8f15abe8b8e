package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyTest {

    private static final Path BASE = Path.of("/work/space");

    @Test
    void aListOfPathsAndUrlsIsCatalogues() {
        Policy policy = Policy.parse(List.of("catalogs/index.xml", "https://example.com/q/index.xml"), BASE, "test");
        assertEquals(2, policy.sources().size());
        assertEquals(Path.of("/work/space/catalogs/index.xml").toUri(), policy.sources().get(0).uri());
        assertEquals("https://example.com/q/index.xml.sig", policy.sources().get(1).signature().toString());
        assertFalse(policy.enforce());
        assertTrue(policy.warnings().isEmpty(), policy.warnings().toString());
    }

    @Test
    void theObjectFormCarriesEnforceAndEachSourceItsKeyAndTrust() {
        Policy policy = Policy.parse(Map.of("enforce", true, "sources", List.of(Map.of("url", "/c/index.xml",
                "publicKey", "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----", "trusted", List.of("a.b", "c.*")))),
                BASE, "test");
        assertTrue(policy.enforce());
        Source source = policy.sources().get(0);
        assertTrue(source.publicKey().isPresent());
        assertTrue(source.trusts("a.b"));
        assertTrue(source.trusts("c.d"));
        assertFalse(source.trusts("a.bc"));
        assertFalse(source.trusts("cd"));
    }

    @Test
    void starTrustsEverythingItListsAndNoTrustTrustsNothing() {
        Source all = Policy.parse(List.of(Map.of("path", "x.xml", "trusted", "*")), BASE, "t").sources().get(0);
        Source none = Policy.parse(List.of(Map.of("path", "x.xml")), BASE, "t").sources().get(0);
        assertTrue(all.trusts("anything"));
        assertFalse(none.trusts("anything"));
    }

    @Test
    void plainHttpIsRefusedExceptToThisMachine() {
        Policy policy = Policy.parse(List.of("http://example.com/index.xml", "http://127.0.0.1:8080/index.xml"), BASE, "t");
        assertEquals(1, policy.sources().size());
        assertTrue(policy.warnings().get(0).contains("plain http is refused"), policy.warnings().toString());
    }

    @Test
    void unknownKeysAndWrongTypesAreReportedNotHonoured() {
        Policy policy = Policy.parse(Map.of("enforce", "yes", "sources", List.of(Map.of("url", "a.xml", "autoTrust", true))),
                BASE, "t");
        assertTrue(policy.enforce(), "an unreadable enforce errs on the safe side");
        assertEquals(2, policy.warnings().size(), policy.warnings().toString());
    }

    @Test
    void anUnreadablePublicKeyStillRequiresASignature() {
        Source source = Policy.parse(List.of(Map.of("url", "a.xml", "publicKey", "/no/such/key.pem")), BASE, "t")
                .sources().get(0);
        assertTrue(source.publicKey().isPresent(), "a missing key must not make the catalogue unsigned");
        assertTrue(source.keyName().contains("cannot be read"));
    }

    @Test
    void aSessionCanAddCataloguesAndTurnEnforcementOnButNotOffOrIntoAnEnforcingInstallation() {
        Policy installation = Policy.parse(List.of("/opt/q/index.xml"), BASE, "install");
        Policy session = Policy.parse(Map.of("enforce", true, "sources", List.of("/home/me/index.xml")), BASE, "session");
        Policy open = Policy.combine(installation, session, "session");
        assertEquals(2, open.sources().size());
        assertTrue(open.enforce());

        Policy enforcing = new Policy(installation.sources(), true, List.of());
        Policy closed = Policy.combine(enforcing, Policy.parse(Map.of("enforce", false, "sources",
                List.of("/home/me/index.xml")), BASE, "session"), "session");
        assertEquals(1, closed.sources().size());
        assertTrue(closed.enforce());
        assertTrue(closed.warnings().get(0).contains("ignored"));
    }
}
