package dev.quiver.kernel.permission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.host.Decision;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuleSetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path WORKSPACE_FILE = Path.of("/ws/.quiver/config.json");
    private static final Path USER_FILE = Path.of("/home/u/.config/quiver/config.json");

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    private static Decision decide(RuleSet rules, String tool, String text) {
        return rules.tableFor(tool).flatMap(t -> RuleSet.lastMatch(t, List.of(text))).map(Rule::decision).orElse(null);
    }

    @Test
    void theLaterRuleOfATableWinsSoDenyAllThenAllowOnePathWorks() throws Exception {
        List<String> warnings = new ArrayList<>();
        RuleSet rules = RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE,
                json("{\"write_file\":{\"*\":\"deny\",\"src/generated/*\":\"allow\"}}"))), warnings);
        assertEquals(Decision.ALLOW, decide(rules, "write_file", "src/generated/A.java"));
        assertEquals(Decision.DENY, decide(rules, "write_file", "src/A.java"));
        assertTrue(warnings.isEmpty());
    }

    @Test
    void aPlainDecisionCoversEverySubject() throws Exception {
        RuleSet rules = RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE, json("{\"web_fetch\":\"deny\"}"))), new ArrayList<>());
        assertEquals(Decision.DENY, decide(rules, "web_fetch", "https://example.com/"));
    }

    @Test
    void anUnknownDecisionIsDroppedAndReportedWithFileAndKeyNeverReadAsAllow() throws Exception {
        List<String> warnings = new ArrayList<>();
        RuleSet rules = RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE,
                json("{\"bash\":{\"*\":\"ask\",\"rm *\":\"alow\"},\"edit_file\":\"yes\",\"glob\":5}"))), warnings);
        assertEquals(Decision.ASK, decide(rules, "bash", "rm x"));
        assertEquals(3, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("permission.bash in " + WORKSPACE_FILE) && warnings.get(0).contains("\"alow\""),
                warnings.get(0));
        assertTrue(rules.tableFor("edit_file").isEmpty(), "a dropped table leaves the defaults");
    }

    @Test
    void theFirstFileThatConfiguresAToolWinsForThatToolAndTheOthersStillApply() throws Exception {
        RuleSet rules = RuleSet.parse(List.of(
                Map.entry(WORKSPACE_FILE, json("{\"bash\":{\"npm *\":\"allow\"}}")),
                Map.entry(USER_FILE, json("{\"bash\":{\"*\":\"allow\"},\"write_file\":\"allow\"}"))), new ArrayList<>());
        assertEquals(Decision.ALLOW, decide(rules, "bash", "npm test"));
        assertEquals(null, decide(rules, "bash", "make"), "the user's bash table is replaced, not merged");
        assertEquals(Decision.ALLOW, decide(rules, "write_file", "a.txt"));
        assertEquals(USER_FILE, rules.tableFor("write_file").get().get(0).file());
    }

    @Test
    void anExactToolKeyBeatsGlobsAndTheLastMatchingGlobWins() throws Exception {
        RuleSet rules = RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE,
                json("{\"mcp__*\":\"deny\",\"mcp__github__*\":\"allow\",\"mcp__github__delete_repo\":\"ask\"}"))),
                new ArrayList<>());
        assertEquals(Decision.DENY, decide(rules, "mcp__jira__create", "*"));
        assertEquals(Decision.ALLOW, decide(rules, "mcp__github__list", "*"));
        assertEquals(Decision.ASK, decide(rules, "mcp__github__delete_repo", "*"));
    }

    @Test
    void aCommandPatternEndingInSpaceStarAlsoMatchesTheBareCommand() throws Exception {
        RuleSet rules = RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE, json("{\"bash\":{\"git *\":\"allow\"}}"))),
                new ArrayList<>());
        assertEquals(Decision.ALLOW, decide(rules, "bash", "git"));
        assertEquals(Decision.ALLOW, decide(rules, "bash", "git status"));
        assertEquals(null, decide(rules, "bash", "gitk"));
    }

    @Test
    void absurdlyLongPatternsAreDroppedWithAWarning() throws Exception {
        List<String> warnings = new ArrayList<>();
        String pattern = "a".repeat(Wildcard.MAX_PATTERN_CHARS + 1);
        RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE, json("{\"bash\":{\"" + pattern + "\":\"allow\"}}"))), warnings);
        assertEquals(1, warnings.size());
    }
}
