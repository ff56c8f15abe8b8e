package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every request carries each tool's name, description and schema. shiro-neko publishes no symbol tools,
 * so each gets the flat budget the other sets give such tools: 400 bytes, counted as
 * {@code quiver tools --json} counts {@code schema_bytes}.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FLAT_BUDGET = 400;
    private static final List<Tool> TOOLS = List.of(new FindSymbolTool(), new OutlineTool(), new ReadSymbolTool());

    @Test
    void everyToolIsWithinTheBudgetAndIsAReadToolOfTheNavSet() throws Exception {
        List<String> report = new ArrayList<>();
        for (Tool tool : TOOLS) {
            ToolSpec spec = tool.spec();
            String compact = JSON.writeValueAsString(JSON.readTree(spec.parameters()));
            int bytes = spec.name().getBytes(StandardCharsets.UTF_8).length
                    + spec.description().getBytes(StandardCharsets.UTF_8).length
                    + compact.getBytes(StandardCharsets.UTF_8).length;
            report.add(spec.name() + " " + bytes + "/" + FLAT_BUDGET);
            assertTrue(bytes <= FLAT_BUDGET, spec.name() + " takes " + bytes + " bytes");
            assertEquals("object", JSON.readTree(spec.parameters()).path("type").asText());
            String descriptor = "/OSGI-INF/" + tool.getClass().getName() + ".xml";
            try (var in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(xml.contains("name=\"" + Tool.SET + "\"") && xml.contains("value=\"nav\""), xml);
                assertTrue(xml.contains("value=\"read\""), xml);
                assertTrue(xml.contains("value=\"" + spec.name() + "\""), xml);
            }
        }
        System.out.println("schema bytes: " + report);
    }
}
