package dev.quiver.mcp.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks one incoming JSON-RPC text before the SDK sees it, and writes the error answers for what
 * cannot be handled: text that is not one JSON value (-32700, also for anything after the value), JSON that is not one JSON-RPC 2.0 message
 * (-32600), and messages over the size limit (-32600). The error carries the request's id when it
 * can be read, and {@code null} otherwise, as JSON-RPC asks.
 */
final class JsonRpcErrors {

    /** The largest message accepted on either transport. */
    static final int MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
    /** Reads exactly one JSON value: {@code {...}garbage} is not a message, only whitespace may follow. */
    private static final ObjectReader ONE_VALUE = Json.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(-?\\d{1,18}|\"(?:[^\"\\\\]|\\\\.){0,200}\")");

    /**
     * What a text is: a message to hand on, or the error to answer with.
     *
     * @param message the parsed message, or null
     * @param error the error response as JSON, or null
     */
    record Checked(McpSchema.JSONRPCMessage message, String error) {
    }

    private JsonRpcErrors() {
    }

    static Checked check(String text) {
        JsonNode node;
        try {
            node = ONE_VALUE.readTree(text);
        } catch (Exception e) {
            return new Checked(null, error(null, ErrorCodes.PARSE_ERROR, "Parse error: the message is not valid JSON ("
                    + firstLine(e.getMessage()) + ")."));
        }
        if (node == null || node.isMissingNode()) {
            return new Checked(null, error(null, ErrorCodes.PARSE_ERROR, "Parse error: the message is empty."));
        }
        if (node.isArray()) {
            return new Checked(null, error(null, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: JSON-RPC batches are not supported; send one message per line."));
        }
        if (!node.isObject()) {
            return new Checked(null, error(null, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: a JSON-RPC message is a JSON object."));
        }
        JsonNode id = node.get("id");
        if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
            return new Checked(null, error(null, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: \"id\" must be a string or an integer."));
        }
        if (!"2.0".equals(node.path("jsonrpc").asText(null))) {
            return new Checked(null, error(id, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: \"jsonrpc\" must be \"2.0\"."));
        }
        JsonNode method = node.get("method");
        boolean response = node.has("result") || node.has("error");
        if (method == null && !response) {
            return new Checked(null, error(id, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: a message needs \"method\" (a request or notification) or \"result\"/\"error\" "
                            + "(a response)."));
        }
        if (method != null && (!method.isTextual() || method.asText().isEmpty())) {
            return new Checked(null, error(id, ErrorCodes.INVALID_REQUEST,
                    "Invalid request: \"method\" must be a non-empty string."));
        }
        JsonNode params = node.get("params");
        if (method != null && params != null && !params.isNull() && !params.isObject()) {
            return new Checked(null, error(id, ErrorCodes.INVALID_PARAMS,
                    "Invalid params: \"params\" must be an object."));
        }
        try {
            return new Checked(McpSchema.deserializeJsonRpcMessage(Json.MCP, text), null);
        } catch (Exception e) {
            return new Checked(null, error(id, ErrorCodes.INVALID_REQUEST, "Invalid request: "
                    + firstLine(e.getMessage())));
        }
    }

    /** The error for a message over {@link #MAX_MESSAGE_BYTES}, with the id found in its first bytes. */
    static String tooLarge(byte[] head, int headLength) {
        String start = new String(head, 0, headLength, StandardCharsets.UTF_8);
        Matcher matcher = ID.matcher(start);
        JsonNode id = null;
        if (matcher.find()) {
            try {
                id = Json.MAPPER.readTree(matcher.group(1));
            } catch (Exception ignored) {
                // no usable id
            }
        }
        return error(id, ErrorCodes.INVALID_REQUEST, "Invalid request: the message is larger than "
                + (MAX_MESSAGE_BYTES / (1024 * 1024)) + " MiB and was dropped.");
    }

    static String error(JsonNode id, int code, String message) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("jsonrpc", "2.0");
        if (id == null || id.isNull()) {
            node.putNull("id");
        } else {
            node.set("id", id);
        }
        ObjectNode error = node.putObject("error");
        error.put("code", code);
        error.put("message", message);
        return node.toString();
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "unreadable";
        }
        int end = text.indexOf('\n');
        String line = end < 0 ? text : text.substring(0, end);
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
