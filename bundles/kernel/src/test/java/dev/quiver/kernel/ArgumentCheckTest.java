package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentCheckTest {

    private static final JsonNode SCHEMA = Json.tree("{\"type\":\"object\",\"properties\":{"
            + "\"path\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\"},\"all\":{\"type\":\"boolean\"},"
            + "\"mode\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]},\"files\":{\"type\":\"array\"}},"
            + "\"required\":[\"path\"],\"additionalProperties\":false}");

    @Test
    void missingRequiredArgumentIsNamedWithItsType() {
        assertEquals(List.of("'path' is required (a string)."), ArgumentCheck.problems(SCHEMA, Map.of()));
    }

    @Test
    void wrongTypesAreEachReported() {
        List<String> problems = ArgumentCheck.problems(SCHEMA, Map.of("path", 3, "limit", "ten", "files", "x"));
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(problems.contains("'path' must be a string."));
        assertTrue(problems.contains("'limit' must be an integer."));
        assertTrue(problems.contains("'files' must be an array."));
    }

    @Test
    void quotedNumbersAndBooleansPassBecauseToolsAcceptThem() {
        assertEquals(List.of(), ArgumentCheck.problems(SCHEMA, Map.of("path", "a", "limit", "10", "all", "true")));
    }

    @Test
    void valuesOutsideAnEnumAndUnknownArgumentsAreReported() {
        List<String> problems = ArgumentCheck.problems(SCHEMA, Map.of("path", "a", "mode", "c", "pth", "x"));
        assertTrue(problems.contains("'mode' must be one of [\"a\",\"b\"]."), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("'pth' is not an argument of this tool; it takes path")),
                problems.toString());
    }
}
