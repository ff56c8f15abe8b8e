package dev.quiver.api;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The arguments of one call, as parsed from the model's JSON: strings, numbers, booleans, lists,
 * maps and nulls. The model is an untrusted caller, so every accessor checks the type and range and
 * throws a {@link ToolException} that names the argument and what it should have been.
 *
 * <p>Integers and booleans sent as strings ({@code "10"}, {@code "true"}) are accepted, since models
 * often quote them; a JSON {@code null} counts as absent.
 */
public final class Arguments {

    private static final Arguments EMPTY = new Arguments(Map.of());

    private final Map<String, Object> values;

    private Arguments(Map<String, Object> values) {
        this.values = values;
    }

    /** Arguments holding these values (copied). */
    public static Arguments of(Map<String, ?> values) {
        if (values == null || values.isEmpty()) {
            return EMPTY;
        }
        return new Arguments(Collections.unmodifiableMap(new LinkedHashMap<>(values)));
    }

    /** No arguments. */
    public static Arguments empty() {
        return EMPTY;
    }

    /** The raw values, unmodifiable. */
    public Map<String, Object> asMap() {
        return values;
    }

    /** Whether the argument is present and not null. */
    public boolean has(String name) {
        return values.get(name) != null;
    }

    /** A required string argument. */
    public String string(String name) throws ToolException {
        return optionalString(name).orElseThrow(() -> new ToolException(
                "Missing required argument '" + name + "' (a string)."));
    }

    /** A string argument, or the default when absent. */
    public String string(String name, String defaultValue) throws ToolException {
        return optionalString(name).orElse(defaultValue);
    }

    /** A string argument, empty when absent. */
    public Optional<String> optionalString(String name) throws ToolException {
        Object value = values.get(name);
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof String s) {
            return Optional.of(s);
        }
        throw wrongType(name, "a string", value);
    }

    /** An integer argument in {@code [min, max]}, or the default when absent. */
    public int integer(String name, int defaultValue, int min, int max) throws ToolException {
        Object value = values.get(name);
        if (value == null) {
            return defaultValue;
        }
        long number;
        if (value instanceof Number n) {
            BigDecimal exact = new BigDecimal(n.toString());
            if (exact.stripTrailingZeros().scale() > 0) {
                throw wrongType(name, "a whole number", value);
            }
            number = exact.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE
                    : exact.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0 ? Long.MIN_VALUE
                    : exact.longValue();
        } else if (value instanceof String s && s.trim().matches("-?\\d{1,18}")) {
            number = Long.parseLong(s.trim());
        } else {
            throw wrongType(name, "an integer", value);
        }
        if (number < min || number > max) {
            throw new ToolException("Argument '" + name + "' must be between " + min + " and " + max
                    + ", got " + number + ".");
        }
        return (int) number;
    }

    /** A boolean argument, or the default when absent. */
    public boolean bool(String name, boolean defaultValue) throws ToolException {
        Object value = values.get(name);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof String s) {
            if (s.equalsIgnoreCase("true")) {
                return true;
            }
            if (s.equalsIgnoreCase("false")) {
                return false;
            }
        }
        throw wrongType(name, "true or false", value);
    }

    /** A list of strings; empty when absent. */
    public List<String> strings(String name) throws ToolException {
        List<String> result = new ArrayList<>();
        int index = 0;
        for (Object item : list(name)) {
            if (!(item instanceof String s)) {
                throw wrongType(name + "[" + index + "]", "a string", item);
            }
            result.add(s);
            index++;
        }
        return result;
    }

    /** A list of objects, each as its own {@code Arguments}; empty when absent. */
    public List<Arguments> objects(String name) throws ToolException {
        List<Arguments> result = new ArrayList<>();
        int index = 0;
        for (Object item : list(name)) {
            if (!(item instanceof Map<?, ?> map)) {
                throw wrongType(name + "[" + index + "]", "an object", item);
            }
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put(String.valueOf(k), v));
            result.add(of(copy));
            index++;
        }
        return result;
    }

    private List<?> list(String name) throws ToolException {
        Object value = values.get(name);
        if (value == null) {
            return List.of();
        }
        if (value instanceof List<?> list) {
            return list;
        }
        throw wrongType(name, "an array", value);
    }

    private static ToolException wrongType(String name, String expected, Object value) {
        return new ToolException("Argument '" + name + "' must be " + expected + ", got "
                + describe(value) + ".");
    }

    private static String describe(Object value) {
        if (value instanceof String s) {
            String shown = s.length() > 40 ? s.substring(0, 40) + "..." : s;
            return "the string \"" + shown + "\"";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        return String.valueOf(value);
    }

    @Override
    public String toString() {
        return values.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Arguments a && a.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }
}
