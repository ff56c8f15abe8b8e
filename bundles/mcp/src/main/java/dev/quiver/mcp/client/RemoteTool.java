package dev.quiver.mcp.client;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One tool of an MCP server as a Quiver {@link Tool}. Its subjects are its arguments, one
 * {@code name=value} each (a string value as it is, anything else as compact JSON), so permission
 * rules can match them: {@code "mcp__github__create_issue": {"*": "ask", "repo=me/*": "allow"}}.
 * Like every subject of a call, each must be allowed for the call to run unasked.
 */
final class RemoteTool implements Tool {

    private final ServerHandle server;
    private final String remoteName;
    private final ToolSpec spec;

    RemoteTool(ServerHandle server, String name, McpSchema.Tool remote) {
        this.server = server;
        this.remoteName = remote.name();
        String description = remote.description() == null || remote.description().isBlank()
                ? "Tool " + remote.name() + " of the MCP server " + server.spec().name() + "."
                : remote.description();
        this.spec = new ToolSpec(name, description, parameters(remote));
    }

    private static String parameters(McpSchema.Tool remote) {
        Map<String, Object> schema = remote.inputSchema();
        if (schema == null || schema.isEmpty()) {
            return "{\"type\":\"object\",\"properties\":{}}";
        }
        return Json.write(schema);
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) {
        List<Subject> subjects = new ArrayList<>();
        arguments.asMap().forEach((key, value) -> {
            if (value != null) {
                subjects.add(Subject.name(key + "=" + (value instanceof String s ? s : Json.write(value))));
            }
        });
        return subjects;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        return server.call(spec.name(), remoteName, arguments.asMap(), context);
    }
}
