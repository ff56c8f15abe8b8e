package dev.quiver.catalog;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * Detached signatures over an index, checked with the JDK's own classes: Ed25519, or RSA with SHA-256
 * (PKCS #1 v1.5). Keys are PEM {@code PUBLIC KEY} (X.509 SubjectPublicKeyInfo), as
 * {@code openssl pkey -pubout} and {@code quiver catalog keygen} write them. A signature file holds
 * the raw signature bytes or their Base64.
 */
final class Signatures {

    private Signatures() {
    }

    /** A PEM public key, Ed25519 or RSA. */
    static PublicKey publicKey(String pem) throws GeneralSecurityException {
        byte[] der = pem(pem, "PUBLIC KEY");
        X509EncodedKeySpec spec = new X509EncodedKeySpec(der);
        for (String algorithm : new String[] {"Ed25519", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePublic(spec);
            } catch (GeneralSecurityException wrongAlgorithm) {
                // try the next one
            }
        }
        throw new GeneralSecurityException("the public key is neither Ed25519 nor RSA");
    }

    /** The signature algorithm for a key. */
    static String algorithm(java.security.Key key) {
        String name = key.getAlgorithm();
        return name.equals("RSA") ? "SHA256withRSA" : "Ed25519";
    }

    /** Whether the signature verifies the data under the key. */
    static boolean verify(byte[] data, byte[] signature, PublicKey key) throws GeneralSecurityException {
        Signature verifier = Signature.getInstance(algorithm(key));
        verifier.initVerify(key);
        verifier.update(data);
        try {
            return verifier.verify(decode(signature));
        } catch (java.security.SignatureException malformed) {
            return false;
        }
    }

    /** Raw signature bytes, or the Base64 text of them. */
    static byte[] decode(byte[] signature) {
        String text = new String(signature, StandardCharsets.ISO_8859_1).strip();
        if (!text.isEmpty() && text.matches("[A-Za-z0-9+/=\\s]+")) {
            try {
                return Base64.getMimeDecoder().decode(text);
            } catch (IllegalArgumentException notBase64) {
                return signature;
            }
        }
        return signature;
    }

    /** The DER bytes of a PEM block of the given type. */
    static byte[] pem(String pem, String type) throws GeneralSecurityException {
        String begin = "-----BEGIN " + type + "-----";
        String end = "-----END " + type + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new GeneralSecurityException("not a PEM " + type + " (expected " + begin + ")");
        }
        try {
            return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException("the PEM " + type + " is not valid Base64");
        }
    }

    /** A short, stable name of a key for messages: the first 16 hex digits of the SHA-256 of its encoding. */
    static String fingerprint(PublicKey key) {
        return Index.sha256(key.getEncoded()).substring(0, 16);
    }
}
