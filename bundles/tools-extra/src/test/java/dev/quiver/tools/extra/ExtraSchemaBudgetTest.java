package dev.quiver.tools.extra;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every request carries each tool's name, description and schema, so their size is held to a budget,
 * counted as {@code quiver tools --json} counts {@code schema_bytes}: UTF-8 bytes of the name, the
 * description and the parameters as compact JSON. shiro-neko publishes figures for none of these tools,
 * so each takes 0.8 of the closest one it does: the line-range edits that of edit_file, append and
 * prepend that of write_file, tree that of list_dir, count_lines and the finding tools that of glob, json_query
 * and count_tokens that of read_file, changed_files that of git_status, and the
 * argument-less env_info and current_time that of git_status.
 */
class ExtraSchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each tool, its shiro-neko figure, and its access class. */
    private static final Map<Tool, Object[]> TOOLS = new LinkedHashMap<>();

    static {
        TOOLS.put(new InsertLinesTool(), new Object[] {618, "write"});
        TOOLS.put(new DeleteLinesTool(), new Object[] {618, "write"});
        TOOLS.put(new ReplaceLinesTool(), new Object[] {618, "write"});
        TOOLS.put(new AppendFileTool(), new Object[] {289, "write"});
        TOOLS.put(new PrependFileTool(), new Object[] {289, "write"});
        TOOLS.put(new CountLinesTool(), new Object[] {499, "read"});
        TOOLS.put(new TreeTool(), new Object[] {594, "read"});
        TOOLS.put(new FileInfoTool(), new Object[] {499, "read"});
        TOOLS.put(new FindFilesTool(), new Object[] {499, "read"});
        TOOLS.put(new RecentFilesTool(), new Object[] {499, "read"});
        TOOLS.put(new ChangedFilesTool(), new Object[] {292, "read"});
        TOOLS.put(new JsonQueryTool(), new Object[] {526, "read"});
        TOOLS.put(new CountTokensTool(), new Object[] {526, "read"});
        TOOLS.put(new EnvInfoTool(), new Object[] {292, "read"});
        TOOLS.put(new CurrentTimeTool(), new Object[] {292, "read"});
    }

    static int schemaBytes(ToolSpec spec) throws IOException {
        String compact = JSON.writeValueAsString(JSON.readTree(spec.parameters()));
        return spec.name().getBytes(StandardCharsets.UTF_8).length
                + spec.description().getBytes(StandardCharsets.UTF_8).length
                + compact.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void everyToolIsWithinEightTenthsOfItsFigure() throws Exception {
        List<String> report = new ArrayList<>();
        for (Map.Entry<Tool, Object[]> entry : TOOLS.entrySet()) {
            ToolSpec spec = entry.getKey().spec();
            int budget = (Integer) entry.getValue()[0] * 8 / 10;
            int bytes = schemaBytes(spec);
            report.add(spec.name() + " " + bytes + "/" + budget + (bytes > budget ? " OVER" : ""));
        }
        System.out.println("schema bytes: " + report);
        assertTrue(report.stream().noneMatch(line -> line.endsWith(" OVER")), report.toString());
    }

    @Test
    void everySchemaIsAnObjectWithTypedPropertiesAndADescriptionToActOn() throws Exception {
        for (Tool tool : TOOLS.keySet()) {
            ToolSpec spec = tool.spec();
            JsonNode schema = JSON.readTree(spec.parameters());
            assertEquals("object", schema.path("type").asText(), spec.name());
            schema.path("properties").fields().forEachRemaining(property -> assertTrue(
                    List.of("string", "integer", "boolean").contains(property.getValue().path("type").asText()),
                    spec.name() + "." + property.getKey()));
            for (JsonNode required : schema.path("required")) {
                assertTrue(schema.path("properties").has(required.asText()), spec.name() + " requires " + required);
            }
            assertTrue(spec.description().length() >= 40, spec.name() + " needs a description a model can act on");
        }
    }

    @Test
    void everyComponentDeclaresTheExtraSetItsNameAndItsAccess() throws IOException {
        for (Map.Entry<Tool, Object[]> entry : TOOLS.entrySet()) {
            // the annotation is retained in the class file only, so read the DS descriptor bnd wrote
            String descriptor = "/OSGI-INF/" + entry.getKey().getClass().getName() + ".xml";
            try (InputStream in = ExtraSchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(hasProperty(xml, Tool.SET, "extra"), xml);
                assertTrue(hasProperty(xml, Tool.NAME, entry.getKey().spec().name()), xml);
                assertTrue(hasProperty(xml, Tool.ACCESS, (String) entry.getValue()[1]), xml);
            }
        }
    }

    private static boolean hasProperty(String xml, String name, String value) {
        return Pattern.compile("<property name=\"" + Pattern.quote(name) + "\"[^>]*value=\"" + Pattern.quote(value)
                + "\"").matcher(xml).find();
    }
}
