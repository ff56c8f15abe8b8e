package dev.quiver.tools.net;

import dev.quiver.api.SearchBackend;
import dev.quiver.api.SearchResult;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.osgi.service.component.annotations.Component;

/**
 * The default search backend, which needs no key: DuckDuckGo's HTML page
 * ({@code https://html.duckduckgo.com/html/?q=...}), read with jsoup. Each {@code .result} holds a
 * title link {@code a.result__a}, whose {@code href} is usually DuckDuckGo's redirect
 * {@code //duckduckgo.com/l/?uddg=<target>} and is unwrapped here, and a {@code .result__snippet};
 * ads ({@code .result--ad}, links to {@code duckduckgo.com/y.js}) are skipped.
 *
 * <p>The request goes through {@link Fetcher} under the default rules (https, public addresses only),
 * whatever the user's {@code net} config says. The endpoint is fixed; tests give another through the
 * package-private constructor, so no configuration can send searches elsewhere.
 */
@Component(service = SearchBackend.class, property = SearchBackend.NAME + "=duckduckgo")
public class DuckDuckGoBackend implements SearchBackend {

    static final String ENDPOINT = "https://html.duckduckgo.com/html/";
    private static final int TIMEOUT_MS = 20_000;
    private static final int BODY_BYTES = 2 * 1024 * 1024;
    // DuckDuckGo's HTML page answers browsers; a bare client name is refused more often
    private static final String USER_AGENT = "Mozilla/5.0 (compatible; Quiver-web_search/0.1)";

    private final String endpoint;
    private final Fetcher fetcher;
    private final NetConfig rules;

    public DuckDuckGoBackend() {
        this(ENDPOINT, new Fetcher(), NetConfig.DEFAULT);
    }

    /** A test's loopback endpoint, reached under rules that allow it. */
    DuckDuckGoBackend(String endpoint, Fetcher fetcher, NetConfig rules) {
        this.endpoint = endpoint;
        this.fetcher = fetcher;
        this.rules = rules;
    }

    @Override
    public String title() {
        return "DuckDuckGo";
    }

    @Override
    public List<SearchResult> search(String query, int limit, ToolContext context) throws ToolException {
        WebUrl url = WebUrl.parse(endpoint + "?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        Fetcher.Fetched fetched = fetcher.fetch(url, rules, new Fetcher.Request(deadline, TIMEOUT_MS,
                context::isCancelled, "text/html", USER_AGENT, BODY_BYTES, 16 * 1024, Fetcher.Follows.SAME_HOST));
        int status = fetched.response().status;
        if (status != 200) {
            throw new ToolException("DuckDuckGo answered HTTP " + status + " to the search" + (status == 403
                    || status == 429 || status == 202 ? ": it refuses automated searches from this address for now."
                            : ".") + " Retry later, or install and choose another backend (\"net\": {\"search\": ...}).");
        }
        Document page;
        try {
            page = Jsoup.parse(new ByteArrayInputStream(fetched.response().body), null, fetched.url().toString());
        } catch (IOException e) {
            throw new ToolException("Could not read DuckDuckGo's answer: " + e.getMessage(), e);
        }
        List<SearchResult> results = results(page, limit);
        if (results.isEmpty() && page.selectFirst(".no-results, .result--no-result") == null) {
            throw new ToolException("DuckDuckGo's answer held no results and no \"No results\" notice: it may be "
                    + "asking for a challenge, as it does for automated searches at times, or its page changed. "
                    + "Retry later, or install and choose another backend (\"net\": {\"search\": ...}).");
        }
        return results;
    }

    /** The page's organic results, ads left out, at most {@code limit}. */
    static List<SearchResult> results(Document page, int limit) {
        List<SearchResult> results = new ArrayList<>();
        for (Element result : page.select(".result")) {
            if (results.size() == limit) {
                break;
            }
            if (result.hasClass("result--ad") || result.hasClass("result--ad--small")) {
                continue;
            }
            Element link = result.selectFirst("a.result__a");
            if (link == null) {
                continue;
            }
            String target = target(link.attr("href"));
            if (target == null) {
                continue;
            }
            Element snippet = result.selectFirst(".result__snippet");
            results.add(new SearchResult(link.text().strip(), target, snippet == null ? "" : snippet.text().strip()));
        }
        return results;
    }

    /**
     * Where a result link leads: DuckDuckGo's {@code /l/?uddg=TARGET} redirect unwrapped, a link of
     * its own ad redirect ({@code /y.js}) {@code null}, anything else as it is.
     */
    static String target(String href) {
        String link = href.strip();
        if (link.startsWith("//")) {
            link = "https:" + link;
        } else if (link.startsWith("/")) {
            link = "https://duckduckgo.com" + link;
        }
        String lower = link.toLowerCase(Locale.ROOT);
        for (String prefix : List.of("https://duckduckgo.com/", "https://html.duckduckgo.com/",
                "http://duckduckgo.com/")) {
            if (!lower.startsWith(prefix)) {
                continue;
            }
            String rest = link.substring(prefix.length());
            if (rest.startsWith("y.js")) {
                return null;
            }
            if (rest.startsWith("l/?") || rest.startsWith("l?")) {
                for (String parameter : rest.substring(rest.indexOf('?') + 1).split("&")) {
                    if (parameter.startsWith("uddg=")) {
                        try {
                            return URLDecoder.decode(parameter.substring(5), StandardCharsets.UTF_8);
                        } catch (IllegalArgumentException e) {
                            return null;
                        }
                    }
                }
                return null;
            }
        }
        return link.isEmpty() ? null : link;
    }
}
