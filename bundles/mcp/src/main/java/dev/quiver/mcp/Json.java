package dev.quiver.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import java.util.Map;

/**
 * The bundle's one JSON mapper, handed to the SDK explicitly (its own lookup goes through
 * {@code ServiceLoader}, which finds nothing in OSGi), and the SDK's schema validator.
 */
public final class Json {

    /** Jackson, lenient about fields a newer protocol revision adds. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /** The SDK's view of {@link #MAPPER}. */
    public static final McpJsonMapper MCP = new JacksonMcpJsonMapper(MAPPER);

    /**
     * Accepts everything. Tool arguments are checked by the kernel against the tool's schema before
     * any tool runs; the SDK would otherwise only check structured results, which Quiver passes on
     * as text.
     */
    public static final JsonSchemaValidator LENIENT = new JsonSchemaValidator() {
        @Override
        public ValidationResponse validate(Map<String, Object> schema, Object content) {
            return ValidationResponse.asValid(null);
        }
    };

    private Json() {
    }

    /** Compact JSON of a value the mapper can write. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage(), e);
        }
    }
}
