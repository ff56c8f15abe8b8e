package dev.quiver.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ArgumentsTest {

    @Test
    void missingRequiredStringNamesTheArgument() {
        ToolException error = assertThrows(ToolException.class, () -> Arguments.empty().string("path"));
        assertEquals("Missing required argument 'path' (a string).", error.getMessage());
    }

    @Test
    void wrongTypeSaysWhatWasExpectedAndWhatCame() {
        Arguments arguments = Arguments.of(Map.of("path", 12, "limit", "many", "all", "yes"));
        assertEquals("Argument 'path' must be a string, got 12.",
                assertThrows(ToolException.class, () -> arguments.string("path")).getMessage());
        assertEquals("Argument 'limit' must be an integer, got the string \"many\".",
                assertThrows(ToolException.class, () -> arguments.integer("limit", 1, 1, 10)).getMessage());
        assertEquals("Argument 'all' must be true or false, got the string \"yes\".",
                assertThrows(ToolException.class, () -> arguments.bool("all", false)).getMessage());
    }

    @Test
    void integersAreRangeCheckedAndQuotedOnesAccepted() throws ToolException {
        assertEquals(5, Arguments.of(Map.of("n", "5")).integer("n", 1, 1, 10));
        assertEquals(7, Arguments.of(Map.of("n", 7.0)).integer("n", 1, 1, 10));
        assertEquals(1, Arguments.empty().integer("n", 1, 1, 10));
        assertEquals("Argument 'n' must be between 1 and 10, got 0.",
                assertThrows(ToolException.class, () -> Arguments.of(Map.of("n", 0)).integer("n", 1, 1, 10)).getMessage());
        assertEquals("Argument 'n' must be between 1 and 10, got 9223372036854775807.",
                assertThrows(ToolException.class,
                        () -> Arguments.of(Map.of("n", 1e30)).integer("n", 1, 1, 10)).getMessage());
        assertThrows(ToolException.class, () -> Arguments.of(Map.of("n", 2.5)).integer("n", 1, 1, 10));
    }

    @Test
    void nullCountsAsAbsent() throws ToolException {
        Map<String, Object> values = new HashMap<>();
        values.put("path", null);
        Arguments arguments = Arguments.of(values);
        assertFalse(arguments.has("path"));
        assertEquals(Optional.empty(), arguments.optionalString("path"));
        assertEquals("d", arguments.string("path", "d"));
    }

    @Test
    void listsOfStringsAndObjectsCheckEveryItem() throws ToolException {
        Arguments arguments = Arguments.of(Map.of("names", List.of("a", "b"), "files", List.of(Map.of("path", "x")),
                "bad", List.of("a", 3)));
        assertEquals(List.of("a", "b"), arguments.strings("names"));
        assertEquals("x", arguments.objects("files").get(0).string("path"));
        assertEquals("Argument 'bad[1]' must be a string, got 3.",
                assertThrows(ToolException.class, () -> arguments.strings("bad")).getMessage());
        assertTrue(arguments.strings("absent").isEmpty());
    }

    @Test
    void longStringsAreShortenedInErrors() {
        Arguments arguments = Arguments.of(Map.of("n", "x".repeat(1000)));
        String message = assertThrows(ToolException.class, () -> arguments.integer("n", 1, 1, 2)).getMessage();
        assertTrue(message.length() < 120, message);
    }

    @Test
    void toolSpecRefusesNamesThatAreNotSnakeCase() {
        assertThrows(IllegalArgumentException.class, () -> new ToolSpec("Read File", "d", "{}"));
        assertEquals("read_file", new ToolSpec("read_file", "d", "{}").name());
    }

    @Test
    void accessParsesServicePropertiesCaseInsensitively() {
        assertEquals(Optional.of(Access.WRITE), Access.parse(" Write "));
        assertEquals(Optional.empty(), Access.parse("root"));
        assertEquals(Optional.empty(), Access.parse(null));
    }
}
