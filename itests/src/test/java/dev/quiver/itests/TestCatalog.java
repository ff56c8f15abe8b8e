package dev.quiver.itests;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;

/** A catalogue written by a test: an R5 index.xml over some jars, optionally signed with a fresh key. */
final class TestCatalog {

    private static final AtomicLong CLOCK = new AtomicLong(System.currentTimeMillis() - 3_600_000);

    final Path folder;
    final Path index;
    final Path publicKey;
    private final KeyPair key;

    TestCatalog(Path folder) throws Exception {
        this.folder = Files.createDirectories(folder);
        this.index = folder.resolve("index.xml");
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        this.key = generator.generateKeyPair();
        this.publicKey = folder.resolve("catalog-key.pub.pem");
        Files.writeString(publicKey, "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(
                key.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n");
    }

    /** One entry: a jar, and the SHA-256 the index claims for it (its own unless a test lies). */
    record Entry(Path jar, String sha256) {
        static Entry of(Path jar) throws IOException {
            return new Entry(jar, TestCatalog.sha256(jar));
        }
    }

    /** Writes the index over the jars (which must lie in or under the catalogue's folder or anywhere, by URL). */
    TestCatalog write(List<Entry> entries) throws IOException {
        StringBuilder xml = new StringBuilder("<?xml version='1.0' encoding='UTF-8'?>\n"
                + "<repository xmlns=\"http://www.osgi.org/xmlns/repository/v1.0.0\" name=\"test\" increment=\"1\">\n");
        for (Entry entry : entries) {
            String[] identity = identity(entry.jar());
            xml.append("  <resource>\n    <capability namespace=\"osgi.identity\">\n")
                    .append("      <attribute name=\"osgi.identity\" value=\"").append(identity[0]).append("\"/>\n")
                    .append("      <attribute name=\"type\" value=\"osgi.bundle\"/>\n")
                    .append("      <attribute name=\"version\" value=\"").append(identity[1]).append("\" type=\"Version\"/>\n")
                    .append("    </capability>\n    <capability namespace=\"osgi.content\">\n")
                    .append("      <attribute name=\"size\" value=\"").append(Files.size(entry.jar())).append("\" type=\"Long\"/>\n")
                    .append("      <attribute name=\"url\" value=\"").append(folder.relativize(entry.jar())).append("\"/>\n")
                    .append("      <attribute name=\"osgi.content\" value=\"").append(entry.sha256().toUpperCase()).append("\"/>\n")
                    .append("    </capability>\n    <capability namespace=\"osgi.service\">\n")
                    .append("      <attribute name=\"objectClass\" value=\"dev.quiver.api.Tool\" type=\"List&lt;String&gt;\"/>\n")
                    .append("    </capability>\n  </resource>\n");
        }
        xml.append("</repository>\n");
        Files.writeString(index, xml);
        // every rewrite gets a distinct time, so a reader that caches by file time sees each one
        Files.setLastModifiedTime(index, FileTime.fromMillis(CLOCK.addAndGet(1000)));
        return this;
    }

    TestCatalog writeJars(Path... jars) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (Path jar : jars) {
            entries.add(Entry.of(jar));
        }
        return write(entries);
    }

    /** Signs the index as it is now with the catalogue's key. */
    TestCatalog sign() throws Exception {
        Signature signer = Signature.getInstance("Ed25519");
        signer.initSign(key.getPrivate());
        signer.update(Files.readAllBytes(index));
        Path signature = index.resolveSibling("index.xml.sig");
        Files.write(signature, signer.sign());
        Files.setLastModifiedTime(signature, FileTime.fromMillis(CLOCK.addAndGet(1000)));
        return this;
    }

    /** The config.json value of this catalogue. */
    String source(boolean signed, String... trusted) {
        StringBuilder json = new StringBuilder("{\"path\": \"" + index + "\"");
        if (signed) {
            json.append(", \"publicKey\": \"").append(publicKey).append('"');
        }
        json.append(", \"trusted\": [");
        for (int i = 0; i < trusted.length; i++) {
            json.append(i == 0 ? "" : ", ").append('"').append(trusted[i]).append('"');
        }
        return json.append("]}").toString();
    }

    /**
     * A headless session that trusts its workspace for this run, as {@code --trust-workspace} does: the
     * tests write the workspace's .quiver/config.json and mean it to count in full.
     */
    static dev.quiver.api.host.SessionOptions trusted(Path workspace) {
        return new dev.quiver.api.host.SessionOptions(workspace, java.util.Optional.empty(), false, false, false,
                java.util.Optional.empty(), java.util.Optional.empty(), java.util.Optional.empty(), true, false);
    }

    /** Writes a workspace's .quiver/config.json. */
    static void config(Path workspace, String json) throws IOException {
        Path file = Files.createDirectories(workspace.resolve(".quiver")).resolve("config.json");
        Files.writeString(file, json);
        Files.setLastModifiedTime(file, FileTime.fromMillis(CLOCK.addAndGet(1000)));
    }

    static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String[] identity(Path jar) throws IOException {
        try (InputStream in = Files.newInputStream(jar); JarInputStream stream = new JarInputStream(in)) {
            Manifest manifest = stream.getManifest();
            String name = manifest == null ? null : manifest.getMainAttributes().getValue("Bundle-SymbolicName");
            String version = manifest == null ? null : manifest.getMainAttributes().getValue("Bundle-Version");
            return new String[] {name == null ? jar.getFileName().toString().replace(".jar", "") : name.split(";")[0],
                    version == null ? "0.0.0" : version};
        }
    }
}
