package dev.quiver.api;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A web search engine behind the {@code web_search} tool, registered as an OSGi service.
 *
 * <p>Register it with the service property {@value #NAME} (a short lower-case name such as
 * {@code brave}); {@code web_search} uses the backend the configuration names
 * ({@code "net": {"search": "brave"}}), else the one with the highest {@code service.ranking}, the earliest
 * registered among equals (the built-in {@code duckduckgo} has ranking 0, the default). The tool, not the backend, checks every
 * result's URL (http or https, public address) and frames the results as untrusted text, so a
 * backend returns what its engine answered. Keys come from the backend's own environment or
 * configuration, never from the model.
 *
 * <pre>{@code
 * @Component(property = SearchBackend.NAME + "=brave")
 * public class BraveSearch implements SearchBackend { ... }
 * }</pre>
 *
 * <p>{@code web_search} may call a backend from several threads at once.
 *
 * @since 1.6
 */
@ConsumerType
public interface SearchBackend {

    /** Service property: the backend's name, as {@code "net": {"search": NAME}} chooses it. */
    String NAME = "quiver.search.name";

    /** A short name for people, such as {@code DuckDuckGo}: it heads the results. */
    String title();

    /**
     * Searches the web.
     *
     * @param query what the model asked for, never blank
     * @param limit how many results are wanted, 1 to 10; more are cut, fewer are fine
     * @param context the call's configuration and cancellation; a backend stops when it is cancelled
     * @return the results, best first; empty when the engine found nothing
     * @throws ToolException with a message for the model when the search failed: the engine's answer
     *     (an HTTP status, a refusal) and what to do next
     */
    List<SearchResult> search(String query, int limit, ToolContext context) throws ToolException;
}
