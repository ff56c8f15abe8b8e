package dev.quiver.catalog;

import aQute.bnd.osgi.repository.SimpleIndexer;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

/** Builds what the tests read: bundles, R5 indexes as bnd writes them, keys and signatures. */
final class TestIndexes {

    private TestIndexes() {
    }

    /** A minimal bundle jar. */
    static Path bundle(Path folder, String name, String version) throws IOException {
        return bundle(folder, name, version, Map.of());
    }

    /**
     * A bundle jar with more headers ({@code Import-Package}, {@code Export-Package}, ...). Each exported
     * package gets an empty marker class, so bnd's indexer and the framework see a real package.
     */
    static Path bundle(Path folder, String name, String version, Map<String, String> headers) throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Bundle-ManifestVersion", "2");
        main.putValue("Bundle-SymbolicName", name);
        main.putValue("Bundle-Version", version);
        headers.forEach(main::putValue);
        Path jar = Files.createDirectories(folder).resolve(name + "-" + version + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            String exports = headers.getOrDefault("Export-Package", "");
            for (String clause : exports.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
                String pkg = clause.split(";")[0].strip();
                if (!pkg.isEmpty()) {
                    out.putNextEntry(new ZipEntry(pkg.replace('.', '/') + "/package.txt"));
                    out.write(pkg.getBytes(StandardCharsets.UTF_8));
                    out.closeEntry();
                }
            }
        }
        return jar;
    }

    /** An R5 index of jars written by bnd's own indexer (as bnd-indexer-maven-plugin writes it), URLs relative. */
    static Path bndIndex(Path index, String name, List<Path> jars) throws IOException {
        List<File> files = jars.stream().map(Path::toFile).toList();
        new SimpleIndexer().files(files).base(index.getParent().toUri()).name(name).index(index.toFile());
        return index;
    }

    /** One resource of an index, as bnd's indexer writes it (upper-case hash). */
    static String resource(String name, String version, Path jar, String url, boolean tool) throws IOException {
        String sha = ContentHashes.sha256(jar).toUpperCase(java.util.Locale.ROOT);
        return "  <resource>\n"
                + "    <capability namespace=\"osgi.identity\">\n"
                + "      <attribute name=\"osgi.identity\" value=\"" + name + "\"/>\n"
                + "      <attribute name=\"type\" value=\"osgi.bundle\"/>\n"
                + "      <attribute name=\"version\" value=\"" + version + "\" type=\"Version\"/>\n"
                + "    </capability>\n"
                + "    <capability namespace=\"osgi.content\">\n"
                + "      <attribute name=\"size\" value=\"" + Files.size(jar) + "\" type=\"Long\"/>\n"
                + "      <attribute name=\"mime\" value=\"application/vnd.osgi.bundle\"/>\n"
                + "      <attribute name=\"url\" value=\"" + url + "\"/>\n"
                + "      <attribute name=\"osgi.content\" value=\"" + sha + "\"/>\n"
                + "    </capability>\n"
                + (tool ? "    <capability namespace=\"osgi.service\">\n"
                        + "      <directive name=\"uses\" value=\"dev.quiver.api\"/>\n"
                        + "      <attribute name=\"objectClass\" value=\"dev.quiver.api.Tool\" type=\"List&lt;String&gt;\"/>\n"
                        + "    </capability>\n" : "")
                + "  </resource>\n";
    }

    static String index(String name, List<String> resources) {
        return "<?xml version='1.0' encoding='UTF-8'?>\n<repository xmlns=\"http://www.osgi.org/xmlns/repository/v1.0.0\" name=\""
                + name + "\" increment=\"1\">\n" + String.join("", resources) + "</repository>\n";
    }

    static KeyPair ed25519() throws Exception {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    static String publicPem(KeyPair pair) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(pair.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    static byte[] sign(byte[] data, PrivateKey key) throws Exception {
        Signature signer = Signature.getInstance(key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "Ed25519");
        signer.initSign(key);
        signer.update(data);
        return signer.sign();
    }
}
