package dev.quiver.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import dev.quiver.mcp.Json;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The checks in front of the SDK, and how an elicitation answer becomes an approval. */
class ProtocolPiecesTest {

    private static JsonNode error(String text) throws Exception {
        JsonRpcErrors.Checked checked = JsonRpcErrors.check(text);
        assertNull(checked.message(), text);
        return Json.MAPPER.readTree(checked.error());
    }

    @Test
    void badMessagesGetJsonRpcErrorsWithTheirIdWhenItCanBeRead() throws Exception {
        assertEquals(-32700, error("{oops").path("error").path("code").asInt());
        assertTrue(error("{oops").get("id").isNull());
        assertEquals(-32600, error("[]").path("error").path("code").asInt());
        assertEquals(-32600, error("\"text\"").path("error").path("code").asInt());
        JsonNode version = error("{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}");
        assertEquals("a", version.path("id").asText());
        assertEquals(-32600, error("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}").path("error").path("code").asInt());
        assertEquals(-32600, error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}").path("error").path("code").asInt());
        assertEquals(-32602, error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}").path("error").path("code")
                .asInt());
        JsonNode trailing = error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}garbage");
        assertEquals(-32700, trailing.path("error").path("code").asInt(), "anything after the message: " + trailing);
        assertEquals(-32700, error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}").path("error").path("code")
                .asInt());
        assertNotNull(JsonRpcErrors.check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} \t").message(),
                "whitespace after the message is fine");
        assertNotNull(JsonRpcErrors.check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").message());
        assertTrue(JsonRpcErrors.check("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").message()
                instanceof McpSchema.JSONRPCNotification);
        assertTrue(JsonRpcErrors.check("{\"jsonrpc\":\"2.0\",\"id\":\"q-1\",\"result\":{}}").message()
                instanceof McpSchema.JSONRPCResponse);
    }

    @Test
    void anOversizedMessageIsAnsweredWithTheIdFromItsFirstBytes() throws Exception {
        byte[] head = "{\"jsonrpc\":\"2.0\",\"id\":\"big-1\",\"method\":\"tools/call\",\"params\":{\"x\":\"xxxx"
                .getBytes(StandardCharsets.UTF_8);
        JsonNode error = Json.MAPPER.readTree(JsonRpcErrors.tooLarge(head, head.length));
        assertEquals("big-1", error.path("id").asText());
        assertTrue(error.path("error").path("message").asText().contains("larger than 4 MiB"));
        JsonNode anonymous = Json.MAPPER.readTree(JsonRpcErrors.tooLarge(new byte[] {'['}, 1));
        assertTrue(anonymous.get("id").isNull());
    }

    @Test
    void onlyAnAcceptedOnceOrAlwaysRunsTheCall() {
        assertEquals(Approval.Choice.ONCE, ElicitingFrontEnd.decide(accept(Map.of("decision", "once"))).choice());
        assertEquals(Approval.Choice.ALWAYS, ElicitingFrontEnd.decide(accept(Map.of("decision", "always"))).choice());
        Approval deny = ElicitingFrontEnd.decide(accept(Map.of("decision", "deny", "instead", " use git mv ")));
        assertEquals(Approval.Choice.DENY, deny.choice());
        assertEquals("use git mv", deny.instead());
        assertEquals(Approval.Choice.DENY, ElicitingFrontEnd.decide(accept(Map.of("decision", "yes please"))).choice());
        assertEquals(Approval.Choice.DENY, ElicitingFrontEnd.decide(new McpSchema.ElicitResult(
                McpSchema.ElicitResult.Action.DECLINE, Map.of("decision", "once"))).choice());
        assertEquals(Approval.Choice.DENY, ElicitingFrontEnd.decide(new McpSchema.ElicitResult(
                McpSchema.ElicitResult.Action.CANCEL, null)).choice());
        assertEquals(Approval.Choice.DENY, ElicitingFrontEnd.decide(null).choice());
    }

    @Test
    void thePromptShowsTheSubjectTheReasonAndWhatAlwaysWouldGrant() {
        ApprovalRequest request = new ApprovalRequest("bash", "git push origin main",
                new Verdict(Decision.ASK, "default", "bash is an execute tool; those ask by default."),
                Optional.of("git push *"));
        String message = ElicitingFrontEnd.message(request);
        assertTrue(message.contains("git push origin main") && message.contains("ask by default")
                && message.contains("git push *"), message);
        Map<String, Object> schema = ElicitingFrontEnd.schema(request);
        @SuppressWarnings("unchecked")
        Map<String, Object> decision = (Map<String, Object>) ((Map<String, Object>) schema.get("properties")).get("decision");
        assertEquals(List.of("once", "always", "deny"), decision.get("enum"));
        Map<String, Object> noGrant = ElicitingFrontEnd.schema(new ApprovalRequest("bash", "a && b",
                request.verdict(), Optional.empty()));
        @SuppressWarnings("unchecked")
        Map<String, Object> choices = (Map<String, Object>) ((Map<String, Object>) noGrant.get("properties")).get("decision");
        assertEquals(List.of("once", "deny"), choices.get("enum"), "nothing to grant: no always");
    }

    /**
     * The attack: a command whose escape sequences or direction overrides make the client's dialog (a terminal
     * client's too) show other words than the ones that run. The subject is shown escaped, as the diff is.
     */
    @Test
    void theSubjectsControlCharactersAndDirectionOverridesAreShownEscaped() {
        String message = ElicitingFrontEnd.message(new ApprovalRequest("bash", "echo ok\u001b[2K\r\u202E~ fr- mr",
                new Verdict(Decision.ASK, "default", "bash asks"), Optional.of("echo ok\u001b[2K *")));
        assertTrue(message.contains(":\n\necho ok\\x1B[2K\\x0D\\u202e~ fr- mr\n"), message);
        assertTrue(message.contains("\"always\" allows echo ok\\x1B[2K *"), message);
        assertFalse(message.contains("\u001b") || message.contains("\r") || message.contains("\u202E"), message);
    }

    @Test
    void aWriteCallsPromptCarriesItsDiffCutPastItsLimit() {
        Verdict ask = new Verdict(Decision.ASK, "default", "edit_file is a write tool; those ask by default.");
        String diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+beta\n";
        String message = ElicitingFrontEnd.message(new ApprovalRequest("edit_file", "a.txt", ask, Optional.of("a.txt"),
                Optional.of(diff)));
        assertTrue(message.endsWith("What it changes (unified diff):\n" + diff), message);
        String huge = "+x\n".repeat(20_000);
        String cut = ElicitingFrontEnd.message(new ApprovalRequest("write_file", "b.txt", ask, Optional.empty(),
                Optional.of(huge)));
        assertTrue(cut.endsWith("... [the diff is cut at " + ElicitingFrontEnd.MAX_DIFF_CHARS + " characters]"), cut);
        assertTrue(cut.length() < ElicitingFrontEnd.MAX_DIFF_CHARS + 500, "sent " + cut.length());
        String escaped = ElicitingFrontEnd.message(new ApprovalRequest("edit_file", "a.txt", ask, Optional.empty(),
                Optional.of("+x\u001b[2J\r\n")));
        assertTrue(escaped.endsWith("+x\\x1B[2J\\x0D\n"), escaped);
        assertFalse(ElicitingFrontEnd.message(new ApprovalRequest("bash", "ls", ask, Optional.empty()))
                .contains("What it changes"));
    }

    private static McpSchema.ElicitResult accept(Map<String, Object> content) {
        return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, content);
    }
}
