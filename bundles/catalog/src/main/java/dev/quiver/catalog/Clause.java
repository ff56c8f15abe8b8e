package dev.quiver.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.framework.Version;

/**
 * A capability or a requirement as plain data: its namespace, its attributes (typed as OSGi types
 * them: String, Version, Long, Double or a List of one of them) and its directives. An index states
 * them in XML, a manifest in headers; the resolver sees them through {@link Resolution}.
 */
record Clause(String namespace, Map<String, Object> attributes, Map<String, String> directives) {

    Clause {
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        directives = Collections.unmodifiableMap(new LinkedHashMap<>(directives));
    }

    /**
     * A value of an attribute of the given type, as R5 indexes ({@code type="Version"}) and manifests
     * ({@code name:Version=...}) name them.
     *
     * @throws IllegalArgumentException naming the type or value that is wrong
     */
    static Object typed(String type, String value) {
        String kind = type == null || type.isBlank() ? "String" : type.strip();
        if (kind.startsWith("List<") && kind.endsWith(">")) {
            String element = kind.substring(5, kind.length() - 1).strip();
            List<Object> values = new ArrayList<>();
            for (String part : splitList(value)) {
                values.add(scalar(element, element.equals("String") ? part : part.strip()));
            }
            return List.copyOf(values);
        }
        if (kind.equals("List")) {
            return List.copyOf(splitList(value));
        }
        return scalar(kind, kind.equals("String") ? value : value.strip());
    }

    private static Object scalar(String type, String value) {
        try {
            return switch (type) {
                case "String" -> value;
                case "Version" -> Version.parseVersion(value);
                case "Long" -> Long.parseLong(value);
                case "Double" -> Double.parseDouble(value);
                default -> throw new IllegalArgumentException("an attribute of unknown type " + type);
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' is not a " + type);
        }
    }

    /** A comma-separated list in which a backslash escapes the next character. */
    private static List<String> splitList(String value) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                current.append(value.charAt(++i));
            } else if (c == ',') {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }
}
