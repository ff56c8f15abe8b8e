package dev.quiver.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Checks a call's arguments against the tool's schema before the tool sees them: required
 * arguments present, top-level types right, no unknown arguments where the schema forbids them.
 * Tools still check values themselves; this catches the common slips with one clear message.
 */
final class ArgumentCheck {

    private ArgumentCheck() {
    }

    /** What is wrong, one sentence each; empty when nothing is. */
    static List<String> problems(JsonNode schema, Map<String, Object> arguments) {
        List<String> problems = new ArrayList<>();
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            String name = required.asText();
            if (arguments.get(name) == null) {
                problems.add("'" + name + "' is required" + describe(properties.path(name)) + ".");
            }
        }
        for (Map.Entry<String, Object> argument : arguments.entrySet()) {
            JsonNode property = properties.path(argument.getKey());
            if (property.isMissingNode()) {
                if (schema.path("additionalProperties").isBoolean() && !schema.path("additionalProperties").asBoolean()) {
                    problems.add("'" + argument.getKey() + "' is not an argument of this tool" + known(properties) + ".");
                }
                continue;
            }
            Object value = argument.getValue();
            String type = property.path("type").asText("");
            if (value != null && !type.isEmpty() && !fits(type, value)) {
                problems.add("'" + argument.getKey() + "' must be " + article(type) + ".");
            }
            JsonNode allowed = property.path("enum");
            if (value != null && allowed.isArray() && allowed.size() > 0 && !contains(allowed, value)) {
                problems.add("'" + argument.getKey() + "' must be one of " + allowed + ".");
            }
        }
        return problems;
    }

    private static boolean fits(String type, Object value) {
        return switch (type) {
            case "string" -> value instanceof String;
            // models often quote numbers and booleans; the tool's own accessors accept that
            case "integer" -> value instanceof Integer || value instanceof Long || value instanceof java.math.BigInteger
                    || (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()))
                    || (value instanceof String s && s.trim().matches("-?\\d{1,18}"));
            case "number" -> value instanceof Number || (value instanceof String s && s.trim().matches("-?\\d+(\\.\\d+)?"));
            case "boolean" -> value instanceof Boolean || (value instanceof String s
                    && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")));
            case "array" -> value instanceof List;
            case "object" -> value instanceof Map;
            default -> true;
        };
    }

    private static boolean contains(JsonNode allowed, Object value) {
        for (JsonNode option : allowed) {
            if (option.isTextual() && option.asText().equals(value)) {
                return true;
            }
            if (!option.isTextual() && option.toString().equals(String.valueOf(value))) {
                return true;
            }
        }
        return false;
    }

    private static String describe(JsonNode property) {
        String type = property.path("type").asText("");
        return type.isEmpty() ? "" : " (" + article(type) + ")";
    }

    private static String article(String type) {
        return switch (type) {
            case "integer" -> "an integer";
            case "array" -> "an array";
            case "object" -> "an object";
            case "boolean" -> "true or false";
            default -> "a " + type;
        };
    }

    private static String known(JsonNode properties) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = properties.fieldNames(); it.hasNext();) {
            names.add(it.next());
        }
        return names.isEmpty() ? "; it takes none" : "; it takes " + String.join(", ", names);
    }
}
