package dev.quiver.mcp.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * Maps an MCP server's name and its tools' names to Quiver tool names,
 * {@code mcp__<server>__<tool>}, which must match the registry's rule {@code [a-z][a-z0-9_]{0,63}}:
 *
 * <ul>
 *   <li>each part is lower-cased; every character other than {@code a-z}, {@code 0-9} and {@code _}
 *       becomes {@code _}; runs of {@code _} become one and {@code _} at either end is dropped, so
 *       {@code __} only ever separates the parts; an empty part becomes {@code x};</li>
 *   <li>the server part is cut to {@value #SERVER_MAX} characters;</li>
 *   <li>a name that would be longer than 64 characters keeps as much of the tool part as fits
 *       before {@code _} and 8 hexadecimal digits of the SHA-256 of the original tool name;</li>
 *   <li>two tools of one server that map to the same name: the second and later ones get the same
 *       hash suffix, so every tool stays reachable.</li>
 * </ul>
 *
 * The original name is what is sent to the server.
 */
public final class ToolNames {

    static final int MAX = 64;
    static final int SERVER_MAX = 16;
    private static final String PREFIX = "mcp__";

    private ToolNames() {
    }

    /** The server part of the names of a server's tools. */
    public static String server(String server) {
        String part = part(server);
        return part.length() > SERVER_MAX ? trimEnd(part.substring(0, SERVER_MAX)) : part;
    }

    /** The prefix shared by all tools of a server: {@code mcp__<server>__}. */
    public static String prefix(String server) {
        return PREFIX + server(server) + "__";
    }

    /**
     * The Quiver name of a tool.
     *
     * @param taken names already given to other tools of the same server
     */
    public static String tool(String server, String tool, Set<String> taken) {
        String prefix = prefix(server);
        String name = prefix + part(tool);
        if (name.length() <= MAX && !taken.contains(name)) {
            return name;
        }
        String suffix = "_" + hash(tool);
        int room = MAX - prefix.length() - suffix.length();
        String part = part(tool);
        String kept = trimEnd(part.length() > room ? part.substring(0, room) : part);
        return prefix + (kept.isEmpty() ? "x" : kept) + suffix;
    }

    static String part(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            char next = ok ? c : '_';
            if (next == '_' && (out.length() == 0 || out.charAt(out.length() - 1) == '_')) {
                continue;
            }
            out.append(next);
        }
        String part = trimEnd(out.toString());
        return part.isEmpty() ? "x" : part;
    }

    private static String trimEnd(String text) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == '_') {
            end--;
        }
        return text.substring(0, end);
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
