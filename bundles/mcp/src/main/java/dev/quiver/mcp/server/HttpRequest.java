package dev.quiver.mcp.server;

import java.util.Map;

/**
 * One HTTP request as {@link HttpListener} read it.
 *
 * @param method the method, such as {@code POST}
 * @param path the path of the target, without the query
 * @param headers the header fields by lower-case name (the first of repeated ones)
 * @param body the body; empty before it is read or when there is none
 */
record HttpRequest(String method, String path, Map<String, String> headers, byte[] body) {

    /** A header's value, or null. */
    String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    HttpRequest withBody(byte[] content) {
        return new HttpRequest(method, path, headers, content);
    }
}
