package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * Model providers stay inactive until a session asks for a model: listing and calling tools (the
 * tools, call, check and mcp modes) activates no provider component and loads no LangChain4j model.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ModelProvidersIT {

    @Inject
    Kernel kernel;

    @Inject
    ServiceComponentRuntime scr;

    @Configuration
    public Option[] configuration() {
        return HostOptions.host();
    }

    @Test
    public void listingAndCallingToolsActivatesNoModelProvider() throws Exception {
        Path workspace = Files.createTempDirectory("quiver-providers-it");
        Files.writeString(workspace.resolve("notes.txt"), "one\n");
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertFalse(session.tools().isEmpty());
            assertEquals(CallOutcome.Status.OK,
                    session.call("read_file", "{\"path\":\"notes.txt\"}", new TurnListener() { }).status());
        }
        Map<String, Boolean> active = providers();
        assertEquals(active.toString(), 3, active.size());
        assertFalse("no provider is active: " + active, active.containsValue(true));
    }

    @Test
    public void aPromptActivatesOnlyTheProviderItNames() throws Exception {
        Path workspace = Files.createTempDirectory("quiver-providers-it");
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("hello"));
                Session session = kernel.open(new SessionOptions(workspace, Optional.empty(), false, false, false,
                        Optional.of("openai/test"), Optional.of(model.baseUrl()), Optional.empty()))) {
            assertEquals("hello", session.send("hi", new TurnListener() { }).answer());
        }
        Map<String, Boolean> active = providers();
        assertTrue(active.toString(), active.get("dev.quiver.model.openai.OpenAiModelProvider"));
        assertFalse(active.toString(), active.get("dev.quiver.model.anthropic.AnthropicModelProvider"));
        assertFalse(active.toString(), active.get("dev.quiver.model.ollama.OllamaModelProvider"));
    }

    /** Each provider component's name, and whether any of its configurations is active. */
    private Map<String, Boolean> providers() {
        Map<String, Boolean> active = new TreeMap<>();
        for (ComponentDescriptionDTO description : scr.getComponentDescriptionDTOs()) {
            if (description.name.startsWith("dev.quiver.model.")) {
                boolean any = false;
                for (ComponentConfigurationDTO configuration : scr.getComponentConfigurationDTOs(description)) {
                    any |= configuration.state == ComponentConfigurationDTO.ACTIVE;
                }
                active.put(description.name, any);
            }
        }
        return active;
    }
}
