package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.distribution.QuiverProcess.Run;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin platform as a user meets it in the built distribution: its catalogue, the third-party
 * example built on its own and dropped into a running Quiver, and `quiver catalog` installing from a
 * signed catalogue that trusts it.
 */
class PluginEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA = Pattern.compile("name=\"osgi.content\" value=\"([0-9A-Fa-f]{64})\"");

    @TempDir
    Path temp;

    private Path workspace;
    private Path deploy;
    private Path plugins;
    private Map<String, String> isolated;

    @BeforeEach
    void folders() throws IOException {
        workspace = Files.createDirectories(temp.resolve("ws"));
        deploy = Files.createDirectories(temp.resolve("deploy"));
        plugins = Files.createDirectories(temp.resolve("plugins"));
        // a private deploy/ and plugins/ for this test; the distribution's own stay untouched
        isolated = Map.of("QUIVER_JAVA_OPTS", "-Dfelix.fileinstall.dir=" + deploy + " -Dquiver.plugins.dir=" + plugins);
    }

    private Run quiver(String... args) throws Exception {
        return QuiverProcess.run(workspace, isolated, "", args);
    }

    @Test
    void theDistributionShipsItsCatalogueAndEveryJarMatchesIt() throws Exception {
        Path dist = QuiverProcess.distribution();
        Set<String> listed = shas(Files.readString(dist.resolve("catalog/index.xml")));
        Set<String> shipped = new HashSet<>();
        for (String folder : List.of("bundle", "shell")) {
            try (Stream<Path> jars = Files.list(dist.resolve(folder))) {
                for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                    shipped.add(sha256(jar));
                }
            }
        }
        assertTrue(listed.containsAll(shipped), "every shipped jar is in catalog/index.xml");
        assertEquals(listed.size(), shipped.size(), "and nothing else is");
        Path full = root().resolve("features/full/target/index.xml");
        if (Files.exists(full)) {
            // by name and version: the allow-list may have been indexed from an older build of a snapshot
            assertEquals(identities(Files.readString(full)), identities(Files.readString(dist.resolve("catalog/index.xml"))),
                    "bundle/ and shell/ are exactly the full catalogue's allow-list");
        }

        Run verify = quiver("catalog", "verify");
        assertEquals(0, verify.exitCode(), verify.stdout() + verify.stderr());
        assertTrue(verify.stdout().contains("verified: no problems"), verify.stdout());

        Run list = quiver("catalog", "list", "--json");
        assertEquals(0, list.exitCode(), list.stderr());
        JsonNode catalog = JSON.readTree(list.stdout());
        assertFalse(catalog.get("enforcing").asBoolean());
        assertEquals("full", catalog.get("catalogs").get(0).get("name").asText());
        boolean coreTools = false;
        for (JsonNode entry : catalog.get("entries")) {
            coreTools |= entry.get("name").asText().equals("dev.quiver.tools.core") && entry.get("tools").asBoolean();
        }
        assertTrue(coreTools, "the index says which bundles provide Tool services: " + list.stdout());
    }

    @Test
    void theExampleBuildsOnItsOwnOutsideTheRepository() throws Exception {
        Path root = root();
        // "after mvn install of the reactor": what the example needs of it is the API and its two parent POMs
        maven(root, "install:install-file", "-Dfile=pom.xml", "-DpomFile=pom.xml", "-Dpackaging=pom");
        maven(root.resolve("bundles"), "install:install-file", "-Dfile=pom.xml", "-DpomFile=pom.xml", "-Dpackaging=pom");
        maven(root.resolve("bundles/api"), "install:install-file",
                "-Dfile=target/dev.quiver.api-" + version() + ".jar", "-DpomFile=pom.xml");

        Path copy = temp.resolve("hello-tool");
        QuiverProcess.copyTree(root.resolve("examples/hello-tool"), copy, relative -> !relative.startsWith("target"));
        maven(copy, "package");
        Path jar = copy.resolve("target/hello-tool-1.0.0.jar");
        assertTrue(Files.exists(jar), "mvn package gives the bundle");
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            assertEquals("com.example.hello", manifest.getMainAttributes().getValue("Bundle-SymbolicName"));
            assertTrue(manifest.getMainAttributes().getValue("Import-Package").contains("dev.quiver.api"));
            assertTrue(manifest.getMainAttributes().getValue("Provide-Capability").contains("dev.quiver.api.Tool"));
            assertTrue(file.getEntry("OSGI-INF/com.example.hello.HelloTool.xml") != null);
        }
        assertEquals(sha256(exampleJar()), sha256(jar), "the build is reproducible: the same bytes as the reactor's");
    }

    @Test
    void aJarDroppedIntoARunningQuiversDeployFolderBringsItsToolAndDeletingItTakesItAway() throws Exception {
        try (Shell shell = Shell.start(workspace, isolated)) {
            assertFalse(shell.run("quiver:tools").contains("hello "), "not there yet");
            Path jar = Files.copy(exampleJar(), deploy.resolve("hello-tool-1.0.0.jar"));
            String tools = shell.until("quiver:tools", out -> out.contains("hello "));
            assertTrue(tools.contains("auto-approve requested, not trusted"), tools);
            String bundles = shell.run("quiver:catalog bundles");
            assertTrue(bundles.matches("(?s).*com\\.example\\.hello\\s+1\\.0\\.0\\s+active\\s+deploy\\s+-\\s+hello.*"), bundles);

            Files.delete(jar);
            shell.until("quiver:tools", out -> !out.contains("hello "));
        }
    }

    @Test
    void exitLeavesTheShellCleanly() throws Exception {
        Shell shell = Shell.start(workspace, isolated);
        String said = shell.exit("exit");
        assertFalse(said.contains("Exception") || said.contains("Cannot coerce"), said);
    }

    @Test
    void theCatalogCommandsInstallFromASignedCatalogueAndTrustOnlyWhileTheSignatureHolds() throws Exception {
        Path keys = temp.resolve("keys");
        Run keygen = quiver("catalog", "keygen", "--out", keys.toString());
        assertEquals(0, keygen.exitCode(), keygen.stderr());
        Path catalog = Files.createDirectories(temp.resolve("catalog"));
        Path jar = Files.copy(exampleJar(), catalog.resolve("hello-tool-1.0.0.jar"));
        Path index = catalog.resolve("index.xml");
        Files.writeString(index, index("acme", jar));
        Run sign = quiver("catalog", "sign", index.toString(), "--key", keys.resolve("catalog-key.pem").toString());
        assertEquals(0, sign.exitCode(), sign.stderr());
        assertTrue(Files.exists(catalog.resolve("index.xml.sig")));
        QuiverProcess.userConfig(workspace, "{\"catalogs\": [{\"path\": \"" + index
                + "\", \"publicKey\": \"" + keys.resolve("catalog-key.pub.pem") + "\", \"trusted\": [\"com.example.hello\"]}]}");

        Run list = quiver("catalog", "list");
        assertEquals(0, list.exitCode(), list.stdout() + list.stderr());
        assertTrue(list.stdout().contains("catalogue acme") && list.stdout().contains("signature verified")
                && list.stdout().contains("com.example.hello"), list.stdout());

        Run install = quiver("catalog", "install", "hello");
        assertEquals(0, install.exitCode(), install.stderr());
        assertEquals("installed com.example.hello 1.0.0 (active; tools: hello; trusted)", install.stdout().strip());
        assertTrue(Files.exists(plugins.resolve("com.example.hello-1.0.0.jar")), "kept for later processes");

        JsonNode hello = tool(quiver("tools", "--json"), "hello");
        assertEquals("allow", hello.get("decision").asText(), hello.toString());
        assertEquals("auto-approved (trusted bundle)", hello.get("note").asText());
        Run call = quiver("call", "hello", "{\"name\":\"Ada\"}");
        assertEquals(0, call.exitCode(), call.stderr());
        assertEquals("Hello, Ada!\n", Files.readString(workspace.resolve("hello.txt")));

        // someone edits the index without the key: the catalogue is refused, so nothing in it is trusted
        Files.writeString(index, Files.readString(index).replace("name=\"acme\"", "name=\"acme2\""));
        Run verify = quiver("catalog", "verify");
        assertEquals(1, verify.exitCode(), verify.stdout());
        assertTrue(verify.stdout().contains("does not verify against the key"), verify.stdout());
        JsonNode untrusted = tool(quiver("tools", "--json"), "hello");
        assertEquals("ask", untrusted.get("decision").asText());
        assertEquals("auto-approve requested, not trusted", untrusted.get("note").asText());
        Run refused = quiver("call", "hello", "{\"name\":\"Bob\"}");
        assertEquals(3, refused.exitCode(), refused.stderr());

        Run remove = quiver("catalog", "remove", "hello");
        assertEquals(0, remove.exitCode(), remove.stderr());
        assertFalse(Files.exists(plugins.resolve("com.example.hello-1.0.0.jar")));
        assertTrue(quiver("tools", "--json").stdout().indexOf("\"hello\"") < 0);
    }

    @Test
    void installBringsTheLibraryABundleNeedsOrNamesTheMissingRequirementAndInstallsNothing() throws Exception {
        Path catalog = Files.createDirectories(temp.resolve("catalog"));
        Path library = jar(catalog, "com.example.greeting", Map.of("Export-Package", "com.example.greeting;version=1.0.0"));
        Path needs = jar(catalog, "com.example.needs", Map.of("Import-Package", "com.example.greeting;version=\"[1,2)\""));
        Path orphan = jar(catalog, "com.example.orphan", Map.of("Import-Package", "com.example.absent;version=\"[1,2)\""));
        Path index = catalog.resolve("index.xml");
        Files.writeString(index, index("acme", library, needs, orphan));
        QuiverProcess.userConfig(workspace, "{\"catalogs\": [\"" + index + "\"]}");

        Run missing = quiver("catalog", "install", "orphan");
        assertEquals(1, missing.exitCode(), missing.stdout());
        String said = "quiver: com.example.orphan 1.0.0 was not installed: it needs osgi.wiring.package "
                + "(&(osgi.wiring.package=com.example.absent)(version>=1.0.0)(!(version>=2.0.0))), which no running bundle "
                + "and no usable catalogue provides. Nothing was installed.";
        assertTrue(missing.stderr().lines().anyMatch(said::equals), missing.stderr());
        try (Stream<Path> kept = Files.list(plugins)) {
            assertEquals(0, kept.count(), "plugins/ is unchanged");
        }

        Run install = quiver("catalog", "install", "needs");
        assertEquals(0, install.exitCode(), install.stderr());
        assertTrue(install.stdout().startsWith("installed com.example.needs 1.0.0 (active"), install.stdout());
        assertTrue(Files.exists(plugins.resolve("com.example.greeting-1.0.0.jar")), "the library is kept too");
        assertTrue(Files.exists(plugins.resolve("com.example.needs-1.0.0.jar")));

        // the next process installs both from plugins/, and both run
        JsonNode bundles = JSON.readTree(quiver("catalog", "bundles", "--json").stdout());
        for (String name : List.of("com.example.greeting", "com.example.needs")) {
            JsonNode bundle = null;
            for (JsonNode b : bundles) {
                if (name.equals(b.get("name").asText())) {
                    bundle = b;
                }
            }
            assertTrue(bundle != null, name + " is installed: " + bundles);
            assertEquals("active", bundle.get("state").asText(), bundle.toString());
            assertEquals("catalog", bundle.get("origin").asText(), bundle.toString());
        }
    }

    @Test
    void anInstallationThatEnforcesItsCataloguesRefusesAJarInDeployFromTheFirstInstant() throws Exception {
        Files.copy(exampleJar(), deploy.resolve("hello-tool-1.0.0.jar"));
        Map<String, String> enforcing = Map.of("QUIVER_JAVA_OPTS", isolated.get("QUIVER_JAVA_OPTS")
                + " -Dquiver.catalog.enforce=true");
        Run tools = QuiverProcess.run(workspace, enforcing, "", "tools", "--json");
        assertEquals(0, tools.exitCode(), tools.stderr());
        assertTrue(tools.stdout().indexOf("\"hello\"") < 0, tools.stdout());
        assertTrue(tools.stdout().contains("\"read_file\""), "the installation itself runs");
        Run bundles = QuiverProcess.run(workspace, enforcing, "", "catalog", "bundles");
        assertTrue(bundles.stdout().matches("(?s).*com\\.example\\.hello\\s+1\\.0\\.0\\s+installed.*refused: its content.*"),
                bundles.stdout());

        Run open = quiver("tools", "--json");
        assertTrue(open.stdout().contains("\"hello\""), "without enforcement the same jar runs: " + open.stdout());
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static JsonNode tool(Run run, String name) throws IOException {
        assertEquals(0, run.exitCode(), run.stderr());
        for (JsonNode tool : JSON.readTree(run.stdout())) {
            if (tool.get("name").asText().equals(name)) {
                return tool;
            }
        }
        throw new AssertionError(name + " is not listed: " + run.stdout());
    }

    private static Path root() {
        return Path.of(System.getProperty("quiver.root", "..")).toAbsolutePath().normalize();
    }

    private static String version() throws IOException {
        Matcher m = Pattern.compile("<version>([^<]+)</version>").matcher(Files.readString(root().resolve("pom.xml")));
        m.find(); // the parent's own version is its first <version>
        return m.group(1);
    }

    /** The example's jar as the reactor built it (a test dependency of this module). */
    static Path exampleJar() {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("hello-tool") && entry.endsWith(".jar")) {
                return Path.of(entry);
            }
        }
        Path built = root().resolve("examples/hello-tool/target/hello-tool-1.0.0.jar");
        if (Files.exists(built)) {
            return built;
        }
        throw new AssertionError("examples/hello-tool's jar is not on the class path");
    }

    private void maven(Path directory, String... goals) throws Exception {
        String home = System.getProperty("quiver.maven.home");
        List<String> command = new ArrayList<>();
        command.add(home != null && Files.isExecutable(Path.of(home, "bin", "mvn")) ? Path.of(home, "bin", "mvn").toString()
                : "mvn");
        command.add("-B");
        command.add("-q");
        if (System.getProperty("quiver.maven.offline", "").endsWith("true")) {
            command.add("-o");
        }
        command.addAll(List.of(goals));
        Path log = temp.resolve("maven-" + System.nanoTime() + ".log");
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 5 minutes");
        }
        assertEquals(0, process.exitValue(), String.join(" ", command) + " in " + directory + ":\n" + Files.readString(log));
    }

    private static Set<String> shas(String index) {
        Set<String> shas = new HashSet<>();
        // the bundles of the index: synthetic multi-release entries carry size 0 and a urn: URL
        for (String resource : index.split("<resource>")) {
            if (resource.contains("value=\"osgi.bundle\"") || resource.contains("value=\"osgi.fragment\"")) {
                Matcher m = SHA.matcher(resource);
                if (m.find()) {
                    shas.add(m.group(1).toLowerCase());
                }
            }
        }
        return shas;
    }

    private static Set<String> identities(String index) {
        Set<String> identities = new HashSet<>();
        Pattern identity = Pattern.compile("name=\"osgi.identity\" value=\"([^\"]+)\"");
        Pattern version = Pattern.compile("name=\"version\" value=\"([^\"]+)\" type=\"Version\"");
        for (String resource : index.split("<resource>")) {
            if (resource.contains("value=\"osgi.bundle\"") || resource.contains("value=\"osgi.fragment\"")) {
                Matcher name = identity.matcher(resource);
                Matcher v = version.matcher(resource);
                if (name.find() && v.find()) {
                    identities.add(name.group(1) + "@" + v.group(1));
                }
            }
        }
        return identities;
    }

    static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    /** An R5 index of bundles, the way bnd's indexer writes their identity and content (no requirements). */
    private static String index(String name, Path... jars) throws Exception {
        StringBuilder xml = new StringBuilder("<?xml version='1.0' encoding='UTF-8'?>\n"
                + "<repository xmlns=\"http://www.osgi.org/xmlns/repository/v1.0.0\" name=\"" + name + "\" increment=\"1\">\n");
        for (Path jar : jars) {
            String bsn;
            String version;
            try (JarFile file = new JarFile(jar.toFile())) {
                bsn = file.getManifest().getMainAttributes().getValue("Bundle-SymbolicName");
                version = file.getManifest().getMainAttributes().getValue("Bundle-Version");
            }
            xml.append("  <resource>\n"
                    + "    <capability namespace=\"osgi.identity\">\n"
                    + "      <attribute name=\"osgi.identity\" value=\"" + bsn + "\"/>\n"
                    + "      <attribute name=\"type\" value=\"osgi.bundle\"/>\n"
                    + "      <attribute name=\"version\" value=\"" + version + "\" type=\"Version\"/>\n"
                    + "    </capability>\n"
                    + "    <capability namespace=\"osgi.content\">\n"
                    + "      <attribute name=\"size\" value=\"" + Files.size(jar) + "\" type=\"Long\"/>\n"
                    + "      <attribute name=\"url\" value=\"" + jar.getFileName() + "\"/>\n"
                    + "      <attribute name=\"osgi.content\" value=\"" + sha256(jar).toUpperCase() + "\"/>\n"
                    + "    </capability>\n"
                    + "  </resource>\n");
        }
        return xml.append("</repository>\n").toString();
    }

    /** A bundle of no code at version 1.0.0 with some headers; each exported package holds a text file. */
    private static Path jar(Path folder, String bsn, Map<String, String> headers) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().putValue("Manifest-Version", "1.0");
        manifest.getMainAttributes().putValue("Bundle-ManifestVersion", "2");
        manifest.getMainAttributes().putValue("Bundle-SymbolicName", bsn);
        manifest.getMainAttributes().putValue("Bundle-Version", "1.0.0");
        headers.forEach(manifest.getMainAttributes()::putValue);
        Path jar = folder.resolve(bsn + "-1.0.0.jar");
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar), manifest)) {
            String exported = headers.get("Export-Package");
            if (exported != null) {
                out.putNextEntry(new java.util.zip.ZipEntry(exported.split(";")[0].replace('.', '/') + "/about.txt"));
                out.write(bsn.getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }

    /** {@code bin/quiver shell}, driven through its standard input as a person would type. */
    static final class Shell implements AutoCloseable {
        private final Process process;
        private final OutputStream in;
        private final StringBuffer out = new StringBuffer();

        private Shell(Process process) {
            this.process = process;
            this.in = process.getOutputStream();
            Thread reader = new Thread(() -> {
                try (InputStream stream = process.getInputStream()) {
                    byte[] buffer = new byte[8192];
                    int n;
                    while ((n = stream.read(buffer)) > 0) {
                        out.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    }
                } catch (IOException closed) {
                    // the process ended
                }
            }, "quiver-shell-reader");
            reader.setDaemon(true);
            reader.start();
        }

        static Shell start(Path workspace, Map<String, String> environment) throws Exception {
            ProcessBuilder builder = new ProcessBuilder(QuiverProcess.distribution().resolve("bin/quiver").toString(), "shell")
                    .directory(workspace.toFile()).redirectErrorStream(true);
            Path home = Files.createDirectories(workspace.resolveSibling(workspace.getFileName() + "-home"));
            builder.environment().put("HOME", home.toString());
            builder.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
            builder.environment().put("XDG_STATE_HOME", home.resolve(".state").toString());
            builder.environment().putAll(environment);
            Shell shell = new Shell(builder.start());
            shell.await(0, "g! ");
            return shell;
        }

        /** Runs a command line and returns what it printed up to the next prompt. */
        String run(String line) throws Exception {
            int from = out.length();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            return await(from, "g! ");
        }

        /** Types a line that should end the shell; what it printed, once it ended with exit code 0. */
        String exit(String line) throws Exception {
            int from = out.length();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("`" + line + "` did not end quiver shell:\n" + out.substring(from));
            }
            Thread.sleep(100); // the reader takes the last bytes
            assertEquals(0, process.exitValue(), out.substring(from));
            return out.substring(from);
        }

        /** Runs a command line every 300 ms until its output satisfies the condition (30 s at most). */
        String until(String line, java.util.function.Predicate<String> condition) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String last = "";
            while (System.nanoTime() < deadline) {
                last = run(line);
                if (condition.test(last)) {
                    return last;
                }
                Thread.sleep(300);
            }
            throw new AssertionError("`" + line + "` never gave the expected output; last:\n" + last);
        }

        private String await(int from, String prompt) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                int at = out.indexOf(prompt, from);
                if (at >= 0) {
                    return out.substring(from, at);
                }
                if (!process.isAlive()) {
                    throw new AssertionError("quiver shell ended:\n" + out);
                }
                Thread.sleep(20);
            }
            throw new AssertionError("no prompt from quiver shell within 30 s:\n" + out.substring(from));
        }

        @Override
        public void close() throws Exception {
            in.close(); // end of input: the shell stops the framework
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("quiver shell did not stop at the end of its input");
            }
        }
    }
}
