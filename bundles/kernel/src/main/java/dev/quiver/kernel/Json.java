package dev.quiver.kernel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The kernel's one JSON mapper and the few JSON chores it does. */
final class Json {

    static final ObjectMapper MAPPER = JsonMapper.builder().build();
    /**
     * Config files: JSON with {@code //} and {@code /* *\/} comments and trailing commas, as opencode's
     * JSONC and VS Code-style settings are written; a comment must not make a whole file ignored.
     */
    static final ObjectMapper CONFIG = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_TRAILING_COMMA).build();

    private Json() {
    }

    /** The JSON text compacted, or empty when it is not valid JSON. */
    static Optional<String> compact(String json) {
        try {
            return Optional.of(MAPPER.writeValueAsString(MAPPER.readTree(json)));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Parses JSON text that is known to be valid (it was compacted before). */
    static JsonNode tree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static int utf8Length(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * The model's argument text as a map: blank means no arguments.
     *
     * @throws IllegalArgumentException with a message for the model when it is not a JSON object
     */
    static Map<String, Object> arguments(String tool, String json) {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Arguments for " + tool + " are not valid JSON ("
                    + e.getOriginalMessage() + "). Send one JSON object.");
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("Arguments for " + tool + " must be a JSON object, got "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ".");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = MAPPER.convertValue(node, LinkedHashMap.class);
        return map;
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
