package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * A model provider bundle can be stopped, started and updated while a session is open: without it
 * the next prompt fails with one line naming the provider and the session stays usable; with it
 * back (or updated and refreshed) the next prompt reaches the model with the whole conversation.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ProviderSwapIT {

    private static final String OPENAI = "dev.quiver.model.openai";
    private static final TurnListener QUIET = new TurnListener() { };

    @Inject
    BundleContext context;

    @Inject
    Kernel kernel;

    private Path workspace;

    @Configuration
    public Option[] configuration() {
        return HostOptions.host();
    }

    @Before
    public void workspace() throws Exception {
        workspace = Files.createTempDirectory("quiver-provider-swap-it");
    }

    @After
    public void startTheProviderAgain() throws Exception {
        Bundle openai = openai();
        if (openai.getState() != Bundle.ACTIVE) {
            openai.start();
        }
    }

    @Test
    public void stoppingTheProviderFailsTheNextPromptInOneLineAndStartingItAgainMakesItWork() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("one"), OpenAiStub.text("two"));
                Session session = open(model)) {
            assertEquals("one", session.send("first", QUIET).answer());
            assertEquals(1, model.requests().size());

            openai().stop();
            String error = failingSend(session, "while stopped");
            assertTrue(error, error.contains("'openai'"));
            assertEquals("the stopped provider sent nothing", 1, model.requests().size());

            // the session is still usable without a model
            assertFalse(session.id().isBlank());
            assertEquals("openai/test", session.model().orElseThrow());
            assertFalse(session.tools().isEmpty());

            openai().start();
            assertEquals("two", session.send("after restart", QUIET).answer());
            assertEquals(2, model.requests().size());
            JsonNode request = model.requests().get(1);
            assertWellFormed(request);
            List<String> users = contents(request, "user");
            assertEquals("the conversation carried over: " + users, "first", users.get(0));
            assertEquals("after restart", users.get(users.size() - 1));
            assertTrue(contents(request, "assistant").contains("one"));
        }
    }

    @Test
    public void updatingAndRefreshingTheProviderLeavesTheNextPromptWorking() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("before update"), OpenAiStub.text("after update"),
                OpenAiStub.text("still fine"));
                Session session = open(model)) {
            assertEquals("before update", session.send("first", QUIET).answer());
            BundleRevision revisionBefore = openai().adapt(BundleRevision.class);

            Bundle openai = openai();
            openai.update();
            refreshAndWait(openai);
            assertEquals(Bundle.ACTIVE, openai().getState());
            assertNotSame("the bundle has a new revision", revisionBefore, openai().adapt(BundleRevision.class));

            assertEquals("after update", session.send("second", QUIET).answer());
            assertEquals("still fine", session.send("third", QUIET).answer());
            assertEquals(3, model.requests().size());
            for (JsonNode request : model.requests()) {
                assertWellFormed(request);
            }
            JsonNode last = model.requests().get(2);
            assertEquals(List.of("first", "second", "third"), contents(last, "user"));
            assertEquals(List.of("before update", "after update"), contents(last, "assistant"));
        }
    }

    @Test
    public void aPromptFailedWhileStoppedLeavesTheProviderUsableAfterAnUpdate() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("one"), OpenAiStub.text("two"));
                Session session = open(model)) {
            assertEquals("one", session.send("first", QUIET).answer());
            openai().stop();
            failingSend(session, "while stopped");
            Bundle openai = openai();
            openai.update(); // an update of a stopped bundle leaves it stopped
            refreshAndWait(openai);
            failingSend(session, "still stopped");
            openai().start();
            assertEquals("two", session.send("after update", QUIET).answer());
            assertEquals(2, model.requests().size());
            assertWellFormed(model.requests().get(1));
        }
    }

    private Session open(OpenAiStub model) {
        return kernel.open(new SessionOptions(workspace, Optional.empty(), false, false, false,
                Optional.of("openai/test"), Optional.of(model.baseUrl()), Optional.empty()));
    }

    /** Sends a prompt that must fail; returns the error, checked to be one line with no stack trace. */
    private static String failingSend(Session session, String prompt) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8);
        String message = null;
        try {
            System.setOut(capture);
            System.setErr(capture);
            session.send(prompt, QUIET);
        } catch (HostException e) {
            message = e.getMessage();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        if (message == null) {
            fail("the prompt '" + prompt + "' should fail without the provider");
        }
        assertFalse(message, message.isBlank());
        assertFalse("one line: " + message, message.contains("\n") || message.contains("\r"));
        assertFalse("no stack trace or class names: " + message, message.contains("Exception") || message.contains("\tat "));
        String terminal = printed.toString(StandardCharsets.UTF_8);
        assertFalse("no stack trace printed: " + terminal, terminal.contains("\tat ") || terminal.contains("Exception"));
        return message;
    }

    private void refreshAndWait(Bundle bundle) throws InterruptedException {
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);
        CountDownLatch refreshed = new CountDownLatch(1);
        List<FrameworkEvent> errors = new ArrayList<>();
        wiring.refreshBundles(List.of(bundle), event -> {
            if (event.getType() == FrameworkEvent.ERROR) {
                errors.add(event);
            }
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                refreshed.countDown();
            }
        });
        assertTrue("the refresh finished", refreshed.await(60, TimeUnit.SECONDS));
        assertTrue("refresh errors: " + errors, errors.isEmpty());
    }

    private Bundle openai() {
        for (Bundle bundle : context.getBundles()) {
            if (OPENAI.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError(OPENAI + " is not installed");
    }

    /** Every tool call answered by a result, no stray result, no empty assistant message. */
    private static void assertWellFormed(JsonNode request) {
        List<String> open = new ArrayList<>();
        for (JsonNode message : request.get("messages")) {
            String role = message.get("role").asText();
            if (role.equals("tool")) {
                assertTrue("a result without its call: " + request, open.remove(message.get("tool_call_id").asText()));
                continue;
            }
            assertTrue("calls without results: " + request, open.isEmpty());
            if (role.equals("assistant")) {
                boolean text = message.path("content").isTextual() && !message.path("content").asText().isBlank();
                assertTrue("an empty assistant message: " + message, text || message.path("tool_calls").size() > 0);
                message.path("tool_calls").forEach(call -> open.add(call.get("id").asText()));
            }
        }
        assertTrue("calls without results: " + request, open.isEmpty());
    }

    private static List<String> contents(JsonNode request, String role) {
        List<String> contents = new ArrayList<>();
        for (JsonNode message : request.get("messages")) {
            if (message.get("role").asText().equals(role)) {
                contents.add(message.path("content").asText());
            }
        }
        return contents;
    }
}
