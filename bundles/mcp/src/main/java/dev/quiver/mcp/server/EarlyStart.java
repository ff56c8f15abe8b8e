package dev.quiver.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.mcp.Json;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * What the launcher did for {@code quiver mcp} over stdio before the framework had started
 * (the distribution's {@code McpEarly}): it may have answered {@code initialize} and
 * {@code tools/list} from the catalogue recorded at the last start, and then owns standard input.
 *
 * @param in standard input as the live server must read it, when the launcher owns it
 * @param answeredInitialize the id (as JSON) of the {@code initialize} the launcher answered: the
 *     live server opens its session from that request but must not answer it again
 * @param servedTools the {@code tools/list} result the launcher served, as JSON
 * @param recorder records the live catalogue for the next start: {@code interactive},
 *     {@code protocols}, {@code initialize} (its result without {@code protocolVersion}), {@code tools}
 */
record EarlyStart(Optional<InputStream> in, Optional<String> answeredInitialize, Optional<String> servedTools,
        Optional<Consumer<Map<String, String>>> recorder) {

    /** No launcher: an embedded server, HTTP, tests. */
    static final EarlyStart NONE = new EarlyStart(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    private static final String FILTER = "(&(objectClass=java.util.function.Supplier)(quiver.mcp.early=true))";

    /** Takes over from the launcher, if it offers a hand-over; called once, when the stdio server starts. */
    @SuppressWarnings("unchecked")
    static EarlyStart take(BundleContext context) {
        if (context == null) {
            return NONE;
        }
        try {
            ServiceReference<?>[] references = context.getServiceReferences((String) null, FILTER);
            if (references == null || references.length == 0) {
                return NONE;
            }
            Object service = context.getService(references[0]);
            if (!(service instanceof Supplier<?> supplier) || !(supplier.get() instanceof Map<?, ?> state)) {
                return NONE;
            }
            return new EarlyStart(Optional.ofNullable(state.get("in")).map(InputStream.class::cast),
                    Optional.ofNullable(state.get("initialize")).map(String.class::cast),
                    Optional.ofNullable(state.get("tools")).map(String.class::cast),
                    Optional.ofNullable(state.get("record")).map(r -> (Consumer<Map<String, String>>) r));
        } catch (InvalidSyntaxException | ClassCastException e) {
            return NONE;
        }
    }

    /** The names of the tools the launcher listed; empty when it listed none. */
    Set<String> servedNames() {
        Set<String> names = new HashSet<>();
        servedTools.ifPresent(json -> {
            try {
                for (JsonNode tool : Json.MAPPER.readTree(json).path("tools")) {
                    names.add(tool.path("name").asText());
                }
            } catch (Exception e) {
                // the launcher checked it; nothing to wait for otherwise
            }
        });
        return names;
    }

    static boolean anyFromMcpServers(Collection<String> names) {
        return names.stream().anyMatch(name -> name.startsWith("mcp__"));
    }
}
