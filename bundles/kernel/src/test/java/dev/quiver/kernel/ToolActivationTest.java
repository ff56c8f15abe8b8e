package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a session asks of tools it is not using. A tool's spec comes from its service object, and
 * getting that object activates a delayed DS component, so the start-up header (set names) and a
 * call or check by name (one tool) must not ask every tool for it: a one-shot {@code quiver call}
 * would otherwise activate the whole registry. A tool whose spec cannot be had is never offered,
 * and a call by its name is refused as before, listing exactly the tools that are.
 */
class ToolActivationTest {

    @TempDir
    Path temp;

    private Framework framework;
    private KernelSession session;
    private final AtomicInteger specsAsked = new AtomicInteger();

    /** Counts how often it is asked for its spec. */
    private final class Watched implements Tool {
        @Override
        public ToolSpec spec() {
            specsAsked.incrementAndGet();
            return new ToolSpec("watched", "Watched.", "{\"type\":\"object\",\"properties\":{}}");
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            return ToolResult.of("watched ran");
        }
    }

    /** A spec that fails, as a broken third-party tool's might. */
    private static final class Broken implements Tool {
        @Override
        public ToolSpec spec() {
            throw new IllegalStateException("no spec today");
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            return ToolResult.of("broken ran");
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        Path root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        Path home = Files.createDirectories(temp.resolve("home"));
        Map<String, String> environment = Map.of("HOME", home.toString(),
                "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_DATA_HOME", home.resolve(".local/share").toString(),
                "XDG_STATE_HOME", home.resolve(".local/state").toString());
        framework = new Framework();
        framework.register(new TestTools.Echo(), "echo", "read", Tool.SET, "core");
        framework.register(new Watched(), "watched", "read", Tool.SET, "extra");
        framework.register(new Broken(), "broken", "read", Tool.SET, "extra");
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, false, false,
                Optional.empty(), Optional.empty(), Optional.empty());
        session = new KernelSession(new WorkspaceFactoryComponent().open(root), options,
                Config.load(Optional.empty(), root, environment), framework.registry, name -> Optional.empty(),
                List::of, SessionStore.fromEnvironment(environment), tool -> false, () -> { });
    }

    @AfterEach
    void tearDown() throws Exception {
        session.close();
        framework.close();
    }

    @Test
    void theHeaderACallAndACheckAskNoOtherToolForItsSpec() {
        assertEquals(List.of("core", "extra"), session.toolSets());
        CallOutcome outcome = session.call("echo", "{\"text\":\"hi\"}", new TurnListener() { });
        assertEquals(CallOutcome.Status.OK, outcome.status(), outcome.output());
        assertEquals("hi", outcome.output());
        assertEquals(Decision.ALLOW, session.check("echo", "{\"text\":\"hi\"}").decision());
        assertEquals(0, specsAsked.get(), "the watched tool was activated for nothing");

        assertEquals(CallOutcome.Status.OK, session.call("watched", "{}", new TurnListener() { }).status());
        assertTrue(specsAsked.get() > 0, "its own call needs its spec (the argument schema)");
    }

    @Test
    void aToolWithoutAValidSpecIsNeverOfferedAndACallByItsNameIsToldWhatIs() {
        CallOutcome outcome = session.call("broken", "{}", new TurnListener() { });
        assertEquals(CallOutcome.Status.ERROR, outcome.status());
        assertEquals("No tool named 'broken' is offered in this step. Offered: echo, watched.", outcome.output());
        assertEquals(Decision.ASK, session.check("broken", "{}").decision(), "unknown tools ask");
        assertTrue(session.tools().stream().noneMatch(tool -> tool.name().equals("broken")), "never offered");
        assertTrue(session.tools().stream().anyMatch(tool -> tool.name().equals("watched")));
    }
}
