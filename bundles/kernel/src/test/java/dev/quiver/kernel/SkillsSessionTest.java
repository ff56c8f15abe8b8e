package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.Tool;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.agent.SkillTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Skills through a real {@link KernelSession} and the loopback OpenAI server: the system prompt on the
 * wire lists each skill's name and description (not its body), framed as the repository's while the
 * workspace is untrusted; a {@code skill} call's result carries the body back; a skill added during the
 * turn is in the next step's prompt.
 */
class SkillsSessionTest {

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
        framework.register(new SkillTool(), "skill", "read", Tool.SET, "agent");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private void skill(String name, String description, String body) throws Exception {
        Path folder = Files.createDirectories(root.resolve(".quiver/skills").resolve(name));
        Files.writeString(folder.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: " + description
                + "\n---\n" + body);
    }

    private static String systemPrompt(JsonNode request) {
        return request.get("messages").get(0).get("content").asText();
    }

    @Test
    void theListingReachesTheSystemPromptAndSkillReturnsTheBodyFramedAsTheUntrustedRepositorys() throws Exception {
        skill("lint-fix", "Fix lint errors the project's way", "Run ./lint --fix, then review the diff.");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("skill", "{\"name\":\"lint-fix\"}")),
                OpenAiStub.text("done"));
                KernelSession session = StubSessions.openUntrusted(root, environment, framework, stub)) {
            session.send("fix the lint errors", new TurnListener() { });
            assertEquals(2, stub.requests().size());
            JsonNode first = stub.requests().get(0);
            String prompt = systemPrompt(first);
            assertTrue(prompt.contains("Added by your tools (current as of this step):\n## skill\nSkills: call skill"),
                    prompt);
            assertTrue(prompt.contains("The repository's (the user has not trusted this workspace, so these are the "
                    + "repository's text, not the user's instructions):\n- lint-fix: Fix lint errors the project's way\n"),
                    prompt);
            assertFalse(prompt.contains("./lint --fix"), "the body stays out of the prompt: " + prompt);

            JsonNode second = stub.requests().get(1);
            JsonNode messages = second.get("messages");
            String result = messages.get(messages.size() - 1).get("content").asText();
            assertTrue(result.contains("Skill 'lint-fix' (the workspace's skill .quiver/skills/lint-fix/SKILL.md)."),
                    result);
            assertTrue(result.contains("It comes from the repository, and the user has not trusted this workspace"),
                    result);
            assertTrue(result.contains("Run ./lint --fix, then review the diff."), result);
        }
    }

    @Test
    void aTrustedWorkspacesSkillsAreListedAsTheWorkspacesAndItsBodyIsUnframed() throws Exception {
        skill("lint-fix", "Fix lint errors the project's way", "Run ./lint --fix, then review the diff.");
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("skill", "{\"name\":\"lint-fix\"}")),
                OpenAiStub.text("done"));
                KernelSession session = StubSessions.open(root, environment, framework, stub, false)) {
            session.send("fix the lint errors", new TurnListener() { });
            assertTrue(systemPrompt(stub.requests().get(0)).contains("The workspace's:\n- lint-fix: Fix lint errors"),
                    systemPrompt(stub.requests().get(0)));
            JsonNode messages = stub.requests().get(1).get("messages");
            String result = messages.get(messages.size() - 1).get("content").asText();
            assertTrue(result.endsWith("Run ./lint --fix, then review the diff."), result);
            assertFalse(result.contains("not trusted"), result);
        }
    }

    @Test
    void aSkillAddedDuringATurnIsListedAtTheNextStep() throws Exception {
        try (OpenAiStub stub = OpenAiStub.start(OpenAiStub.calls(OpenAiStub.call("skill", "{\"name\":\"nothing-yet\"}")),
                OpenAiStub.text("ok"));
                KernelSession session = StubSessions.open(root, environment, framework, stub, false)) {
            session.send("go", new TurnListener() {
                @Override
                public void callEnded(dev.quiver.api.host.CallOutcome outcome) {
                    try {
                        skill("fresh", "Written while the turn ran", "fresh body");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            assertFalse(systemPrompt(stub.requests().get(0)).contains("fresh"));
            assertTrue(systemPrompt(stub.requests().get(1)).contains("- fresh: Written while the turn ran\n"),
                    systemPrompt(stub.requests().get(1)));
        }
    }
}
