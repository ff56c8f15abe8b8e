package dev.quiver.distribution;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tool catalogue {@code quiver mcp} recorded at its last start: the {@code initialize} and
 * {@code tools/list} answers, so that the next start can give them before the framework has started
 * ({@link McpEarly}). A {@link StartRecord} of its own kind ({@code mcp-tools}): served only for exactly
 * the inputs it was recorded with, and only when both answers are well formed JSON.
 */
final class McpCatalogue {

    private static final String FORMAT = "quiver mcp catalogue 1";
    private static final List<String> FIELDS = List.of("interactive", "protocols", "initialize", "tools");

    /** A record that matched this start's inputs. */
    record Record(boolean interactive, List<String> protocols, String initialize, String tools) {
    }

    private final StartRecord record;

    private McpCatalogue(StartRecord record) {
        this.record = record;
    }

    /**
     * The catalogue for this start, its inputs digested now.
     *
     * @return empty when there is no state folder or the workspace is not a folder
     */
    static Optional<McpCatalogue> of(StartRecord.Inputs source) throws IOException {
        return StartRecord.of("mcp-tools", FORMAT, source).map(McpCatalogue::new);
    }

    /** The recorded catalogue when it is this user's, well formed and recorded with exactly these inputs. */
    Optional<Record> read() {
        return record.read(FIELDS).flatMap(McpCatalogue::parse);
    }

    private static Optional<Record> parse(List<String> fields) {
        try {
            String interactive = fields.get(0);
            List<String> protocols = List.of(fields.get(1).split(" "));
            String initialize = fields.get(2);
            String tools = fields.get(3);
            if (!interactive.equals("true") && !interactive.equals("false")
                    || protocols.stream().anyMatch(p -> !p.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}"))
                    || !(MiniJson.parse(initialize) instanceof Map<?, ?> init) || init.containsKey("protocolVersion")
                    || !(MiniJson.parse(tools) instanceof Map<?, ?> list) || !(list.get("tools") instanceof List<?> entries)) {
                return Optional.empty();
            }
            for (Object entry : entries) {
                if (!(entry instanceof Map<?, ?> tool) || !(tool.get("name") instanceof String)) {
                    return Optional.empty();
                }
            }
            return Optional.of(new Record(Boolean.parseBoolean(interactive), protocols, initialize, tools));
        } catch (RuntimeException e) {
            return Optional.empty(); // garbled: start the ordinary way
        }
    }

    /**
     * Records the catalogue the live server answered with, if the inputs are still those of this start
     * and it differs from the record in place.
     */
    void write(boolean interactive, List<String> protocols, String initialize, String tools) {
        try {
            if (!(MiniJson.parse(initialize) instanceof Map<?, ?>) || !(MiniJson.parse(tools) instanceof Map<?, ?>)) {
                return;
            }
        } catch (RuntimeException e) {
            return;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("interactive", String.valueOf(interactive));
        fields.put("protocols", String.join(" ", protocols));
        fields.put("initialize", initialize);
        fields.put("tools", tools);
        record.write(fields);
    }
}
