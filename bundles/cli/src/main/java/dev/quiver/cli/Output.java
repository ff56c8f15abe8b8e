package dev.quiver.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Verdict;
import java.io.PrintStream;

/** JSON output of the machine-readable commands: one compact object per line. */
final class Output {

    /** Reads a string as long as the longest batch line, so the line limit is the only one a script meets. */
    static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(
            StreamReadConstraints.builder().maxStringLength(BatchLine.MAX_LINE).build()).build()).build();
    /** How a stored time is shown to the user: local, to the minute. */
    static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(java.time.ZoneId.systemDefault());

    private Output() {
    }

    static void line(PrintStream out, JsonNode node) {
        try {
            out.println(MAPPER.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        out.flush();
    }

    /** {@code {"tool","decision","by","reason"}} as {@code quiver check} prints it. */
    static ObjectNode verdict(String tool, Verdict verdict) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("tool", tool);
        node.put("decision", verdict.decision().id());
        node.put("by", verdict.by());
        node.put("reason", verdict.reason());
        return node;
    }

    /** {@code {"tool","status","output","elapsed_ms"}} as {@code quiver call --batch} prints it. */
    static ObjectNode outcome(String tool, CallOutcome outcome) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("tool", tool);
        node.put("status", outcome.status().id());
        node.put("output", outcome.output());
        node.put("elapsed_ms", outcome.elapsedMillis());
        return node;
    }
}
