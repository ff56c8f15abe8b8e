package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.Tool;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code toolSets} through a real {@link KernelSession} and the loopback OpenAI server: a disabled
 * set's tools are missing from the request's tools and from the system prompt's tool list together,
 * an enabled set's tools are in both, tools without a set are never gated, and an unknown set name
 * is reported among the session's warnings (which the front ends print in the start-up header).
 */
class ToolSetsSessionTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new TestTools.Echo("read_thing"), "read_thing", "read", Tool.SET, "core");
        framework.register(new TestTools.Echo("git_thing"), "git_thing", "read", Tool.SET, "git");
        framework.register(new TestTools.Echo("nav_thing"), "nav_thing", "read", Tool.SET, "nav");
        framework.register(new TestTools.Echo("plugin_thing"), "plugin_thing", "read");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private KernelSession open(String config, OpenAiStub stub) throws Exception {
        Files.createDirectories(root.resolve(".quiver"));
        Files.writeString(root.resolve(".quiver/config.json"), config);
        return StubSessions.open(root, environment, framework, stub, false);
    }

    private static List<String> requestTools(JsonNode request) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.get("function").get("name").asText()));
        return names;
    }

    private static String promptToolList(JsonNode request) {
        String prompt = request.get("messages").get(0).get("content").asText();
        int start = prompt.indexOf("Tools in this step: ");
        assertTrue(start >= 0, prompt);
        return prompt.substring(start, prompt.indexOf('\n', start));
    }

    @Test
    void aDisabledSetIsAbsentFromTheRequestAndThePromptAndAnEnabledOneIsInBoth() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("ok"));
                KernelSession session = open("{\"toolSets\": [\"git\"]}", stub)) {
            session.send("hi", new TurnListener() { });
            JsonNode request = stub.requests().get(0);
            assertEquals(List.of("git_thing", "plugin_thing", "read_thing"), requestTools(request).stream().sorted()
                    .toList(), "core, the enabled git set and the set-less plugin tool; not nav");
            String list = promptToolList(request);
            assertEquals("Tools in this step: git_thing, plugin_thing, read_thing.", list);
            assertFalse(request.toString().contains("nav_thing"), "the disabled set is nowhere in the request");
            assertTrue(session.warnings().isEmpty(), session.warnings().toString());
        }
    }

    @Test
    void anUnknownSetNameIsReportedAndTheKnownNamesStillApply() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.text("ok"));
                KernelSession session = open("{\"toolSets\": [\"nav\", \"gti\"]}", stub)) {
            session.send("hi", new TurnListener() { });
            JsonNode request = stub.requests().get(0);
            assertEquals(List.of("nav_thing", "plugin_thing", "read_thing"), requestTools(request).stream().sorted()
                    .toList());
            assertEquals("Tools in this step: nav_thing, plugin_thing, read_thing.", promptToolList(request));
            assertEquals(1, session.warnings().size(), session.warnings().toString());
            String warning = session.warnings().get(0);
            assertTrue(warning.contains("Unknown tool sets") && warning.contains("gti")
                    && warning.contains(".quiver/config.json"), warning);
        }
    }
}
