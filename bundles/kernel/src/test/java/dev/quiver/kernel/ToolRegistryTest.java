package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Access;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

class ToolRegistryTest {

    private Framework framework;

    @BeforeEach
    void start() throws Exception {
        framework = new Framework();
    }

    @AfterEach
    void stop() throws Exception {
        framework.close();
    }

    @Test
    void snapshotIsSortedByNameAndFollowsRegistrations() {
        var b = framework.register(new TestTools.Echo("b_tool"), "b_tool", "read");
        framework.register(new TestTools.Echo("a_tool"), "a_tool", "write", "quiver.tool.set", "core");
        List<RegisteredTool> snapshot = framework.registry.snapshot();
        assertEquals(List.of("a_tool", "b_tool"), snapshot.stream().map(RegisteredTool::name).toList());
        assertEquals("core", snapshot.get(0).set().orElseThrow());
        framework.unregister(b);
        assertEquals(List.of("a_tool"), framework.registry.snapshot().stream().map(RegisteredTool::name).toList());
        assertEquals(2, snapshot.size(), "an earlier snapshot does not change");
    }

    @Test
    void aNameRegisteredTwiceGoesToTheHigherRankedService() {
        TestTools.Echo low = new TestTools.Echo();
        TestTools.Echo high = new TestTools.Echo();
        framework.register(low, "echo", "read");
        framework.register(high, "echo", "read", Constants.SERVICE_RANKING, 10);
        List<RegisteredTool> snapshot = framework.registry.snapshot();
        assertEquals(1, snapshot.size());
        assertSame(high, snapshot.get(0).service().orElseThrow());
    }

    @Test
    void invalidNamesAreIgnoredAndUnknownAccessAsks() {
        framework.register(new TestTools.Echo(), "Bad Name", "read");
        framework.register(new TestTools.Echo(), "echo", "superuser");
        List<RegisteredTool> snapshot = framework.registry.snapshot();
        assertEquals(1, snapshot.size());
        assertEquals(Access.EXECUTE, snapshot.get(0).access(), "a typo never widens access");
    }

    @Test
    void schemaBytesCountNameDescriptionAndCompactParameters() {
        framework.register(new TestTools.Echo(), "echo", "read");
        RegisteredTool tool = framework.registry.snapshot().get(0);
        var spec = tool.spec().orElseThrow();
        int expected = spec.name().length() + spec.description().length() + Json.compact(spec.parameters()).orElseThrow().length();
        assertEquals(expected, tool.schemaBytes());
        assertTrue(tool.compactParameters().startsWith("{\"type\":\"object\""));
    }

    @Test
    void aSpecWhoseNameDisagreesWithTheServicePropertyIsNotOffered() {
        framework.register(new TestTools.Echo(), "not_echo", "read");
        assertTrue(framework.registry.snapshot().get(0).spec().isEmpty());
    }

    @Test
    void namesOfToolsThatWentAwayAreRememberedBoundedUntilRegisteredAgain() {
        var counter = framework.register(new TestTools.Echo("counter"), "counter", "read");
        assertFalse(framework.registry.wasUnloaded("counter"), "registered now");
        assertFalse(framework.registry.wasUnloaded("never"), "never registered");
        framework.unregister(counter);
        assertTrue(framework.registry.wasUnloaded("counter"));

        framework.register(new TestTools.Echo("counter"), "counter", "read");
        assertFalse(framework.registry.wasUnloaded("counter"), "back again");

        List<org.osgi.framework.ServiceRegistration<dev.quiver.api.Tool>> many = new java.util.ArrayList<>();
        for (int i = 0; i <= ToolRegistry.REMEMBERED_UNLOADED; i++) {
            many.add(framework.register(new TestTools.Echo("t" + i), "t" + i, "read"));
        }
        many.forEach(framework::unregister);
        assertFalse(framework.registry.wasUnloaded("t0"), "the oldest is forgotten beyond the bound");
        assertTrue(framework.registry.wasUnloaded("t1"));
        assertTrue(framework.registry.wasUnloaded("t" + ToolRegistry.REMEMBERED_UNLOADED));
    }
}
