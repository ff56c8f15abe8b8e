package dev.quiver.tools.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * web_fetch's name, description and schema go out on every request. shiro-neko publishes no figure
 * for it, so it is held to 450 bytes, counted as {@code quiver tools --json} counts
 * {@code schema_bytes}: UTF-8 bytes of the name, the description and the parameters as compact JSON.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final int BUDGET = 450;

    static int schemaBytes(ToolSpec spec) throws Exception {
        String compact = JSON.writeValueAsString(JSON.readTree(spec.parameters()));
        return spec.name().getBytes(StandardCharsets.UTF_8).length
                + spec.description().getBytes(StandardCharsets.UTF_8).length
                + compact.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void webFetchIsWithinItsBudget() throws Exception {
        int bytes = schemaBytes(new WebFetchTool().spec());
        System.out.println("schema bytes: web_fetch " + bytes + "/" + BUDGET);
        assertTrue(bytes <= BUDGET, "web_fetch takes " + bytes + " bytes, over its budget of " + BUDGET);
    }

    @Test
    void theSchemaIsAnObjectWhosePropertiesAreTypedAndWhoseRequiredOnesExist() throws Exception {
        ToolSpec spec = new WebFetchTool().spec();
        JsonNode schema = JSON.readTree(spec.parameters());
        assertEquals("object", schema.path("type").asText());
        JsonNode properties = schema.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> property = it.next();
            assertTrue(List.of("string", "integer", "boolean").contains(property.getValue().path("type").asText()),
                    property.getKey());
        }
        for (JsonNode required : schema.path("required")) {
            assertTrue(properties.has(required.asText()), required.asText());
        }
        assertTrue(spec.description().length() >= 40);
    }

    @Test
    void theComponentDeclaresItsSetAndAccess() throws Exception {
        String descriptor = "/OSGI-INF/" + WebFetchTool.class.getName() + ".xml";
        try (var in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
            assertTrue(in != null, "no component descriptor " + descriptor);
            String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(xml.contains("name=\"" + Tool.NAME + "\"") && xml.contains("value=\"web_fetch\""), xml);
            assertTrue(xml.matches("(?s).*name=\"" + java.util.regex.Pattern.quote(Tool.SET) + "\"[^>]*value=\"net\".*"), xml);
            assertTrue(xml.matches("(?s).*name=\"" + java.util.regex.Pattern.quote(Tool.ACCESS) + "\"[^>]*value=\"network\".*"), xml);
        }
    }
}
