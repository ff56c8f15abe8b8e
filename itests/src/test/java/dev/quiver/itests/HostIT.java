package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.Tool;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.TurnListener;
import dev.quiver.testing.OpenAiStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;

/** The host boots in real Felix, its tools come and go with their bundle, and only the kernel sees them. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class HostIT {

    private static final List<String> CORE = List.of("bash", "bash_status", "bash_stop", "edit_file", "glob", "grep",
            "read_file", "read_many_files", "write_file");

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
        workspace = Files.createTempDirectory("quiver-itest");
        Files.writeString(workspace.resolve("notes.txt"), "first\nsecond\n");
    }

    @After
    public void startToolBundlesAgain() throws Exception {
        for (Bundle tools : toolBundles()) {
            if (tools.getState() != Bundle.ACTIVE) {
                tools.start();
            }
        }
    }

    @Test
    public void hostBootsAndTheCoreToolsRegister() {
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertEquals(CORE, core(session.tools()));
            assertTrue(session.toolSets().toString(), session.toolSets().contains("core"));
            CallOutcome read = session.call("read_file", "{\"path\":\"notes.txt\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.OK, read.status());
            assertTrue(read.output(), read.output().contains("2: second"));
        }
    }

    @Test
    public void stoppingTheToolBundlesEmptiesTheRegistryAndTheNextStepOffersNoTools() throws Exception {
        try (OpenAiStub model = OpenAiStub.start(OpenAiStub.text("one"), OpenAiStub.text("two"), OpenAiStub.text("three"));
                Session session = kernel.open(new SessionOptions(workspace, Optional.empty(), false, false, false,
                        Optional.of("openai/test"), Optional.of(model.baseUrl()), Optional.empty()))) {
            assertEquals("one", session.send("first", new TurnListener() { }).answer());
            assertTrue(offered(model.requests().get(0)).containsAll(CORE));

            for (Bundle tools : toolBundles()) {
                tools.stop();
            }
            assertTrue(session.tools().toString(), session.tools().isEmpty());
            assertEquals("two", session.send("second", new TurnListener() { }).answer());
            JsonNode second = model.requests().get(1);
            assertFalse("no tools may be offered: " + second, second.has("tools"));
            String prompt = second.get("messages").get(0).get("content").asText();
            assertTrue(prompt, prompt.contains("No tools are available"));
            assertFalse(prompt, prompt.contains("read_file"));

            toolsCore().start();
            assertEquals(CORE, names(session.tools()));
            assertEquals("three", session.send("third", new TurnListener() { }).answer());
            assertEquals(CORE, offered(model.requests().get(2)));
        }
    }

    @Test
    public void aCallInFlightWhileItsBundleStopsFinishesOrSaysTheToolWasUnloaded() throws Exception {
        try (Session session = kernel.open(new SessionOptions(workspace, Optional.empty(), true, false, false,
                Optional.empty(), Optional.empty(), Optional.empty()))) {
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<CallOutcome> call = CompletableFuture.supplyAsync(() -> session.call("bash",
                    "{\"command\":\"echo started; sleep 2; echo done\"}", new TurnListener() {
                        @Override
                        public void callOutput(String tool, String text) {
                            started.countDown();
                        }
                    }));
            assertTrue("the command started", started.await(20, TimeUnit.SECONDS));
            toolsCore().stop();
            CallOutcome outcome = call.get(30, TimeUnit.SECONDS);
            boolean finished = outcome.status() == CallOutcome.Status.OK && outcome.output().contains("done");
            boolean unloaded = outcome.status() == CallOutcome.Status.ERROR && outcome.output().contains("unloaded");
            assertTrue(outcome.toString(), finished || unloaded);

            CallOutcome gone = session.call("read_file", "{\"path\":\"notes.txt\"}", new TurnListener() { });
            assertEquals(CallOutcome.Status.ERROR, gone.status());
            assertTrue(gone.output(), gone.output().startsWith("Tool read_file was unloaded"));

            toolsCore().start();
            CallOutcome back = session.call("read_file", "{\"path\":\"notes.txt\"}", new TurnListener() { });
            assertEquals(back.output(), CallOutcome.Status.OK, back.status());
        }
    }

    @Test
    public void aBundleThatIsNotTheKernelCannotObtainAToolService() throws Exception {
        assertNotNull(kernel);
        ServiceReference<?>[] direct = context.getServiceReferences(Tool.class.getName(), null);
        assertTrue("the test bundle must see no Tool service", direct == null || direct.length == 0);
        ServiceReference<?>[] all = context.getAllServiceReferences(null, "(objectClass=" + Tool.class.getName() + ")");
        assertTrue("not even through getAllServiceReferences", all == null || all.length == 0);
        ServiceReference<?>[] byName = context.getServiceReferences((String) null, "(" + Tool.NAME + "=*)");
        assertTrue("not even by property", byName == null || byName.length == 0);

        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        ServiceListener listener = events::add;
        context.addServiceListener(listener, "(" + Tool.NAME + "=*)");
        try {
            toolsCore().stop();
            toolsCore().start();
        } finally {
            context.removeServiceListener(listener);
        }
        assertTrue("no Tool service events may reach the test bundle: " + events, events.isEmpty());
        try (Session session = kernel.open(SessionOptions.headless(workspace))) {
            assertEquals("the kernel still sees them", CORE, core(session.tools()));
        }
    }

    private Bundle toolsCore() {
        for (Bundle bundle : context.getBundles()) {
            if ("dev.quiver.tools.core".equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("dev.quiver.tools.core is not installed");
    }

    private List<Bundle> toolBundles() {
        List<Bundle> bundles = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getSymbolicName() != null && bundle.getSymbolicName().startsWith("dev.quiver.tools.")) {
                bundles.add(bundle);
            }
        }
        return bundles;
    }

    private static List<String> core(List<ToolInfo> tools) {
        return tools.stream().filter(t -> t.set().orElse("").equals("core")).map(ToolInfo::name).collect(Collectors.toList());
    }

    private static List<String> names(List<ToolInfo> tools) {
        return tools.stream().map(ToolInfo::name).collect(Collectors.toList());
    }

    private static List<String> offered(JsonNode request) {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.path("function").path("name").asText()));
        return names;
    }
}
