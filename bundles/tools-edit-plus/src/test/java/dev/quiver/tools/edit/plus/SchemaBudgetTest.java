package dev.quiver.tools.edit.plus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every request carries each tool's name, description and schema, so their size is held to a budget,
 * counted as {@code quiver tools --json} counts {@code schema_bytes}: UTF-8 bytes of the name, the
 * description and the parameters as compact JSON. The budget is 0.8 of the figure shiro-neko publishes
 * for the same tool (its tools.md, "Tool sets"); a tool it publishes no figure for takes 0.8 of the
 * closest one it does: apply_patch that of multi_edit, replace_match that of edit_file, and the
 * single-path file operations that of write_file.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The shiro-neko figure each tool is held to. */
    private static final Map<String, Integer> FIGURE = Map.of(
            "multi_edit", 934, "list_dir", 594,
            "apply_patch", 934, "replace_match", 618,
            "move_file", 289, "copy_path", 289, "delete_file", 289, "create_directory", 289);

    private static final Map<Tool, String> TOOLS = Map.of(
            new MultiEditTool(), "write", new ApplyPatchTool(), "write", new ListDirTool(), "read",
            new MoveFileTool(), "write", new DeleteFileTool(), "write", new CreateDirectoryTool(), "write",
            new CopyPathTool(), "write", new ReplaceMatchTool(), "write");

    static int schemaBytes(ToolSpec spec) throws IOException {
        String compact = JSON.writeValueAsString(JSON.readTree(spec.parameters()));
        return spec.name().getBytes(StandardCharsets.UTF_8).length
                + spec.description().getBytes(StandardCharsets.UTF_8).length
                + compact.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void everyToolIsWithinEightTenthsOfItsFigure() throws Exception {
        List<String> report = new ArrayList<>();
        for (Tool tool : TOOLS.keySet()) {
            ToolSpec spec = tool.spec();
            int budget = FIGURE.get(spec.name()) * 8 / 10;
            int bytes = schemaBytes(spec);
            report.add(spec.name() + " " + bytes + "/" + budget);
            assertTrue(bytes <= budget, spec.name() + " takes " + bytes + " bytes, over its budget of " + budget);
        }
        System.out.println("schema bytes: " + report);
    }

    /** The parameters each tool must keep while it is held to its budget (shiro-neko's where it has the tool). */
    private static final Map<String, List<String>> PARAMETERS = Map.of(
            "multi_edit", List.of("path", "edits"), "list_dir", List.of("path", "depth", "includeIgnored"),
            "apply_patch", List.of("patch"), "replace_match", List.of("path", "line", "column", "oldString", "newString"),
            "move_file", List.of("from", "to"), "copy_path", List.of("from", "to"), "delete_file", List.of("path", "recursive"),
            "create_directory", List.of("path"));

    @Test
    void everyToolKeepsEveryParameter() throws Exception {
        for (Tool tool : TOOLS.keySet()) {
            ToolSpec spec = tool.spec();
            java.util.Set<String> names = new java.util.TreeSet<>();
            JSON.readTree(spec.parameters()).path("properties").fieldNames().forEachRemaining(names::add);
            assertEquals(new java.util.TreeSet<>(PARAMETERS.get(spec.name())), names, spec.name());
        }
        java.util.Set<String> edit = new java.util.TreeSet<>();
        JSON.readTree(new MultiEditTool().spec().parameters()).at("/properties/edits/items/properties").fieldNames()
                .forEachRemaining(edit::add);
        assertEquals(new java.util.TreeSet<>(List.of("oldString", "newString", "replaceAll")), edit);
    }

    @Test
    void everySchemaIsAnObjectWithTypedPropertiesAndAnActionableDescription() throws Exception {
        for (Tool tool : TOOLS.keySet()) {
            ToolSpec spec = tool.spec();
            JsonNode schema = JSON.readTree(spec.parameters());
            assertEquals("object", schema.path("type").asText(), spec.name());
            check(spec.name(), schema);
            assertTrue(spec.description().length() >= 40, spec.name() + " needs a description a model can act on");
        }
    }

    private static void check(String name, JsonNode schema) {
        JsonNode properties = schema.path("properties");
        assertTrue(properties.isObject() && properties.size() > 0, name);
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> property = it.next();
            String type = property.getValue().path("type").asText();
            assertTrue(List.of("string", "integer", "boolean", "array").contains(type), name + "." + property.getKey());
            if (type.equals("array")) {
                check(name + "." + property.getKey(), property.getValue().path("items"));
            }
        }
        for (JsonNode required : schema.path("required")) {
            assertTrue(properties.has(required.asText()), name + " requires " + required.asText());
        }
    }

    @Test
    void everyComponentDeclaresItsNameTheEditPlusSetAndItsAccess() throws IOException {
        for (Map.Entry<Tool, String> entry : TOOLS.entrySet()) {
            String descriptor = "/OSGI-INF/" + entry.getKey().getClass().getName() + ".xml";
            try (InputStream in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                String name = entry.getKey().spec().name();
                assertTrue(hasProperty(xml, Tool.NAME, name), xml);
                assertTrue(hasProperty(xml, Tool.SET, "edit-plus"), xml);
                assertTrue(hasProperty(xml, Tool.ACCESS, entry.getValue()), xml);
            }
        }
    }

    private static boolean hasProperty(String xml, String name, String value) {
        return java.util.regex.Pattern.compile("<property name=\"" + java.util.regex.Pattern.quote(name)
                + "\"[^>]*value=\"" + java.util.regex.Pattern.quote(value) + "\"").matcher(xml).find();
    }
}
