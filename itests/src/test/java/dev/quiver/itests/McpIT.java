package dev.quiver.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Tool;
import dev.quiver.api.host.McpServer;
import dev.quiver.api.host.SessionOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The MCP bundle in real Felix: it resolves with the SDK and Reactor embedded, registers the
 * McpServer service, serves the live registry over stdio streams, and, like every bundle but the
 * kernel, sees no Tool service of another bundle.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class McpIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    BundleContext context;

    @Inject
    McpServer server;

    @Configuration
    public Option[] configuration() {
        return HostOptions.host();
    }

    @Test
    public void theMcpServerServesTheRegistryOverStdioStreams() throws Exception {
        Path workspace = Files.createTempDirectory("quiver-mcp-itest");
        Files.writeString(workspace.resolve("notes.txt"), "first\nsecond\n");
        String input = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"itest\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\","
                        + "\"arguments\":{\"path\":\"notes.txt\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"bash\","
                        + "\"arguments\":{\"command\":\"touch x\"}}}",
                "") ;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = server.serveStdio(SessionOptions.headless(workspace),
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, exit);
        Map<Integer, JsonNode> answers = new HashMap<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            JsonNode message = JSON.readTree(line);
            answers.put(message.path("id").asInt(), message);
        }
        assertEquals("quiver", answers.get(1).path("result").path("serverInfo").path("name").asText());
        assertTrue(answers.get(2).toString(), answers.get(2).path("result").path("tools").size() >= 6);
        JsonNode read = answers.get(3).path("result");
        assertFalse(read.toString(), read.path("isError").asBoolean());
        assertTrue(read.toString(), read.path("content").path(0).path("text").asText().contains("1: first"));
        JsonNode bash = answers.get(4).path("result");
        assertTrue(bash.toString(), bash.path("isError").asBoolean());
        assertFalse(Files.exists(workspace.resolve("x")));
        assertTrue(err.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).contains("itest connected"));
    }

    @Test
    public void theMcpBundleIsActiveAndSeesNoToolServices() throws Exception {
        Bundle mcp = null;
        for (Bundle bundle : context.getBundles()) {
            if ("dev.quiver.mcp".equals(bundle.getSymbolicName())) {
                mcp = bundle;
            }
        }
        assertNotNull(mcp);
        assertEquals(Bundle.ACTIVE, mcp.getState());
        ServiceReference<?>[] tools = mcp.getBundleContext().getAllServiceReferences(Tool.class.getName(), null);
        assertTrue("only the kernel reaches tools", tools == null || tools.length == 0);
    }
}
