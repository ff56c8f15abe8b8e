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
     */
    public static String chosen(ModelSettings settings, Function<String, String> environment, String variable,
            String fallback) {
        return settings.baseUrl()
                .or(() -> Optional.ofNullable(environment.apply(variable)).filter(s -> !s.isBlank()))
                .orElse(fallback)
                .trim();
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
