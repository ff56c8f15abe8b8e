package dev.quiver.catalog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import org.osgi.framework.Constants;
import org.osgi.framework.Version;
import org.osgi.framework.VersionRange;

/**
 * What a bundle's manifest says it provides and needs, as capabilities and requirements in the
 * namespaces the framework derives from it (OSGi Core R8, 3.3 and 3.6): identity, bundle, host and
 * package wiring, {@code Provide-Capability}, {@code Require-Capability} and the execution
 * environment. Read only from a jar whose SHA-256 was checked against its catalogue.
 *
 * <p>Two headers are left to the framework, which checks them when the bundle is installed (a failure
 * then uninstalls everything the install brought): {@code Bundle-NativeCode}, whose matching depends
 * on the platform's aliases, and {@code DynamicImport-Package}, which is wired as classes load.
 */
final class Manifests {

    /** The capabilities and requirements of one bundle. */
    record Description(List<Clause> capabilities, List<Clause> requirements) {

        Description {
            capabilities = List.copyOf(capabilities);
            requirements = List.copyOf(requirements);
        }
    }

    /** One clause of a header: its paths (package names, namespaces) and its parameters. */
    record HeaderClause(List<String> paths, Map<String, Object> attributes, Map<String, String> directives) {
    }

    private static final String REQUIRED_ENVIRONMENT = "Bundle-RequiredExecutionEnvironment";

    private Manifests() {
    }

    /**
     * Describes a bundle from its manifest's main attributes.
     *
     * @throws IllegalArgumentException naming the header that cannot be read
     */
    static Description describe(Attributes main) {
        List<HeaderClause> identity = header(main, Constants.BUNDLE_SYMBOLICNAME);
        if (identity.isEmpty() || identity.get(0).paths().isEmpty()) {
            throw new IllegalArgumentException("the manifest has no Bundle-SymbolicName");
        }
        HeaderClause bsnClause = identity.get(0);
        String bsn = bsnClause.paths().get(0);
        Version version = version(main.getValue(Constants.BUNDLE_VERSION), Constants.BUNDLE_VERSION);
        List<HeaderClause> host = header(main, Constants.FRAGMENT_HOST);
        boolean fragment = !host.isEmpty();
        List<Clause> capabilities = new ArrayList<>();
        List<Clause> requirements = new ArrayList<>();

        Map<String, String> identityDirectives = new LinkedHashMap<>();
        copy(bsnClause.directives(), identityDirectives, Constants.SINGLETON_DIRECTIVE);
        capabilities.add(new Clause("osgi.identity", Map.of("osgi.identity", bsn, "type",
                fragment ? "osgi.fragment" : "osgi.bundle", "version", version), identityDirectives));
        if (!fragment) {
            Map<String, Object> attributes = new LinkedHashMap<>(bsnClause.attributes());
            attributes.put("bundle-version", version);
            Map<String, String> directives = new LinkedHashMap<>();
            copy(bsnClause.directives(), directives, Constants.SINGLETON_DIRECTIVE, Constants.MANDATORY_DIRECTIVE);
            Map<String, Object> bundle = new LinkedHashMap<>(attributes);
            bundle.put("osgi.wiring.bundle", bsn);
            capabilities.add(new Clause("osgi.wiring.bundle", bundle, directives));
            if (!"never".equals(bsnClause.directives().get(Constants.FRAGMENT_ATTACHMENT_DIRECTIVE))) {
                Map<String, Object> hostAttributes = new LinkedHashMap<>(attributes);
                hostAttributes.put("osgi.wiring.host", bsn);
                capabilities.add(new Clause("osgi.wiring.host", hostAttributes, directives));
            }
        } else {
            HeaderClause clause = host.get(0);
            String filter = and(List.of(equal("osgi.wiring.host", clause.paths().get(0)),
                    range("bundle-version", clause.attributes().get(Constants.BUNDLE_VERSION_ATTRIBUTE))));
            requirements.add(new Clause("osgi.wiring.host", Map.of(), Map.of("filter", filter)));
        }

        for (HeaderClause clause : header(main, Constants.EXPORT_PACKAGE)) {
            Object declared = clause.attributes().containsKey("version") ? clause.attributes().get("version")
                    : clause.attributes().get("specification-version");
            Version exported = version(declared == null ? null : String.valueOf(declared), "the version of an export");
            Map<String, String> directives = new LinkedHashMap<>();
            copy(clause.directives(), directives, Constants.USES_DIRECTIVE, Constants.MANDATORY_DIRECTIVE,
                    Constants.INCLUDE_DIRECTIVE, Constants.EXCLUDE_DIRECTIVE);
            for (String name : clause.paths()) {
                Map<String, Object> attributes = new LinkedHashMap<>(clause.attributes());
                attributes.remove("specification-version");
                attributes.put("osgi.wiring.package", name);
                attributes.put("version", exported);
                attributes.put("bundle-symbolic-name", bsn);
                attributes.put("bundle-version", version);
                capabilities.add(new Clause("osgi.wiring.package", attributes, directives));
            }
        }
        for (HeaderClause clause : header(main, Constants.IMPORT_PACKAGE)) {
            for (String name : clause.paths()) {
                List<String> parts = new ArrayList<>();
                parts.add(equal("osgi.wiring.package", name));
                for (Map.Entry<String, Object> attribute : clause.attributes().entrySet()) {
                    switch (attribute.getKey()) {
                        case "version", "specification-version" -> parts.add(range("version", attribute.getValue()));
                        case "bundle-version" -> parts.add(range("bundle-version", attribute.getValue()));
                        default -> parts.add(equal(attribute.getKey(), String.valueOf(attribute.getValue())));
                    }
                }
                requirements.add(requirement("osgi.wiring.package", and(parts), clause.directives(),
                        Map.of("osgi.wiring.package", name)));
            }
        }
        for (HeaderClause clause : header(main, Constants.REQUIRE_BUNDLE)) {
            for (String name : clause.paths()) {
                String filter = and(List.of(equal("osgi.wiring.bundle", name),
                        range("bundle-version", clause.attributes().get(Constants.BUNDLE_VERSION_ATTRIBUTE))));
                requirements.add(requirement("osgi.wiring.bundle", filter, clause.directives(), Map.of()));
            }
        }
        for (HeaderClause clause : header(main, Constants.PROVIDE_CAPABILITY)) {
            for (String namespace : clause.paths()) {
                capabilities.add(new Clause(namespace, clause.attributes(), clause.directives()));
            }
        }
        for (HeaderClause clause : header(main, Constants.REQUIRE_CAPABILITY)) {
            for (String namespace : clause.paths()) {
                requirements.add(new Clause(namespace, clause.attributes(), clause.directives()));
            }
        }
        // deprecated since R6, still honoured by the framework
        String environments = main.getValue(REQUIRED_ENVIRONMENT);
        if (environments != null && !environments.isBlank()) {
            List<String> any = new ArrayList<>();
            for (HeaderClause clause : header(main, REQUIRED_ENVIRONMENT)) {
                clause.paths().forEach(ee -> any.add(environment(ee)));
            }
            requirements.add(new Clause("osgi.ee", Map.of(), Map.of("filter",
                    any.size() == 1 ? any.get(0) : "(|" + String.join("", any) + ")")));
        }
        return new Description(capabilities, requirements);
    }

    private static Clause requirement(String namespace, String filter, Map<String, String> declared,
            Map<String, Object> attributes) {
        Map<String, String> directives = new LinkedHashMap<>();
        directives.put("filter", filter);
        copy(declared, directives, Constants.RESOLUTION_DIRECTIVE);
        return new Clause(namespace, attributes, directives);
    }

    /** An execution environment name as the framework reads it: {@code JavaSE-17} needs osgi.ee JavaSE 17. */
    private static String environment(String name) {
        int dash = name.lastIndexOf('-');
        if (dash > 0) {
            String ee = name.substring(0, dash);
            String version = name.substring(dash + 1);
            try {
                Version.parseVersion(version);
                return "(&" + equal("osgi.ee", ee.equals("J2SE") ? "JavaSE" : ee) + equal("version", version) + ")";
            } catch (IllegalArgumentException notAVersion) {
                // the whole name is the environment
            }
        }
        return equal("osgi.ee", name);
    }

    private static void copy(Map<String, String> from, Map<String, String> to, String... names) {
        for (String name : names) {
            if (from.containsKey(name)) {
                to.put(name, from.get(name));
            }
        }
    }

    private static Version version(String text, String what) {
        if (text == null || text.isBlank()) {
            return Version.emptyVersion;
        }
        try {
            return Version.parseVersion(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a version");
        }
    }

    private static String range(String attribute, Object value) {
        if (value == null) {
            return null;
        }
        try {
            return new VersionRange(String.valueOf(value).strip()).toFilterString(attribute);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the " + attribute + " range '" + value + "' is not a version range");
        }
    }

    private static String equal(String attribute, String value) {
        return "(" + attribute + "=" + escape(value) + ")";
    }

    /** The conjunction of filters, one level deep as bnd writes it: {@code (&(a=1)(b>=2)(!(b>=3)))}. */
    private static String and(List<String> parts) {
        List<String> present = parts.stream().filter(p -> p != null).toList();
        if (present.size() == 1) {
            return present.get(0);
        }
        StringBuilder filter = new StringBuilder("(&");
        for (String part : present) {
            filter.append(part.startsWith("(&") ? part.substring(2, part.length() - 1) : part);
        }
        return filter.append(')').toString();
    }

    /** A value in an LDAP filter: the characters the filter syntax gives a meaning are escaped. */
    static String escape(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            if (c == '(' || c == ')' || c == '*' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    // ---- header syntax ---------------------------------------------------------------------------

    /**
     * A header split into clauses: {@code path;path;name:=directive;name[:type]=attribute, ...}, with
     * quoted values that may hold commas and semicolons.
     */
    static List<HeaderClause> header(Attributes main, String name) {
        String value = main.getValue(name);
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<HeaderClause> clauses = new ArrayList<>();
        for (String clause : split(value, ',', name)) {
            if (clause.isBlank()) {
                continue;
            }
            List<String> paths = new ArrayList<>();
            Map<String, Object> attributes = new LinkedHashMap<>();
            Map<String, String> directives = new LinkedHashMap<>();
            for (String part : split(clause, ';', name)) {
                int equals = indexOutsideQuotes(part, '=');
                if (equals < 0) {
                    if (!part.isBlank()) {
                        paths.add(part.strip());
                    }
                } else if (equals > 0 && part.charAt(equals - 1) == ':') {
                    directives.put(part.substring(0, equals - 1).strip(), unquote(part.substring(equals + 1)));
                } else {
                    String key = part.substring(0, equals).strip();
                    String type = null;
                    int colon = key.indexOf(':');
                    if (colon > 0) {
                        type = key.substring(colon + 1).strip();
                        key = key.substring(0, colon).strip();
                    }
                    try {
                        attributes.put(key, Clause.typed(type, unquote(part.substring(equals + 1))));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(name + ": " + e.getMessage());
                    }
                }
            }
            if (paths.isEmpty()) {
                throw new IllegalArgumentException(name + " has a clause without a name: " + clause.strip());
            }
            clauses.add(new HeaderClause(paths, attributes, directives));
        }
        return clauses;
    }

    private static List<String> split(String text, char separator, String header) {
        List<String> parts = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && quoted) {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == separator && !quoted) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        if (quoted) {
            throw new IllegalArgumentException(header + " has a quote that is never closed");
        }
        parts.add(text.substring(start));
        return parts;
    }

    private static int indexOutsideQuotes(String text, char wanted) {
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && quoted) {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == wanted && !quoted) {
                return i;
            }
        }
        return -1;
    }

    private static String unquote(String value) {
        String text = value.strip();
        if (text.length() < 2 || text.charAt(0) != '"' || text.charAt(text.length() - 1) != '"') {
            return text;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() - 1) {
                c = text.charAt(++i);
            }
            out.append(c);
        }
        return out.toString();
    }
}
