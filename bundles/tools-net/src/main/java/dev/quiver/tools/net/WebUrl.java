package dev.quiver.tools.net;

import dev.quiver.api.ToolException;
import java.io.ByteArrayOutputStream;
import java.net.IDN;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * An http(s) URL in one normal form: the permission subject, the URL requested and the host checked
 * are all this one parse, so no spelling can be judged as one host and fetched from another.
 *
 * <p>The form: scheme and host in lower case; the host's IDN labels in punycode, one trailing dot
 * dropped, percent-escapes decoded; an IPv4 host in any spelling a resolver accepts (decimal
 * {@code 2130706433}, octal {@code 0177.0.0.1}, hex {@code 0x7f.1}, short {@code 127.1}) as its dotted
 * quad, as browsers read it (WHATWG URL); an IPv6 host compressed as RFC 5952 writes it; the default
 * port dropped; user info dropped (a fetch refuses it, see {@link #hadUserInfo}); the path with its
 * dot segments removed, never empty; escapes of unreserved characters decoded and other escapes in
 * upper case; characters a URL may not hold (spaces, non-ASCII, backslashes) percent-encoded in the
 * path and query; the fragment dropped (it is never sent).
 */
final class WebUrl {

    private static final String HOST_FORBIDDEN = " #%/:<>?@[\\]^|\"{}`";

    private final String scheme;
    private final String host;
    private final int port;
    private final String pathAndQuery;
    private final boolean hadUserInfo;

    private WebUrl(String scheme, String host, int port, String pathAndQuery, boolean hadUserInfo) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.pathAndQuery = pathAndQuery;
        this.hadUserInfo = hadUserInfo;
    }

    /** Parses and normalises an absolute http(s) URL; anything else is refused, saying why. */
    static WebUrl parse(String given) throws ToolException {
        String text = given.strip();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid(given, "it holds a control character");
            }
        }
        int colon = text.indexOf(':');
        String scheme = colon > 0 ? text.substring(0, colon) : "";
        if (!scheme.matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            throw new ToolException("Only http and https URLs can be fetched, not a URL without a scheme (" + given
                    + "). Give an absolute URL such as https://example.com/page.");
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ToolException("Only http and https URLs can be fetched, not " + scheme + ": (" + given + ")."
                    + (scheme.equals("file") ? " Read workspace files with read_file." : ""));
        }
        if (!text.startsWith("//", colon + 1)) {
            throw invalid(given, "expected " + scheme + "://host/...");
        }
        int start = colon + 3;
        int end = start;
        while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        String authority = text.substring(start, end);
        if (authority.indexOf('\\') >= 0) {
            throw invalid(given, "a backslash in the host part");
        }
        int at = authority.lastIndexOf('@');
        boolean userInfo = at >= 0;
        String hostPort = authority.substring(at + 1);
        String rawHost;
        String rawPort = "";
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw invalid(given, "an IPv6 address without its closing ]");
            }
            rawHost = hostPort.substring(0, close + 1);
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw invalid(given, "text after the IPv6 address");
            }
            rawPort = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int portColon = hostPort.lastIndexOf(':');
            rawHost = portColon < 0 ? hostPort : hostPort.substring(0, portColon);
            rawPort = portColon < 0 ? "" : hostPort.substring(portColon + 1);
        }
        String host = host(given, rawHost);
        int port = port(given, scheme, rawPort);

        String rest = text.substring(end);
        int hash = rest.indexOf('#');
        if (hash >= 0) {
            rest = rest.substring(0, hash);
        }
        int question = rest.indexOf('?');
        String path = question < 0 ? rest : rest.substring(0, question);
        String query = question < 0 ? "" : rest.substring(question + 1);
        path = removeDotSegments(escape(path, false));
        query = escape(query, true);
        return new WebUrl(scheme, host, port, path + (query.isEmpty() ? "" : "?" + query), userInfo);
    }

    /** A redirect's {@code Location}, absolute or relative to this URL, in the normal form. */
    WebUrl resolve(String location) throws ToolException {
        String target = location.strip();
        if (target.matches("(?s)[A-Za-z][A-Za-z0-9+.-]*:.*")) {
            return parse(target);
        }
        if (target.startsWith("//")) {
            return parse(scheme + ":" + target);
        }
        if (target.indexOf('\\') >= 0 || target.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw invalid(location, "a backslash or control character in a relative URL");
        }
        // the escaping first, so java.net.URI takes any reference a server may send (spaces, non-ASCII)
        int hash = target.indexOf('#');
        String escaped = hash >= 0 ? target.substring(0, hash) : target;
        if (escaped.isEmpty()) {
            return this; // the same document
        }
        int question = escaped.indexOf('?');
        escaped = question < 0 ? escape(escaped, false)
                : escape(escaped.substring(0, question), false) + "?" + escape(escaped.substring(question + 1), true);
        if (escaped.startsWith("?")) {
            // java.net.URI reads a query-only reference as RFC 2396 did, dropping the last path segment
            int query = pathAndQuery.indexOf('?');
            return parse(scheme + "://" + host + (port >= 0 ? ":" + port : "")
                    + (query < 0 ? pathAndQuery : pathAndQuery.substring(0, query)) + escaped);
        }
        try {
            return parse(uri().resolve(new URI(escaped)).toString());
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw invalid(location, "not a URL reference");
        }
    }

    String scheme() {
        return scheme;
    }

    /** The host in its normal form: a lower-case ASCII name, a dotted quad or a bracketed IPv6 address. */
    String host() {
        return host;
    }

    /** The host as a resolver or an address parser takes it: without the brackets of an IPv6 address. */
    String bareHost() {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    /** Whether the host is an IP address rather than a name. */
    boolean isAddress() {
        // a name never has a numeric last label: parse() reads such a host as IPv4 or refuses it
        return host.startsWith("[") || host.matches("[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+");
    }

    /** The port the connection goes to. */
    int port() {
        return port >= 0 ? port : scheme.equals("https") ? 443 : 80;
    }

    /** Whether the URL as given carried user info ({@code user:pw@host}), which the normal form drops. */
    boolean hadUserInfo() {
        return hadUserInfo;
    }

    URI uri() {
        return URI.create(toString());
    }

    @Override
    public String toString() {
        return scheme + "://" + host + (port >= 0 ? ":" + port : "") + pathAndQuery;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WebUrl url && url.toString().equals(toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    // ---- host ------------------------------------------------------------------------------------

    private static String host(String given, String raw) throws ToolException {
        if (raw.isEmpty()) {
            throw new ToolException("The URL has no host: " + given + ".");
        }
        if (raw.startsWith("[")) {
            byte[] address = IpLiterals.v6(raw.substring(1, raw.length() - 1));
            if (address == null) {
                throw invalid(given, "[" + raw.substring(1, raw.length() - 1) + "] is not an IPv6 address"
                        + (raw.contains("%") ? " (zone ids are refused)" : ""));
            }
            return "[" + IpLiterals.v6Text(address) + "]";
        }
        String decoded = percentDecode(given, raw);
        for (int i = 0; i < decoded.length(); i++) {
            char c = decoded.charAt(i);
            if (c <= 0x20 || c == 0x7f || HOST_FORBIDDEN.indexOf(c) >= 0) {
                throw invalid(given, "the host holds '" + c + "'");
            }
        }
        String ascii;
        try {
            ascii = IDN.toASCII(decoded).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            throw invalid(given, "'" + decoded + "' is not a valid host name");
        }
        if (ascii.endsWith(".")) {
            ascii = ascii.substring(0, ascii.length() - 1);
        }
        if (ascii.isEmpty()) {
            throw new ToolException("The URL has no host: " + given + ".");
        }
        String[] labels = ascii.split("\\.", -1);
        String last = labels[labels.length - 1];
        if (last.matches("[0-9]+|0[xX][0-9a-fA-F]*")) {
            byte[] v4 = IpLiterals.v4(ascii);
            if (v4 == null) {
                throw invalid(given, ascii + " ends in a number but is not an IPv4 address");
            }
            return IpLiterals.v4Text(v4);
        }
        if (ascii.length() > 253) {
            throw invalid(given, "the host name is longer than 253 characters");
        }
        for (String label : labels) {
            if (label.isEmpty() || label.length() > 63 || !label.matches("[a-z0-9_-]+")) {
                throw invalid(given, "'" + ascii + "' is not a valid host name");
            }
        }
        return ascii;
    }

    private static String percentDecode(String given, String raw) throws ToolException {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length() && hex(raw.charAt(i + 1)) >= 0 && hex(raw.charAt(i + 2)) >= 0) {
                bytes.write(hex(raw.charAt(i + 1)) * 16 + hex(raw.charAt(i + 2)));
                i += 2;
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw invalid(given, "the host's percent-escapes are not UTF-8");
        }
    }

    private static int port(String given, String scheme, String raw) throws ToolException {
        if (raw.isEmpty()) {
            return -1;
        }
        if (!raw.matches("[0-9]{1,5}")) {
            throw invalid(given, "the port '" + raw + "' is not a number from 1 to 65535");
        }
        int port = Integer.parseInt(raw);
        if (port < 1 || port > 65535) {
            throw invalid(given, "the port " + port + " is not from 1 to 65535");
        }
        return port == (scheme.equals("https") ? 443 : 80) ? -1 : port;
    }

    // ---- path and query --------------------------------------------------------------------------

    private static boolean unreserved(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    /** Characters kept as they are: unreserved, sub-delimiters, {@code :} and {@code @}, {@code /}, and {@code ?} in a query. */
    private static boolean kept(int c, boolean query) {
        return unreserved(c) || "!$&'()*+,;=:@/".indexOf(c) >= 0 || (query && c == '?');
    }

    private static int hex(char c) {
        return Character.digit(c, 16) < 0 || c > 'f' ? -1 : Character.digit(c, 16);
    }

    /** Escapes decoded where they stand for an unreserved character, upper-cased elsewhere; the rest encoded. */
    private static String escape(String raw, boolean query) {
        StringBuilder out = new StringBuilder(raw.length());
        byte[] bytes = raw.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            if (b == '%' && i + 2 < bytes.length && hex((char) bytes[i + 1]) >= 0 && hex((char) bytes[i + 2]) >= 0) {
                int value = hex((char) bytes[i + 1]) * 16 + hex((char) bytes[i + 2]);
                if (unreserved(value)) {
                    out.append((char) value);
                } else {
                    appendEscape(out, value);
                }
                i += 2;
            } else if (b < 0x80 && kept(b, query)) {
                out.append((char) b);
            } else {
                appendEscape(out, b);
            }
        }
        return out.toString();
    }

    private static void appendEscape(StringBuilder out, int b) {
        out.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
                .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
    }

    /** RFC 3986's remove_dot_segments, on an escaped path; an empty path is {@code /}. */
    static String removeDotSegments(String path) {
        if (path.isEmpty()) {
            return "/";
        }
        Deque<String> kept = new ArrayDeque<>();
        String[] segments = path.substring(path.startsWith("/") ? 1 : 0).split("/", -1);
        boolean trailingSlash = false;
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean last = i == segments.length - 1;
            if (segment.equals(".")) {
                trailingSlash = last;
            } else if (segment.equals("..")) {
                kept.pollLast();
                trailingSlash = last;
            } else {
                kept.addLast(segment);
                trailingSlash = false;
            }
        }
        StringBuilder out = new StringBuilder();
        for (String segment : kept) {
            out.append('/').append(segment);
        }
        if (trailingSlash || out.length() == 0) {
            out.append('/');
        }
        return out.toString();
    }

    private static ToolException invalid(String given, String why) {
        return new ToolException("Not a valid URL: " + given + " (" + why + "). Give an absolute http or https URL.");
    }
}
