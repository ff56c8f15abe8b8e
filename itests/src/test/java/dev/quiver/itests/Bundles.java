package dev.quiver.itests;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

/**
 * Test bundles built at test time with the JDK alone: a manifest, a Declarative Services descriptor
 * and the class of {@code fixture.FixtureTool}, read from the test's own class path.
 */
final class Bundles {

    static final String TOOL_CLASS = "dev.quiver.itests.fixture.FixtureTool";

    private Bundles() {
    }

    /** A bundle registering one fixture tool. */
    static Path tool(Path folder, String bsn, String version, String toolName, String access, String behavior,
            String label, boolean autoApprove) throws IOException {
        return tool(folder, bsn, version, toolName, access, behavior, label, autoApprove, "");
    }

    /** A fixture tool bundle, with extra imports (to make it unresolvable). */
    static Path tool(Path folder, String bsn, String version, String toolName, String access, String behavior,
            String label, boolean autoApprove, String extraImports) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Bundle-ManifestVersion", "2");
        headers.put("Bundle-SymbolicName", bsn);
        headers.put("Bundle-Version", version);
        headers.put("Import-Package", "dev.quiver.api;version=\"[1.0,2)\"" + extraImports);
        headers.put("Service-Component", "OSGI-INF/tool.xml");
        String component = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<scr:component xmlns:scr=\"http://www.osgi.org/xmlns/scr/v1.4.0\" name=\"" + bsn + ".tool\" activate=\"activate\">\n"
                + "  <implementation class=\"" + TOOL_CLASS + "\"/>\n"
                + "  <service><provide interface=\"dev.quiver.api.Tool\"/></service>\n"
                + "  <property name=\"quiver.tool.name\" value=\"" + toolName + "\"/>\n"
                + "  <property name=\"quiver.tool.access\" value=\"" + access + "\"/>\n"
                + (autoApprove ? "  <property name=\"quiver.tool.autoApprove\" value=\"true\"/>\n" : "")
                + "  <property name=\"fixture.behavior\" value=\"" + behavior + "\"/>\n"
                + "  <property name=\"fixture.label\" value=\"" + label + "\"/>\n"
                + "</scr:component>\n";
        Path jar = folder.resolve(bsn + "-" + version + "-" + label.replaceAll("[^A-Za-z0-9]", "") + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest(headers))) {
            entry(out, "OSGI-INF/tool.xml", component.getBytes(StandardCharsets.UTF_8));
            entry(out, TOOL_CLASS.replace('.', '/') + ".class", classBytes(TOOL_CLASS));
        }
        return jar;
    }

    /**
     * A bundle that declares no requirement at all, with an immediate component whose class needs only
     * java.*: creating it sets the system property {@code quiver.fixture.sneaky}.
     */
    static Path sneaky(Path folder) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Bundle-ManifestVersion", "2");
        headers.put("Bundle-SymbolicName", "com.example.sneaky");
        headers.put("Bundle-Version", "1.0.0");
        headers.put("Service-Component", "OSGI-INF/sneaky.xml");
        String component = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<scr:component xmlns:scr=\"http://www.osgi.org/xmlns/scr/v1.4.0\" name=\"sneaky\" immediate=\"true\">\n"
                + "  <implementation class=\"dev.quiver.itests.fixture.Sneaky\"/>\n"
                + "</scr:component>\n";
        Path jar = folder.resolve("com.example.sneaky-1.0.0.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest(headers))) {
            entry(out, "OSGI-INF/sneaky.xml", component.getBytes(StandardCharsets.UTF_8));
            entry(out, "dev/quiver/itests/fixture/Sneaky.class", classBytes("dev.quiver.itests.fixture.Sneaky"));
        }
        return jar;
    }

    /** A library bundle: it exports packages (comma-separated, each holding a text file) and registers nothing. */
    static Path library(Path folder, String bsn, String version, String exportedPackage, String packageVersion)
            throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Bundle-ManifestVersion", "2");
        headers.put("Bundle-SymbolicName", bsn);
        headers.put("Bundle-Version", version);
        headers.put("Export-Package", exportedPackage + ";version=" + packageVersion);
        Path jar = folder.resolve(bsn + "-" + version + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest(headers))) {
            for (String name : exportedPackage.split(",")) {
                entry(out, name.replace('.', '/') + "/about.txt", bsn.getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }

    /** A jar with a class and no OSGi headers. */
    static Path plainJar(Path folder, String name) throws IOException {
        Path jar = folder.resolve(name + ".jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            entry(out, TOOL_CLASS.replace('.', '/') + ".class", classBytes(TOOL_CLASS));
        }
        return jar;
    }

    private static Manifest manifest(Map<String, String> headers) {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        headers.forEach(main::putValue);
        return manifest;
    }

    private static void entry(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new ZipEntry(name));
        out.write(bytes);
        out.closeEntry();
    }

    private static byte[] classBytes(String className) throws IOException {
        String resource = "/" + className.replace('.', '/') + ".class";
        try (InputStream in = Bundles.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("The fixture class " + resource + " is not on the test's class path");
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toByteArray();
        }
    }
}
