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
                && settings.allowedBaseUrls().stream().noneMatch(pattern -> matches(pattern, url))) {
            throw new IllegalArgumentException("The managed policy does not allow the model server " + url
                    + " (allowed: " + String.join(", ", settings.allowedBaseUrls()) + ").");
        }
        return url;
    }

    /** A pattern in which {@code *} spans any characters and everything else is literal matches the whole URL. */
    static boolean matches(String pattern, String url) {
        String regex = java.util.Arrays.stream(pattern.split("\\*", -1)).map(java.util.regex.Pattern::quote)
                .collect(java.util.stream.Collectors.joining(".*"));
        return java.util.regex.Pattern.compile(regex, java.util.regex.Pattern.DOTALL).matcher(url).matches();
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
