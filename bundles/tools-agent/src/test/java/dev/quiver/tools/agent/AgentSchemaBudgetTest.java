package dev.quiver.tools.agent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Tool;
import dev.quiver.api.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every request carries each tool's name, description and schema: the agent set's tools get the flat
 * budget of the other sets, 400 bytes, and each is registered in the agent set with its access class.
 */
class AgentSchemaBudgetTest {

    private static final int FLAT_BUDGET = 400;
    private static final Map<Tool, String> TOOLS = Map.of(new RememberTool(), "state", new RecallTool(), "state",
            new ForgetTool(), "state", new SkillTool(), "read", new TaskTool(), "state", new AskTool(), "state",
            new SpawnSubagentTool(), "state");

    @Test
    void everyToolIsWithinTheBudgetAndIsRegisteredInTheAgentSetWithItsAccess() throws Exception {
        List<String> report = new ArrayList<>();
        for (Map.Entry<Tool, String> entry : TOOLS.entrySet()) {
            ToolSpec spec = entry.getKey().spec();
            int bytes = (spec.name() + spec.description() + spec.parameters()).getBytes(StandardCharsets.UTF_8).length;
            report.add(spec.name() + " " + bytes + "/" + FLAT_BUDGET);
            assertTrue(bytes <= FLAT_BUDGET, spec.name() + " takes " + bytes + " bytes");
            String descriptor = "/OSGI-INF/" + entry.getKey().getClass().getName() + ".xml";
            try (var in = AgentSchemaBudgetTest.class.getResourceAsStream(descriptor)) {
                assertTrue(in != null, "no component descriptor " + descriptor);
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(xml.contains("name=\"" + Tool.SET + "\"") && xml.contains("value=\"agent\""), xml);
                assertTrue(xml.contains("name=\"" + Tool.ACCESS + "\"") && xml.contains("value=\"" + entry.getValue()
                        + "\""), xml);
                assertTrue(xml.contains("value=\"" + spec.name() + "\""), xml);
            }
        }
        System.out.println("schema bytes: " + report);
    }
}
