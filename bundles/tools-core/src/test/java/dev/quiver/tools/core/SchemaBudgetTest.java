package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every request carries each tool's name, description and schema, so their size is held to a budget:
 * at most 0.8 of what shiro-neko publishes for the same tool (its tools.md, "Tool sets"), counted the
 * way {@code quiver tools --json} counts {@code schema_bytes}: UTF-8 bytes of the name, the description
 * and the parameters as compact JSON.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** shiro-neko's published bytes per tool. */
    private static final Map<String, Integer> SHIRO_NEKO = Map.of(
            "read_file", 526, "read_many_files", 972, "write_file", 289, "edit_file", 618, "glob", 499, "grep", 595);

    private static final List<Tool> TOOLS = List.of(new ReadFileTool(), new ReadManyFilesTool(), new WriteFileTool(),
            new EditFileTool(), new GlobTool(), new GrepTool());

    static int schemaBytes(ToolSpec spec) throws Exception {
        String compact = JSON.writeValueAsString(JSON.readTree(spec.parameters()));
        return spec.name().getBytes(StandardCharsets.UTF_8).length
                + spec.description().getBytes(StandardCharsets.UTF_8).length
                + compact.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void everyToolIsWithinEightTenthsOfShiroNekosFigure() throws Exception {
        List<String> report = new ArrayList<>();
        for (Tool tool : TOOLS) {
            ToolSpec spec = tool.spec();
            int budget = SHIRO_NEKO.get(spec.name()) * 8 / 10;
            int bytes = schemaBytes(spec);
            report.add(spec.name() + " " + bytes + "/" + budget);
            assertTrue(bytes <= budget, spec.name() + " takes " + bytes + " bytes, over its budget of " + budget);
        }
        System.out.println("schema bytes: " + report);
    }

    /** The parameters each tool must keep while it is held to its budget: shiro-neko's, plus grep's from nca. */
    private static final Map<String, List<String>> PARAMETERS = Map.of(
            "read_file", List.of("path", "offset", "limit"),
            "read_many_files", List.of("files"),
            "write_file", List.of("path", "content"),
            "edit_file", List.of("path", "oldString", "newString", "replaceAll"),
            "glob", List.of("pattern", "limit", "includeIgnored"),
            "grep", List.of("pattern", "include", "ignoreCase", "includeIgnored", "fixedStrings", "word",
                    "contextBefore", "contextAfter", "maxResults"));

    @Test
    void everyToolKeepsEveryParameter() throws Exception {
        for (Tool tool : TOOLS) {
            ToolSpec spec = tool.spec();
            List<String> names = new ArrayList<>();
            JSON.readTree(spec.parameters()).path("properties").fieldNames().forEachRemaining(names::add);
            assertEquals(new java.util.TreeSet<>(PARAMETERS.get(spec.name())), new java.util.TreeSet<>(names), spec.name());
        }
        List<String> windows = new ArrayList<>();
        JSON.readTree(new ReadManyFilesTool().spec().parameters()).at("/properties/files/items/properties")
                .fieldNames().forEachRemaining(windows::add);
        assertEquals(List.of("path", "offset", "limit"), windows, "each file of read_many_files has its own window");
    }

    @Test
    void everySchemaIsAnObjectWhosePropertiesAreTypedAndWhoseRequiredOnesExist() throws Exception {
        for (Tool tool : TOOLS) {
            ToolSpec spec = tool.spec();
            JsonNode schema = JSON.readTree(spec.parameters());
            assertEquals("object", schema.path("type").asText(), spec.name());
            checkProperties(spec.name(), schema);
            assertTrue(spec.description().length() >= 40, spec.name() + " needs a description a model can act on");
        }
    }

    private static void checkProperties(String name, JsonNode schema) {
        JsonNode properties = schema.path("properties");
        assertTrue(properties.isObject() && properties.size() > 0, name);
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> property = it.next();
            String type = property.getValue().path("type").asText();
            assertTrue(List.of("string", "integer", "boolean", "array", "object").contains(type), name + "." + property.getKey());
            if (type.equals("array")) {
                checkProperties(name + "." + property.getKey(), property.getValue().path("items"));
            }
        }
        for (JsonNode required : schema.path("required")) {
            assertTrue(properties.has(required.asText()), name + " requires " + required.asText());
        }
    }

    @Test
    void theSetAndAccessPropertiesAreDeclaredOnEveryComponent() {
        Map<Class<?>, String> access = Map.of(ReadFileTool.class, "read", ReadManyFilesTool.class, "read",
                GlobTool.class, "read", GrepTool.class, "read", WriteFileTool.class, "write", EditFileTool.class, "write");
        for (Map.Entry<Class<?>, String> entry : access.entrySet()) {
            // the annotation is retained in the class file only (CLASS retention), so read the DS descriptor bnd wrote
            String descriptor = "/OSGI-INF/" + entry.getKey().getName() + ".xml";
            try (var in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(hasProperty(xml, Tool.SET, "core"), xml);
                assertTrue(hasProperty(xml, Tool.ACCESS, entry.getValue()), xml);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static boolean hasProperty(String xml, String name, String value) {
        return java.util.regex.Pattern.compile("<property name=\"" + java.util.regex.Pattern.quote(name)
                + "\"[^>]*value=\"" + java.util.regex.Pattern.quote(value) + "\"").matcher(xml).find();
    }
}
