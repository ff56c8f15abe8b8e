package dev.quiver.tools.net;

import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code "net"} config object: {@code allowPrivate} (reach loopback and private networks),
 * {@code allowHttp} (hosts plain http may reach besides private ones) and {@code search} (the
 * {@code web_search} backend's name). The kernel serves a tool only the layers that count: the
 * managed policy and the user's files, and a trusted workspace for {@code search} alone — neither
 * an untrusted nor a trusted workspace may set {@code allowPrivate} or {@code allowHttp}. A value of
 * the wrong kind fails the call, naming it, rather than being read as something else.
 *
 * @param allowPrivate whether non-public addresses may be reached
 * @param allowHttp host names (or {@code *.suffix} patterns) that plain http may reach
 * @param search the chosen search backend's name, empty for the highest-ranked one
 */
record NetConfig(boolean allowPrivate, List<String> allowHttp, Optional<String> search) {

    static final NetConfig DEFAULT = new NetConfig(false, List.of(), Optional.empty());

    static NetConfig of(ToolContext context) throws ToolException {
        Optional<Object> net = context.config("net");
        if (net.isEmpty()) {
            return DEFAULT;
        }
        if (!(net.get() instanceof Map<?, ?> map)) {
            throw new ToolException("The config key \"net\" must be an object, such as {\"allowPrivate\": false}.");
        }
        boolean allowPrivate = false;
        Object value = map.get("allowPrivate");
        if (value instanceof Boolean b) {
            allowPrivate = b;
        } else if (value != null) {
            throw new ToolException("The config value net.allowPrivate must be true or false, not " + value + ".");
        }
        List<String> allowHttp = new ArrayList<>();
        value = map.get("allowHttp");
        if (value instanceof List<?> list) {
            for (Object host : list) {
                if (!(host instanceof String name) || name.isBlank()) {
                    throw new ToolException("The config value net.allowHttp must list host names such as "
                            + "\"intranet.example.com\" or \"*.corp.example\", not " + host + ".");
                }
                allowHttp.add(hostPattern(name));
            }
        } else if (value != null) {
            throw new ToolException("The config value net.allowHttp must be a list of host names, not " + value + ".");
        }
        value = map.get("search");
        if (value != null && !(value instanceof String)) {
            throw new ToolException("The config value net.search must be a search backend's name, such as "
                    + "\"duckduckgo\", not " + value + ".");
        }
        return new NetConfig(allowPrivate, List.copyOf(allowHttp),
                Optional.ofNullable((String) value).map(String::strip).filter(s -> !s.isEmpty()));
    }

    /** A host pattern in the host's normal form, so {@code Intranet.Example.} matches {@code intranet.example}. */
    private static String hostPattern(String name) throws ToolException {
        String trimmed = name.strip();
        boolean subdomains = trimmed.startsWith("*.");
        String host = subdomains ? trimmed.substring(2) : trimmed;
        try {
            host = WebUrl.parse("http://" + host + "/").host();
        } catch (ToolException e) {
            throw new ToolException("The config value net.allowHttp holds \"" + name + "\", which is not a host name.");
        }
        return (subdomains ? "*." : "") + host.toLowerCase(Locale.ROOT);
    }

    /** Whether plain http may reach this host by the user's or the managed policy's {@code allowHttp}. */
    boolean allowsHttp(String host) {
        for (String pattern : allowHttp) {
            if (pattern.startsWith("*.") ? host.endsWith(pattern.substring(1)) : host.equals(pattern)) {
                return true;
            }
        }
        return false;
    }
}
