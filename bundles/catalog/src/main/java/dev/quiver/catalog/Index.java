package dev.quiver.catalog;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * An OSGi Repository (R5) index, as bnd's indexer writes it: one {@code resource} per bundle, with its
 * {@code osgi.identity} (name, version, type), its {@code osgi.content} (SHA-256, size, URL) and the
 * {@code osgi.service} capabilities its components declare.
 *
 * @param name the repository's name attribute; empty when it has none
 * @param resources the bundles it lists
 */
record Index(String name, List<Resource> resources) {

    static final String TOOL = "dev.quiver.api.Tool";

    /**
     * One bundle of an index.
     *
     * @param name the symbolic name
     * @param version the version, as the index writes it
     * @param sha256 the jar's SHA-256, lower-case hex
     * @param size the jar's size in bytes, -1 when the index does not say
     * @param url the jar's location, resolved against the index's
     * @param services the object classes of its {@code osgi.service} capabilities
     * @param capabilities what the index says it provides (all but {@code osgi.content})
     * @param requirements what the index says it needs
     */
    record Resource(String name, String version, String sha256, long size, URI url, List<String> services,
            List<Clause> capabilities, List<Clause> requirements) {

        Resource {
            services = List.copyOf(services);
            capabilities = List.copyOf(capabilities);
            requirements = List.copyOf(requirements);
        }

        /** A resource the index lists without its capabilities and requirements. */
        Resource(String name, String version, String sha256, long size, URI url, List<String> services) {
            this(name, version, sha256, size, url, services, List.of(), List.of());
        }

        /**
         * Whether the index says what the bundle needs and provides, as bnd's indexer does (it always
         * writes the bundle's {@code osgi.wiring.*} capabilities or its host requirement). An index
         * written by hand may list identity and content only: then the jar's manifest says it.
         */
        boolean described() {
            return !requirements.isEmpty()
                    || capabilities.stream().anyMatch(c -> c.namespace().startsWith("osgi.wiring."));
        }

        boolean providesTools() {
            return services.contains(TOOL);
        }
    }

    Index {
        resources = List.copyOf(resources);
    }

    /**
     * Parses an index (plain or gzip-compressed XML). No DTD, entity or external reference is
     * processed: an index may come from the network.
     *
     * @param bytes the file's content
     * @param base the index's own location, against which relative jar URLs are resolved
     * @throws IOException naming what is wrong with it
     */
    static Index parse(byte[] bytes, URI base) throws IOException {
        Document document;
        try (InputStream in = open(bytes)) {
            document = builder().parse(in);
        } catch (SAXException e) {
            throw new IOException("not a valid XML document (" + e.getMessage() + ")", e);
        }
        Element root = document.getDocumentElement();
        if (!"repository".equals(local(root))) {
            throw new IOException("not an OSGi repository index (its root element is <" + local(root) + ">)");
        }
        List<Resource> resources = new ArrayList<>();
        NodeList children = root.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element element && "resource".equals(local(element))) {
                resource(element, base, resources);
            }
        }
        return new Index(root.getAttribute("name"), resources);
    }

    private static void resource(Element resource, URI base, List<Resource> into) throws IOException {
        String name = null;
        String version = "0.0.0";
        String type = "osgi.bundle";
        String sha = null;
        String url = null;
        long size = -1;
        List<String> services = new ArrayList<>();
        List<Clause> capabilities = new ArrayList<>();
        List<Clause> requirements = new ArrayList<>();
        NodeList children = resource.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (!(children.item(i) instanceof Element element)) {
                continue;
            }
            boolean capability = "capability".equals(local(element));
            if (!capability && !"requirement".equals(local(element))) {
                continue;
            }
            Clause clause = clause(element, name);
            if (!capability) {
                requirements.add(clause);
                continue;
            }
            String namespace = clause.namespace();
            if (!"osgi.content".equals(namespace)) {
                capabilities.add(clause);
            }
            for (Map.Entry<String, Object> attribute : clause.attributes().entrySet()) {
                String key = attribute.getKey();
                String value = String.valueOf(attribute.getValue());
                switch (namespace) {
                    case "osgi.identity" -> {
                        switch (key) {
                            case "osgi.identity" -> name = value;
                            case "version" -> version = value;
                            case "type" -> type = value;
                            default -> {
                            }
                        }
                    }
                    case "osgi.content" -> {
                        switch (key) {
                            case "osgi.content" -> sha = value.toLowerCase(Locale.ROOT);
                            case "url" -> url = value;
                            case "size" -> size = parseSize(value);
                            default -> {
                            }
                        }
                    }
                    case "osgi.service" -> {
                        if ("objectClass".equals(key)) {
                            Object classes = attribute.getValue();
                            for (Object objectClass : classes instanceof List<?> list ? list : List.of(value.split(","))) {
                                if (!String.valueOf(objectClass).isBlank()) {
                                    services.add(String.valueOf(objectClass).strip());
                                }
                            }
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        if (name == null || !"osgi.bundle".equals(type) && !"osgi.fragment".equals(type)) {
            return; // not a bundle: nothing the platform can install
        }
        if (sha == null || url == null) {
            throw new IOException("resource " + name + " has no osgi.content (SHA-256 and URL)");
        }
        if (!sha.matches("[0-9a-f]{64}")) {
            throw new IOException("resource " + name + " has an osgi.content that is not a SHA-256: " + sha);
        }
        URI location;
        try {
            location = base.resolve(new URI(url.replace(" ", "%20")));
        } catch (java.net.URISyntaxException e) {
            throw new IOException("resource " + name + " has an invalid URL: " + url);
        }
        into.add(new Resource(name, version, sha, size, location, services, capabilities, requirements));
    }

    /** One capability or requirement element: its typed attributes and its directives. */
    private static Clause clause(Element element, String resource) throws IOException {
        String namespace = element.getAttribute("namespace");
        Map<String, Object> attributes = new LinkedHashMap<>();
        Map<String, String> directives = new LinkedHashMap<>();
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (!(children.item(i) instanceof Element child)) {
                continue;
            }
            String key = child.getAttribute("name");
            String value = child.getAttribute("value");
            if ("directive".equals(local(child))) {
                directives.put(key, value);
            } else if ("attribute".equals(local(child))) {
                try {
                    attributes.put(key, Clause.typed(child.getAttribute("type"), value));
                } catch (IllegalArgumentException e) {
                    throw new IOException("resource " + (resource == null ? "" : resource + " ") + "has a " + namespace
                            + " attribute " + key + " that cannot be read: " + e.getMessage());
                }
            }
        }
        return new Clause(namespace, attributes, directives);
    }

    private static long parseSize(String value) throws IOException {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IOException("a size that is not a number: " + value);
        }
    }

    private static InputStream open(byte[] bytes) throws IOException {
        if (bytes.length > 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
            return new GZIPInputStream(new ByteArrayInputStream(bytes));
        }
        return new ByteArrayInputStream(bytes);
    }

    private static DocumentBuilder builder() throws IOException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IOException("no safe XML parser is available: " + e.getMessage(), e);
        }
    }

    private static String local(Node node) {
        return node.getLocalName() != null ? node.getLocalName() : node.getNodeName();
    }

    /** SHA-256 of some bytes, lower-case hex. */
    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
