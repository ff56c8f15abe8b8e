package dev.quiver.api;

import java.util.Objects;

/**
 * One result of a {@link SearchBackend}: text from the web, untrusted.
 *
 * @param title the page's title as the engine gives it
 * @param url the page's absolute URL (an engine's click-tracking redirect already unwrapped)
 * @param snippet the engine's excerpt of the page; empty when it has none
 * @since 1.6
 */
public record SearchResult(String title, String url, String snippet) {

    public SearchResult {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(snippet, "snippet");
    }
}
