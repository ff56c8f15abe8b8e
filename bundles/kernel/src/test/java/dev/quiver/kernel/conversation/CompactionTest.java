package dev.quiver.kernel.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CompactionTest {

    private final TokenCounter counter = new TokenCounter();
    private int ids;

    private void turn(List<ChatMessage> history, String prompt, int calls, int resultChars) {
        history.add(UserMessage.from(prompt));
        for (int i = 0; i < calls; i++) {
            ToolExecutionRequest request = ToolExecutionRequest.builder().id("call_" + ids++).name("read_file")
                    .arguments("{\"path\":\"f" + i + "\"}").build();
            history.add(AiMessage.from(request));
            history.add(ToolExecutionResultMessage.from(request, ("line " + i + " of " + prompt + "\n").repeat(resultChars / 20)));
        }
        history.add(AiMessage.from("done with " + prompt));
    }

    /** Every result follows its call and every call has its result, as the providers insist. */
    static void assertPaired(List<ChatMessage> messages) {
        Set<String> open = new HashSet<>();
        for (ChatMessage message : messages) {
            if (message instanceof ToolExecutionResultMessage result) {
                assertTrue(open.remove(result.id()), "a result without its call: " + result.id());
            } else {
                assertTrue(open.isEmpty(), "calls without results: " + open);
                if (message instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                    ai.toolExecutionRequests().forEach(r -> open.add(r.id()));
                }
            }
        }
        assertTrue(open.isEmpty(), "calls without results: " + open);
    }

    @Test
    void aHistoryThatFitsIsLeftAlone() {
        List<ChatMessage> history = new ArrayList<>();
        turn(history, "one", 2, 200);
        Compaction.Result result = Compaction.compact(history, 100_000, counter);
        assertEquals(history, result.messages());
        assertTrue(!result.changed());
    }

    @Test
    void olderToolResultsAreElidedFirstAndTheNewestStayWhole() {
        List<ChatMessage> history = new ArrayList<>();
        turn(history, "first", 6, 4000);
        turn(history, "second", 6, 4000);
        int before = counter.count(history);
        Compaction.Result result = Compaction.compact(history, before * 65 / 100, counter);
        assertTrue(result.elided() > 0);
        assertTrue(result.droppedTurns().isEmpty(), "eliding was enough");
        assertTrue(result.tokens() <= before * 65 / 100, result.tokens() + " > " + before * 65 / 100);
        assertPaired(result.messages());
        List<ToolExecutionResultMessage> results = result.messages().stream()
                .filter(m -> m instanceof ToolExecutionResultMessage).map(m -> (ToolExecutionResultMessage) m).toList();
        assertEquals(12, results.size(), "no call loses its result");
        for (ToolExecutionResultMessage kept : results.subList(results.size() - Compaction.KEEP_RESULTS, results.size())) {
            assertTrue(kept.text().startsWith("line "), "the newest results are whole");
        }
        assertTrue(results.get(0).text().startsWith("[elided:") && results.get(0).text().contains("read_file"));
    }

    @Test
    void whenElidingIsNotEnoughTheOldestTurnsGoWholeButNeverTheCurrentOne() {
        List<ChatMessage> history = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            history.add(UserMessage.from("prompt " + i + " " + "word ".repeat(400)));
            history.add(AiMessage.from("answer " + i + " " + "word ".repeat(400)));
        }
        turn(history, "current", 1, 100);
        Compaction.Result result = Compaction.compact(history, 1500, counter);
        assertTrue(result.droppedTurns().size() >= 8, result.droppedTurns().toString());
        assertTrue(result.droppedTurns().get(0).startsWith("prompt 0"));
        ChatMessage last = result.messages().get(result.messages().size() - 1);
        assertEquals("done with current", ((AiMessage) last).text());
        assertTrue(result.messages().stream().anyMatch(m -> m instanceof UserMessage u && u.singleText().equals("current")));
        assertPaired(result.messages());
    }

    @Test
    void repairDropsResultsWithoutCallsAndAnswersCallsThatLostTheirResult() {
        ToolExecutionRequest lost = ToolExecutionRequest.builder().id("c1").name("bash").arguments("{}").build();
        List<ChatMessage> broken = List.of(
                ToolExecutionResultMessage.from("orphan", "grep", "no call for me"),
                UserMessage.from("go"),
                AiMessage.from(lost),
                UserMessage.from("next"));
        List<ChatMessage> repaired = Compaction.repairPairs(broken);
        assertPaired(repaired);
        assertEquals(4, repaired.size());
        assertTrue(((ToolExecutionResultMessage) repaired.get(2)).text().contains("lost"));
    }
}
