package dev.quiver.mcp.client;

import java.net.URI;
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
 * One entry of the {@code "mcp"} configuration key: a server started as a process
 * ({@code command}, {@code args}, {@code env}, {@code cwd}) or reached over streamable HTTP
 * ({@code url}, {@code headers}), plus optional {@code startupTimeout} and {@code timeout} in
 * seconds. {@code ${NAME}} in {@code env} and {@code headers} values is replaced with Quiver's
 * environment variable NAME, so tokens need not be written into config files.
 *
 * @param name the key in the configuration
 * @param command the program (stdio servers), or null
 * @param args its arguments
 * @param env variables added to the server's environment, expanded
 * @param cwd the working folder, or null for the workspace
 * @param url the endpoint (HTTP servers), or null
 * @param headers HTTP headers sent with every request, expanded
 * @param startupTimeout how long starting and {@code initialize} may take
 * @param callTimeout how long one {@code tools/call} may take
 */
public record ServerSpec(String name, String command, List<String> args, Map<String, String> env, String cwd,
        String url, Map<String, String> headers, Duration startupTimeout, Duration callTimeout) {

    static final Duration DEFAULT_STARTUP = Duration.ofSeconds(10);
    /** Below the kernel's own limit for a tool call (660 s), so the server's timeout is the one reported. */
    static final Duration DEFAULT_CALL = Duration.ofSeconds(600);
    private static final Set<String> KEYS = Set.of("command", "args", "env", "cwd", "url", "headers", "type",
            "startupTimeout", "timeout", "enabled");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    public ServerSpec {
        args = List.copyOf(args);
        env = Map.copyOf(env);
        headers = Map.copyOf(headers);
    }

    /** Whether the server is a process speaking stdio. */
    boolean stdio() {
        return command != null;
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
     * The servers of an {@code "mcp"} value, by name in configuration order. Entries that are not
     * valid are left out and described in {@code problems}; {@code "enabled": false} leaves one out
     * quietly.
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
        for (Map.Entry<?, ?> entry : servers.entrySet()) {
            String name = String.valueOf(entry.getKey());
            try {
                ServerSpec spec = one(name, entry.getValue(), environment, problems);
                if (spec != null) {
                    specs.put(name, spec);
                }
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
        if (Boolean.FALSE.equals(map.get("enabled"))) {
            return null;
        }
        String command = text(map, "command");
        String url = text(map, "url");
        if ((command == null) == (url == null)) {
            throw new IllegalArgumentException("give either \"command\" (a program to start) or \"url\" (an HTTP "
                    + "endpoint), not both and not neither.");
        }
        if (url != null) {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("\"url\" is not a URL: " + url + ".");
            }
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("\"url\" must be an http:// or https:// URL, got " + url + ".");
            }
            Object type = map.get("type");
            if (type != null && !"http".equals(type) && !"streamable-http".equals(type)) {
                throw new IllegalArgumentException("\"type\" " + type + " is not supported; only the streamable HTTP "
                        + "transport (\"http\") is.");
            }
        }
        return new ServerSpec(name, command, strings(map, "args"), expand(name, table(map, "env"), environment, problems),
                text(map, "cwd"), url, expand(name, table(map, "headers"), environment, problems),
                seconds(map, "startupTimeout", DEFAULT_STARTUP), seconds(map, "timeout", DEFAULT_CALL));
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
                String found = environment.get(matcher.group(1));
                if (found == null) {
                    problems.add("mcp server \"" + server + "\": ${" + matcher.group(1) + "} in \"" + key
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
