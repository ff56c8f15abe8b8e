package dev.quiver.langchain4j;

import java.net.URI;
import java.util.Optional;
import java.util.function.Function;

/** The checks every provider makes of the server URL it is given. */
public final class BaseUrls {

    private BaseUrls() {
    }

    /**
     * The URL to use: the settings' {@code --base-url}, else the environment variable when set and
     * not blank, else the provider's default; trimmed.
     *
     * @throws IllegalArgumentException when the managed policy's {@link ModelSettings#allowedBaseUrls()}
     *     do not include it, so no request is ever sent there
     */
    public static String chosen(ModelSettings settings, Function<String, String> environment, String variable,
            String fallback) {
        String url = settings.baseUrl()
                .or(() -> Optional.ofNullable(environment.apply(variable)).filter(s -> !s.isBlank()))
                .orElse(fallback)
                .trim();
        if (!settings.allowedBaseUrls().isEmpty()
                && settings.allowedBaseUrls().stream().noneMatch(pattern -> allowedBy(pattern, url))) {
            throw new IllegalArgumentException("The managed policy does not allow the model server " + url
                    + " (allowed: " + String.join(", ", settings.allowedBaseUrls()) + ").");
        }
        return url;
    }

    private static final java.util.regex.Pattern URL_PATTERN =
            java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)", java.util.regex.Pattern.DOTALL);

    /**
     * Whether a managed policy's URL pattern admits a URL. The URL is parsed and its parts matched
     * apart: the scheme exactly, the host and port against the pattern's (where {@code *} spans only
     * host characters, so {@code https://*.corp.example/*} never admits
     * {@code https://evil.example/.corp.example/}), and the normalised path and query against the
     * rest (where {@code *} spans anything). A URL with user information or with {@code ..} left in
     * its path is never admitted.
     */
    public static boolean allowedBy(String pattern, String url) {
        java.util.regex.Matcher parts = URL_PATTERN.matcher(pattern.trim());
        URI target;
        try {
            target = new URI(url.trim()).normalize();
        } catch (java.net.URISyntaxException e) {
            return false;
        }
        if (!parts.matches() || target.getScheme() == null || target.getRawAuthority() == null
                || target.getRawUserInfo() != null || !target.getScheme().equalsIgnoreCase(parts.group(1))) {
            return false;
        }
        String rest = (target.getRawPath() == null ? "" : target.getRawPath())
                + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery());
        if (rest.equals("/..") || rest.startsWith("/../") || rest.contains("/../") || rest.endsWith("/..")) {
            return false;
        }
        return glob(parts.group(2).toLowerCase(java.util.Locale.ROOT), target.getRawAuthority().toLowerCase(java.util.Locale.ROOT),
                "[^/?#@]*") && glob(parts.group(3), rest, ".*");
    }

    private static boolean glob(String pattern, String text, String star) {
        String regex = java.util.Arrays.stream(pattern.split("\\*", -1)).map(java.util.regex.Pattern::quote)
                .collect(java.util.stream.Collectors.joining(star));
        return java.util.regex.Pattern.compile(regex, java.util.regex.Pattern.DOTALL).matcher(text).matches();
    }

    /**
     * Refuses a base URL whose path already ends in one of the endpoints the provider appends itself,
     * naming the root to use: otherwise the request goes to the doubled path (…/api/chat/api/chat) and
     * the server's 404 reads as an unknown model.
     *
     * @param uri {@code url} as {@link #check} parsed it
     * @throws IllegalArgumentException {@code Base URL must be the API's root, without the endpoint: ...}
     */
    public static void refuseEndpoint(String url, URI uri, String... endpoints) {
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        for (String endpoint : endpoints) {
            if (path.endsWith(endpoint)) {
                String root = url.substring(0, url.lastIndexOf(endpoint));
                throw new IllegalArgumentException("Base URL must be the API's root, without the endpoint: Quiver "
                        + "adds " + endpoint + " itself. Use " + root + " instead of " + url + ".");
            }
        }
    }

    /**
     * The URL parsed, when it is an http or https URL with a host (and, when {@code rootOnly}, no
     * query); otherwise an {@link IllegalArgumentException} the user reads as is.
     *
     * @param expected what the URL should look like, for the message: {@code Base URL must be <expected>; got <url>}
     */
    public static URI check(String url, boolean rootOnly, String expected) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Base URL is not a URL: " + url);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null || (rootOnly && uri.getRawQuery() != null)) {
            throw new IllegalArgumentException("Base URL must be " + expected + "; got " + url);
        }
        return uri;
    }
}
