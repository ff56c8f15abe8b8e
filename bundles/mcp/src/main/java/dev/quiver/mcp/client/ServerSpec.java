package dev.quiver.mcp.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One MCP server of the configuration, in any of the shapes users bring (docs/mcp.md has the table):
 *
 * <ul>
 *   <li>Quiver's and Claude Code's: {@code command} (the program) with {@code args}, {@code env},
 *       {@code cwd}; or {@code url} with {@code headers}; {@code type} {@code stdio}, {@code http}
 *       (streamable HTTP) or {@code sse};</li>
 *   <li>opencode's: {@code type} {@code local} with {@code command} as the whole command line (an
 *       array) and {@code environment}, or {@code remote} with {@code url} and {@code headers}; its
 *       {@code timeout} is in milliseconds and bounds the start, as in opencode.</li>
 * </ul>
 *
 * plus optional {@code startupTimeout} and {@code timeout} (Quiver's, in seconds) and
 * {@code enabled}. {@code ${NAME}}, {@code ${NAME:-default}} and opencode's {@code {env:NAME}} in
 * {@code env} and {@code headers} values are replaced with Quiver's environment variable NAME, so
 * tokens need not be written into config files.
 *
 * @param name the key in the configuration
 * @param transport how the server is reached
 * @param command the program (stdio servers), or null
 * @param args its arguments
 * @param env variables added to the server's environment, expanded
 * @param cwd the working folder, or null for the workspace
 * @param url the endpoint (HTTP and SSE servers), or null
 * @param headers HTTP headers sent with every request, expanded
 * @param startupTimeout how long starting and {@code initialize} may take
 * @param callTimeout how long one {@code tools/call} may take
 */
public record ServerSpec(String name, Transport transport, String command, List<String> args, Map<String, String> env,
        String cwd, String url, Map<String, String> headers, Duration startupTimeout, Duration callTimeout) {

    /** How a server is reached. */
    public enum Transport {
        /** A process speaking JSON-RPC on its stdin and stdout. */
        STDIO,
        /** The streamable HTTP transport (one endpoint, POST and GET). */
        HTTP,
        /** The older HTTP+SSE transport (an event stream that names the endpoint to POST to). */
        SSE
    }

    static final Duration DEFAULT_STARTUP = Duration.ofSeconds(10);
    /** Below the kernel's own limit for a tool call (660 s), so the server's timeout is the one reported. */
    static final Duration DEFAULT_CALL = Duration.ofSeconds(600);
    private static final Set<String> KEYS = Set.of("command", "args", "env", "environment", "cwd", "url", "headers",
            "type", "startupTimeout", "timeout", "enabled");
    /** {@code type} values and the transport each means; {@code local} and {@code remote} are opencode's. */
    private static final Map<String, Transport> TYPES = Map.of("stdio", Transport.STDIO, "local", Transport.STDIO,
            "http", Transport.HTTP, "streamable-http", Transport.HTTP, "remote", Transport.HTTP, "sse", Transport.SSE);
    private static final Pattern VARIABLE = Pattern.compile(
            "\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}|\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    public ServerSpec {
        args = List.copyOf(args);
        env = Map.copyOf(env);
        headers = Map.copyOf(headers);
    }

    /** Whether the server is a process speaking stdio. */
    boolean stdio() {
        return transport == Transport.STDIO;
    }

    /** Where the server is, for messages: the command line or the URL. */
    String where() {
        return stdio() ? String.join(" ", prepend(command, args)) : url;
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    /**
     * The servers of an {@code "mcp"} value, by name in configuration order (the kernel puts the
     * higher layer's first). Entries that are not valid are left out and described in
     * {@code problems}; {@code "enabled": false} leaves one out quietly. A server whose tools would
     * share their prefix with an earlier server's ({@code GitHub} after {@code github}) is left out,
     * so that no server can stand in for another's tools and the rules written for them.
     */
    static Map<String, ServerSpec> parse(Optional<Object> value, Map<String, String> environment, List<String> problems) {
        Map<String, ServerSpec> specs = new LinkedHashMap<>();
        if (value.isEmpty()) {
            return specs;
        }
        if (!(value.get() instanceof Map<?, ?> servers)) {
            problems.add("\"mcp\" must be an object of servers by name; it is ignored.");
            return specs;
        }
        Map<String, String> prefixes = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : servers.entrySet()) {
            String name = String.valueOf(entry.getKey());
            try {
                ServerSpec spec = one(name, entry.getValue(), environment, problems);
                if (spec == null) {
                    continue;
                }
                String earlier = prefixes.putIfAbsent(ToolNames.prefix(name), name);
                if (earlier != null) {
                    throw new IllegalArgumentException("its tools would be named " + ToolNames.prefix(name) + "*, as the "
                            + "tools of the server \"" + earlier + "\" are; give it another name.");
                }
                specs.put(name, spec);
            } catch (IllegalArgumentException e) {
                problems.add("mcp server \"" + name + "\": " + e.getMessage() + " It is not started.");
            }
        }
        return specs;
    }

    private static ServerSpec one(String name, Object value, Map<String, String> environment, List<String> problems) {
        if (name.isBlank()) {
            throw new IllegalArgumentException("the name is empty.");
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("must be an object with \"command\" or \"url\".");
        }
        for (Object key : map.keySet()) {
            if (!KEYS.contains(String.valueOf(key))) {
                problems.add("mcp server \"" + name + "\": unknown key \"" + key + "\" is ignored.");
            }
        }
        Object enabled = map.get("enabled");
        if (enabled != null && !(enabled instanceof Boolean)) {
            throw new IllegalArgumentException("\"enabled\" must be true or false.");
        }
        if (Boolean.FALSE.equals(enabled)) {
            return null;
        }
        Object type = map.get("type");
        if (type != null && !(type instanceof String && TYPES.containsKey(type))) {
            throw new IllegalArgumentException("\"type\" " + type + " is not one Quiver knows; use \"stdio\" or \"local\" "
                    + "(a process), \"http\" or \"remote\" (streamable HTTP), or \"sse\".");
        }
        boolean opencode = "local".equals(type) || "remote".equals(type);
        List<String> commandLine = commandLine(map);
        String url = text(map, "url");
        if ((commandLine == null) == (url == null)) {
            throw new IllegalArgumentException("give either \"command\" (a program to start) or \"url\" (an HTTP "
                    + "endpoint), not both and not neither.");
        }
        Transport transport = type != null ? TYPES.get(type) : url != null ? Transport.HTTP : Transport.STDIO;
        if ((transport == Transport.STDIO) != (commandLine != null)) {
            throw new IllegalArgumentException("\"type\": \"" + type + "\" needs " + (commandLine == null ? "\"command\"."
                    : "\"url\", not \"command\"."));
        }
        if (url != null) {
            checkUrl(url);
        }
        if (map.containsKey("env") && map.containsKey("environment")) {
            throw new IllegalArgumentException("give \"env\" or opencode's \"environment\", not both.");
        }
        Map<String, String> variables = table(map, map.containsKey("environment") ? "environment" : "env");
        Duration startup = seconds(map, "startupTimeout", DEFAULT_STARTUP);
        Duration call = DEFAULT_CALL;
        if (opencode) {
            startup = map.containsKey("startupTimeout") ? startup : milliseconds(map, "timeout", startup);
        } else {
            call = seconds(map, "timeout", DEFAULT_CALL);
        }
        String command = commandLine == null ? null : commandLine.get(0);
        List<String> args = commandLine == null ? List.of() : commandLine.subList(1, commandLine.size());
        return new ServerSpec(name, transport, command, args, expand(name, variables, environment, problems),
                text(map, "cwd"), url, expand(name, table(map, "headers"), environment, problems), startup, call);
    }

    /**
     * The program and its arguments: {@code command} as a string (the program) or, as opencode writes
     * it, an array (the whole command line), followed by {@code args}; null without a {@code command}.
     */
    private static List<String> commandLine(Map<?, ?> map) {
        Object command = map.get("command");
        if (command == null) {
            if (map.containsKey("args")) {
                strings(map, "args"); // its type is still checked, so the message names the real mistake
            }
            return null;
        }
        List<String> line = new ArrayList<>();
        if (command instanceof List<?>) {
            line.addAll(strings(map, "command"));
            if (line.isEmpty() || line.get(0).isBlank()) {
                throw new IllegalArgumentException("\"command\" must start with the program to run; its first element "
                        + "is " + (line.isEmpty() ? "missing." : "empty."));
            }
        } else {
            line.add(text(map, "command"));
        }
        line.addAll(strings(map, "args"));
        return line;
    }

    private static void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("\"url\" is not a URL: " + url + ".");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                || uri.getHost() == null) {
            throw new IllegalArgumentException("\"url\" must be an http:// or https:// URL, got " + url + ".");
        }
    }

    private static String text(Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s) || s.isBlank()) {
            throw new IllegalArgumentException("\"" + key + "\" must be a non-empty string.");
        }
        return s;
    }

    private static List<String> strings(Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new IllegalArgumentException("\"" + key + "\" must be an array of strings.");
        }
        List<String> result = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof String s)) {
                throw new IllegalArgumentException("\"" + key + "\" must be an array of strings.");
            }
            result.add(s);
        }
        return result;
    }

    private static Map<String, String> table(Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> entries)) {
            throw new IllegalArgumentException("\"" + key + "\" must be an object of strings.");
        }
        Map<String, String> result = new TreeMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (!(entry.getValue() instanceof String s)) {
                throw new IllegalArgumentException("\"" + key + "\"." + entry.getKey() + " must be a string.");
            }
            result.put(String.valueOf(entry.getKey()), s);
        }
        return result;
    }

    /** opencode's {@code timeout}: milliseconds. */
    private static Duration milliseconds(Map<?, ?> map, String key, Duration fallback) {
        Object value = map.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Number n) || n.doubleValue() <= 0 || n.doubleValue() > 86_400_000) {
            throw new IllegalArgumentException("\"" + key + "\" (opencode's, in milliseconds) must be a number above 0.");
        }
        return Duration.ofMillis(n.longValue());
    }

    private static Duration seconds(Map<?, ?> map, String key, Duration fallback) {
        Object value = map.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Number n) || n.doubleValue() <= 0 || n.doubleValue() > 86_400) {
            throw new IllegalArgumentException("\"" + key + "\" must be a number of seconds above 0.");
        }
        return Duration.ofMillis((long) (n.doubleValue() * 1000));
    }

    private static Map<String, String> expand(String server, Map<String, String> values, Map<String, String> environment,
            List<String> problems) {
        Map<String, String> expanded = new TreeMap<>();
        values.forEach((key, value) -> {
            Matcher matcher = VARIABLE.matcher(value);
            StringBuilder out = new StringBuilder();
            while (matcher.find()) {
                String variable = matcher.group(1) != null ? matcher.group(1) : matcher.group(3);
                String found = environment.get(variable);
                if (found == null && matcher.group(2) != null) {
                    found = matcher.group(2);
                } else if (found == null) {
                    problems.add("mcp server \"" + server + "\": " + matcher.group() + " in \"" + key
                            + "\" is not set in Quiver's environment; it is replaced with nothing.");
                    found = "";
                }
                matcher.appendReplacement(out, Matcher.quoteReplacement(found));
            }
            matcher.appendTail(out);
            expanded.put(key, out.toString());
        });
        return expanded;
    }
}
