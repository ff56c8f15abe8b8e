package dev.quiver.tools.git;

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
 * at most 0.8 of what shiro-neko publishes for the same tool, counted the way {@code quiver tools --json}
 * counts {@code schema_bytes}: UTF-8 bytes of the name, the description and the parameters as compact JSON.
 */
class SchemaBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** shiro-neko's published bytes per tool. */
    private static final Map<String, Integer> SHIRO_NEKO = Map.of(
            "git_status", 292, "git_diff", 473, "git_log", 484, "git_show", 432, "git_blame", 499);

    /** shiro-neko publishes no git_commit nor the history tools, so they get a flat budget, as web_fetch does. */
    private static final int FLAT_BUDGET = 400;

    private static final List<Tool> TOOLS = List.of(new GitStatusTool(), new GitDiffTool(), new GitLogTool(),
            new GitShowTool(), new GitBlameTool(), new GitCommitTool(), new GitBranchTool(), new GitCurrentBranchTool(),
            new GitLogFileTool(), new GitDiffCommitsTool(), new GitShowFileTool(), new GitChangedInRefTool(), new GitCommitMessageTool());

    /** The access each tool declares: the set reads, except the commit, which writes and so asks. */
    private static final Map<String, String> ACCESS = Map.ofEntries(Map.entry("git_status", "read"),
            Map.entry("git_diff", "read"), Map.entry("git_log", "read"), Map.entry("git_show", "read"),
            Map.entry("git_blame", "read"), Map.entry("git_commit", "write"), Map.entry("git_branch", "read"),
            Map.entry("git_current_branch", "read"), Map.entry("git_log_file", "read"),
            Map.entry("git_diff_commits", "read"), Map.entry("git_show_file", "read"),
            Map.entry("git_changed_in_ref", "read"), Map.entry("git_commit_message", "read"));

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
            int budget = SHIRO_NEKO.containsKey(spec.name()) ? SHIRO_NEKO.get(spec.name()) * 8 / 10 : FLAT_BUDGET;
            int bytes = schemaBytes(spec);
            report.add(spec.name() + " " + bytes + "/" + budget);
            assertTrue(bytes <= budget, spec.name() + " takes " + bytes + " bytes, over its budget of " + budget);
        }
        System.out.println("schema bytes: " + report);
    }

    @Test
    void everySchemaIsAnObjectWhosePropertiesAreTypedAndWhoseRequiredOnesExist() throws Exception {
        for (Tool tool : TOOLS) {
            ToolSpec spec = tool.spec();
            JsonNode schema = JSON.readTree(spec.parameters());
            assertEquals("object", schema.path("type").asText(), spec.name());
            JsonNode properties = schema.path("properties");
            // git_current_branch takes nothing; every other tool takes something
            assertTrue(properties.isObject() && (properties.size() > 0 || spec.name().equals("git_current_branch")),
                    spec.name());
            for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> property = it.next();
                String type = property.getValue().path("type").asText();
                assertTrue(List.of("string", "integer", "boolean", "array").contains(type), spec.name() + "." + property.getKey());
                if (type.equals("array")) {
                    assertEquals("string", property.getValue().path("items").path("type").asText(),
                            spec.name() + "." + property.getKey() + " items");
                }
            }
            for (JsonNode required : schema.path("required")) {
                assertTrue(properties.has(required.asText()), spec.name() + " requires " + required.asText());
            }
            assertTrue(spec.description().length() >= 40, spec.name() + " needs a description a model can act on");
        }
    }

    @Test
    void theSetAndAccessPropertiesAreDeclaredOnEveryComponent() throws Exception {
        for (Tool tool : TOOLS) {
            String descriptor = "/OSGI-INF/" + tool.getClass().getName() + ".xml";
            try (var in = SchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(hasProperty(xml, Tool.NAME, tool.spec().name()), xml);
                assertTrue(hasProperty(xml, Tool.SET, "git"), xml);
                assertTrue(hasProperty(xml, Tool.ACCESS, ACCESS.get(tool.spec().name())), xml);
            }
        }
    }

    private static boolean hasProperty(String xml, String name, String value) {
        return java.util.regex.Pattern.compile("<property name=\"" + java.util.regex.Pattern.quote(name)
                + "\"[^>]*value=\"" + java.util.regex.Pattern.quote(value) + "\"").matcher(xml).find();
    }
}
