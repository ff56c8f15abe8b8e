package dev.quiver.mcp.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * A small MCP server written for the client's tests, without the SDK: hand-made JSON-RPC over stdio
 * ({@code stdio}) or over plain-JSON streamable HTTP ({@code http PORT_FILE}). Its tools:
 * {@code echo}, {@code add}, {@code fail} (an error result), {@code slow} (sleeps), {@code crash}
 * (the process dies mid-call), {@code grow} (adds the tool {@code extra} and announces it),
 * {@code Odd.Name-With-Dashes} and one with a very long name. With {@code TINY_TOKEN} set, HTTP
 * requests must carry {@code X-Token} with that value.
 */
public final class TinyMcpServer {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LONG_NAME = "a_tool_whose_name_is_far_too_long_to_fit_into_the_sixty_four_character_limit";

    private final List<String> tools = new ArrayList<>(List.of("echo", "add", "fail", "slow", "crash", "grow",
            "Odd.Name-With-Dashes", LONG_NAME));
    private volatile PrintStream stdout;

    public static void main(String[] args) throws Exception {
        TinyMcpServer server = new TinyMcpServer();
        if (args.length > 0 && args[0].equals("http")) {
            server.http(Path.of(args[1]));
        } else {
            server.stdio();
        }
    }

    private void stdio() throws IOException {
        stdout = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.err.println("tiny server ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode message = JSON.readTree(line);
            if (!message.has("method") || !message.has("id")) {
                continue; // notifications and responses
            }
            String id = message.get("id").toString();
            String reply = answer(message);
            // slow calls answer from their own thread so other requests go on
            synchronized (this) {
                stdout.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + "," + reply + "}");
            }
        }
    }

    private void http(Path portFile) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 10);
        server.setExecutor(Executors.newCachedThreadPool());
        String token = System.getenv("TINY_TOKEN");
        String session = UUID.randomUUID().toString();
        server.createContext("/mcp", exchange -> {
            try (exchange) {
                if (token != null && !token.equals(exchange.getRequestHeaders().getFirst("X-Token"))) {
                    send(exchange, 401, "{\"error\":\"bad token\"}");
                    return;
                }
                if (!exchange.getRequestMethod().equals("POST")) {
                    send(exchange, 405, "");
                    return;
                }
                JsonNode message = JSON.readTree(exchange.getRequestBody());
                if (!message.has("method") || !message.has("id")) {
                    send(exchange, 202, "");
                    return;
                }
                exchange.getResponseHeaders().set("Mcp-Session-Id", session);
                String reply = "{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + "," + answer(message) + "}";
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                send(exchange, 200, reply);
            }
        });
        server.start();
        Files.writeString(portFile, Integer.toString(server.getAddress().getPort()));
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The {@code "result":...} or {@code "error":...} part of the answer. */
    private String answer(JsonNode message) {
        String method = message.get("method").asText();
        JsonNode params = message.path("params");
        switch (method) {
            case "initialize":
                return "\"result\":{\"protocolVersion\":\"" + params.path("protocolVersion").asText("2025-06-18")
                        + "\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                        + "\"serverInfo\":{\"name\":\"tiny\",\"version\":\"1\"}}";
            case "ping":
                return "\"result\":{}";
            case "tools/list":
                return "\"result\":" + toolList();
            case "tools/call":
                return call(params.path("name").asText(), params.path("arguments"));
            default:
                return "\"error\":{\"code\":-32601,\"message\":\"Method not found: " + method + "\"}";
        }
    }

    private synchronized String toolList() {
        ObjectNode result = JSON.createObjectNode();
        ArrayNode list = result.putArray("tools");
        for (String name : tools) {
            ObjectNode tool = list.addObject();
            tool.put("name", name);
            tool.put("description", "The " + name + " tool of the tiny test server.");
            ObjectNode schema = tool.putObject("inputSchema");
            schema.put("type", "object");
            ObjectNode properties = schema.putObject("properties");
            if (name.equals("echo")) {
                properties.putObject("text").put("type", "string");
                schema.putArray("required").add("text");
            } else if (name.equals("add")) {
                properties.putObject("a").put("type", "number");
                properties.putObject("b").put("type", "number");
            } else if (name.equals("slow")) {
                properties.putObject("millis").put("type", "integer");
            }
        }
        return result.toString();
    }

    private String call(String name, JsonNode arguments) {
        switch (name) {
            case "echo":
                return text("echo: " + arguments.path("text").asText(), false);
            case "add":
                return text(Double.toString(arguments.path("a").asDouble() + arguments.path("b").asDouble()), false);
            case "fail":
                return text("the fail tool failed, as it should", true);
            case "slow":
                try {
                    Thread.sleep(arguments.path("millis").asLong(1000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return text("slept", false);
            case "crash":
                System.err.println("crashing on purpose in the middle of a call");
                System.err.flush();
                Runtime.getRuntime().halt(3);
                return "";
            case "grow":
                synchronized (this) {
                    if (!tools.contains("extra")) {
                        tools.add("extra");
                    }
                }
                if (stdout != null) {
                    synchronized (this) {
                        stdout.println("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
                    }
                }
                return text("grown", false);
            default:
                if (tools.contains(name)) {
                    return text("called " + name, false);
                }
                return "\"error\":{\"code\":-32602,\"message\":\"Unknown tool: " + name + "\"}";
        }
    }

    private static String text(String text, boolean error) {
        ObjectNode result = JSON.createObjectNode();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        result.put("isError", error);
        return "\"result\":" + result;
    }

    private TinyMcpServer() {
    }
}
