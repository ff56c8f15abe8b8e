package dev.quiver.catalog;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SignaturesTest {

    private static final byte[] DATA = "<repository/>".getBytes(StandardCharsets.UTF_8);

    @Test
    void ed25519AndRsaSignaturesVerifyAndATamperedIndexDoesNot() throws Exception {
        for (KeyPair pair : new KeyPair[] {TestIndexes.ed25519(), TestIndexes.rsa()}) {
            byte[] signature = TestIndexes.sign(DATA, pair.getPrivate());
            var key = Signatures.publicKey(TestIndexes.publicPem(pair));
            assertTrue(Signatures.verify(DATA, signature, key), pair.getPublic().getAlgorithm());
            assertFalse(Signatures.verify("<repository name=\"x\"/>".getBytes(StandardCharsets.UTF_8), signature, key));
        }
    }

    @Test
    void aBase64SignatureFileIsAcceptedToo() throws Exception {
        KeyPair pair = TestIndexes.ed25519();
        byte[] text = Base64.getMimeEncoder().encode(TestIndexes.sign(DATA, pair.getPrivate()));
        assertTrue(Signatures.verify(DATA, text, Signatures.publicKey(TestIndexes.publicPem(pair))));
    }

    @Test
    void anotherKeysSignatureOrGarbageDoesNotVerify() throws Exception {
        KeyPair signer = TestIndexes.ed25519();
        var other = Signatures.publicKey(TestIndexes.publicPem(TestIndexes.ed25519()));
        assertFalse(Signatures.verify(DATA, TestIndexes.sign(DATA, signer.getPrivate()), other));
        assertFalse(Signatures.verify(DATA, new byte[] {1, 2, 3}, other));
    }

    @Test
    void aKeyThatIsNotPemIsRefused() {
        assertThrows(GeneralSecurityException.class, () -> Signatures.publicKey("ssh-ed25519 AAAA..."));
        assertThrows(GeneralSecurityException.class,
                () -> Signatures.publicKey("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"));
    }
}
