package dev.quiver.tools.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.SearchBackend;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The net tools' names, descriptions and schemas go out on every request. shiro-neko publishes no
 * figure for them, so web_fetch is held to 450 bytes and web_search to 300, counted as
 * {@code quiver tools --json} counts {@code schema_bytes}: UTF-8 bytes of the name, the description
 * and the parameters as compact JSON.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final int BUDGET = 450;
    static final int SEARCH_BUDGET = 300;

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
    void webSearchIsWithinItsBudget() throws Exception {
        int bytes = schemaBytes(new WebSearchTool().spec());
        System.out.println("schema bytes: web_search " + bytes + "/" + SEARCH_BUDGET);
        assertTrue(bytes <= SEARCH_BUDGET, "web_search takes " + bytes + " bytes, over its budget of " + SEARCH_BUDGET);
    }

    @Test
    void theSchemasAreObjectsWhosePropertiesAreTypedAndWhoseRequiredOnesExist() throws Exception {
        for (ToolSpec spec : List.of(new WebFetchTool().spec(), new WebSearchTool().spec())) {
            checkSchema(spec);
        }
    }

    private static void checkSchema(ToolSpec spec) throws Exception {
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
    void theComponentsDeclareTheirSetAndAccess() throws Exception {
        for (Class<?> type : List.of(WebFetchTool.class, WebSearchTool.class)) {
            String xml = descriptor(type);
            String name = type == WebFetchTool.class ? "web_fetch" : "web_search";
            assertTrue(xml.contains("name=\"" + Tool.NAME + "\"") && xml.contains("value=\"" + name + "\""), xml);
            assertTrue(xml.matches("(?s).*name=\"" + java.util.regex.Pattern.quote(Tool.SET) + "\"[^>]*value=\"net\".*"), xml);
            assertTrue(xml.matches("(?s).*name=\"" + java.util.regex.Pattern.quote(Tool.ACCESS) + "\"[^>]*value=\"network\".*"), xml);
        }
        // web_search takes every backend, coming and going; DuckDuckGo registers as one, by name
        String search = descriptor(WebSearchTool.class);
        assertTrue(search.contains("interface=\"" + SearchBackend.class.getName() + "\"")
                && search.contains("cardinality=\"0..n\"") && search.contains("policy=\"dynamic\""), search);
        String backend = descriptor(DuckDuckGoBackend.class);
        assertTrue(backend.contains("<provide interface=\"" + SearchBackend.class.getName() + "\"/>")
                && backend.matches("(?s).*name=\"" + java.util.regex.Pattern.quote(SearchBackend.NAME) + "\"[^>]*value=\"duckduckgo\".*"),
                backend);
    }

    private static String descriptor(Class<?> type) throws Exception {
        String descriptor = "/OSGI-INF/" + type.getName() + ".xml";
        try (var in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
            assertTrue(in != null, "no component descriptor " + descriptor);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
