package dev.quiver.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The fuzzy-match corpus ({@code fuzzy-cases.txt}): for each case, the text {@link Text#replace} makes,
 * byte for byte, or its refusal. The cases are kept in a resource so that every byte (a trailing space,
 * a no-break space, a carriage return) is written out as an escape and can be read.
 */
public class FuzzyMatchCorpusTest {

    /** One case: its fields as written, escapes decoded. */
    public record Case(String name, Map<String, String> fields) {

        public String get(String key) {
            return fields.get(key);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseGivesItsExpectedTextOrRefusal() throws IOException {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> run(c)));
    }

    @Test
    void theCorpusHoldsAtLeastSixtyCasesWithRefusalsAtEveryTolerance() throws IOException {
        List<Case> cases = cases();
        assertTrue(cases.size() >= 60, "cases: " + cases.size());
        for (String ambiguous : List.of("appears 2 times", "with trailing whitespace ignored it matches 2 places",
                "with Unicode dashes, quotes and spaces read as their ASCII look-alikes it matches 2 places",
                "with indentation shifted it matches 2 places", "with whitespace runs collapsed it matches 2 places")) {
            assertTrue(cases.stream().anyMatch(c -> c.get("refuse") != null && refusal(c).contains(ambiguous)),
                    "an ambiguous case refused with: " + ambiguous);
        }
    }

    private static void run(Case c) throws ToolException {
        String file = c.get("file");
        boolean all = "true".equals(c.get("all"));
        if (c.get("refuse") != null) {
            String message = refusal(c);
            assertTrue(message.contains(c.get("refuse")), message);
            return;
        }
        Text.Replacement result = Text.replace(file, c.get("old"), c.get("new"), all, "f");
        assertEquals(c.get("expect"), result.text());
        String note = c.get("note");
        if ("exact".equals(note)) {
            assertEquals("", result.tolerated());
        } else if (note != null) {
            assertTrue(result.tolerated().contains(note), result.tolerated());
        }
    }

    private static String refusal(Case c) {
        return assertThrows(ToolException.class,
                () -> Text.replace(c.get("file"), c.get("old"), c.get("new"), "true".equals(c.get("all")), "f"),
                c.name()).getMessage();
    }

    /** Every case of the corpus, in order (tools-core's FuzzyEditFileTest runs the refusals through edit_file). */
    public static List<Case> cases() throws IOException {
        String text;
        try (InputStream in = FuzzyMatchCorpusTest.class.getResourceAsStream("fuzzy-cases.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> cases = new ArrayList<>();
        Map<String, String> fields = null;
        String name = null;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("=== ")) {
                if (name != null) {
                    cases.add(new Case(name, fields));
                }
                name = line.substring(4);
                fields = new LinkedHashMap<>();
            } else if (name != null && !line.isEmpty() && !line.startsWith("#")) {
                int colon = line.indexOf(':');
                String value = line.substring(colon + 1);
                fields.put(line.substring(0, colon), unescape(value.startsWith(" ") ? value.substring(1) : value));
            }
        }
        if (name != null) {
            cases.add(new Case(name, fields));
        }
        return cases;
    }

    /** {@code \n}, {@code \r}, {@code \t}, {@code \\} and {@code \}{@code uXXXX}, as in Java. */
    static String unescape(String value) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char next = value.charAt(++i);
            switch (next) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case '\\' -> out.append('\\');
                case 'u' -> {
                    out.append((char) Integer.parseInt(value.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + next + " in " + value);
            }
        }
        return out.toString();
    }
}
