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
        List<Rule> matched = rules.matches(tool, List.of(text));
        return matched.isEmpty() ? null : matched.get(0).decision();
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
        assertTrue(!rules.configures("edit_file"), "a dropped table leaves the defaults");
    }

    @Test
    void theFirstFileThatConfiguresAToolWinsForThatToolAndTheOthersStillApply() throws Exception {
        RuleSet rules = RuleSet.parse(List.of(
                Map.entry(WORKSPACE_FILE, json("{\"bash\":{\"npm *\":\"allow\"}}")),
                Map.entry(USER_FILE, json("{\"bash\":{\"*\":\"allow\"},\"write_file\":\"allow\"}"))), new ArrayList<>());
        assertEquals(Decision.ALLOW, decide(rules, "bash", "npm test"));
        assertEquals(null, decide(rules, "bash", "make"), "the user's bash table is replaced, not merged");
        assertEquals(Decision.ALLOW, decide(rules, "write_file", "a.txt"));
        assertEquals(USER_FILE, rules.matches("write_file", List.of("a.txt")).get(0).file());
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

    private static RuleSet layers(String managed, String user, String workspace, boolean workspaceTrusted)
            throws Exception {
        List<RuleSet.Source> sources = new ArrayList<>();
        if (managed != null) {
            sources.add(new RuleSet.Source(Path.of("/etc/quiver/managed.json"), 0, false, false, json(managed)));
        }
        if (user != null) {
            sources.add(new RuleSet.Source(USER_FILE, 1, false, false, json(user)));
        }
        if (workspace != null) {
            sources.add(new RuleSet.Source(WORKSPACE_FILE, 2, true, !workspaceTrusted, json(workspace)));
        }
        return RuleSet.layered(sources, new ArrayList<>());
    }

    @Test
    void everyLayerCountsAndTheStrictestDecisionWinsWhateverItsLayer() throws Exception {
        RuleSet rules = layers(null, "{\"bash\":{\"*\":\"allow\",\"curl *\":\"deny\",\"git push *\":\"deny\"}}",
                "{\"bash\":\"allow\",\"write_file\":{\"src/*\":\"ask\"}}", true);
        assertEquals(Decision.DENY, decide(rules, "bash", "curl http://x"), "a trusted workspace's allow cannot beat a user deny");
        assertEquals(Decision.DENY, decide(rules, "bash", "git push origin"));
        assertEquals(Decision.ALLOW, decide(rules, "bash", "ls"));
        assertEquals(Decision.ASK, decide(rules, "write_file", "src/a"), "a workspace may tighten");
    }

    @Test
    void theManagedPolicyCannotBeLoosenedByTheUserOrTheWorkspace() throws Exception {
        RuleSet rules = layers("{\"bash\":{\"npm publish*\":\"deny\",\"git *\":\"ask\"}}",
                "{\"bash\":{\"*\":\"allow\"}}", "{\"bash\":\"allow\"}", true);
        assertEquals(Decision.DENY, decide(rules, "bash", "npm publish"));
        assertEquals(Decision.ASK, decide(rules, "bash", "git status"), "a managed ask outranks the user's allow");
        assertEquals(Decision.ALLOW, decide(rules, "bash", "make"));
    }

    @Test
    void anUntrustedWorkspaceKeepsOnlyItsDenyAndAskEntries() throws Exception {
        RuleSet rules = layers(null, null, "{\"bash\":{\"*\":\"allow\",\"make *\":\"deny\"},\"web_fetch\":\"allow\","
                + "\"write_file\":\"ask\"}", false);
        assertEquals(null, decide(rules, "bash", "curl x"), "its allow is gone, so the default applies");
        assertEquals(Decision.DENY, decide(rules, "bash", "make all"));
        assertTrue(!rules.configures("web_fetch"));
        assertEquals(Decision.ASK, decide(rules, "write_file", "a"));
    }

    @Test
    void onlyAnExactAllowOutsideTheWorkspaceUnlocksASecretAndADenyAnywhereKeepsItLocked() throws Exception {
        assertTrue(layers(null, "{\"read_file\":{\"config/.env\":\"allow\"}}", null, true)
                .allowsExactly("read_file", "config/.env"));
        assertTrue(!layers(null, "{\"read_file\":{\"config/*\":\"allow\"}}", null, true)
                .allowsExactly("read_file", "config/.env"), "a wildcard never unlocks");
        assertTrue(!layers(null, null, "{\"read_file\":{\"config/.env\":\"allow\"}}", true)
                .allowsExactly("read_file", "config/.env"), "not even a trusted workspace unlocks a secret");
        assertTrue(!layers("{\"read_file\":{\"*.env\":\"deny\"}}", "{\"read_file\":{\"config/.env\":\"allow\"}}", null,
                true).allowsExactly("read_file", "config/.env"), "a managed deny keeps it locked");
    }

    @Test
    void absurdlyLongPatternsAreDroppedWithAWarning() throws Exception {
        List<String> warnings = new ArrayList<>();
        String pattern = "a".repeat(Wildcard.MAX_PATTERN_CHARS + 1);
        RuleSet.parse(List.of(Map.entry(WORKSPACE_FILE, json("{\"bash\":{\"" + pattern + "\":\"allow\"}}"))), warnings);
        assertEquals(1, warnings.size());
    }

    private static RuleSet withRunAllow(String managed, String user, String workspace, String runAllow) throws Exception {
        List<RuleSet.Source> sources = new ArrayList<>();
        if (managed != null) {
            sources.add(new RuleSet.Source(Path.of("/etc/quiver/managed.json"), 0, false, false, json(managed),
                    RuleSet.Authority.MANAGED));
        }
        if (user != null) {
            sources.add(new RuleSet.Source(USER_FILE, 1000, false, false, json(user)));
        }
        if (workspace != null) {
            sources.add(new RuleSet.Source(WORKSPACE_FILE, 2000, true, true, json(workspace)));
        }
        sources.add(new RuleSet.Source(Path.of("--allowedTools"), 4000, false, false, json(runAllow),
                RuleSet.Authority.RUN_ALLOW));
        return RuleSet.layered(sources, new ArrayList<>());
    }

    @Test
    void theCommandLinesAllowAnswersTheUsersAndTheWorkspacesAsksButNoDenyAndNoManagedAsk() throws Exception {
        RuleSet rules = withRunAllow("{\"bash\":{\"git push *\":\"ask\",\"npm publish*\":\"deny\"}}",
                "{\"bash\":{\"make *\":\"ask\",\"curl *\":\"deny\"}}", "{\"bash\":{\"git diff *\":\"ask\"}}",
                "{\"bash\":{\"*\":\"allow\"}}");
        assertEquals(Decision.ALLOW, decide(rules, "bash", "make test"), "the user's ask is answered");
        assertEquals(Decision.ALLOW, decide(rules, "bash", "git diff HEAD"), "the workspace's ask is answered");
        assertEquals(Decision.ALLOW, decide(rules, "bash", "ls"), "the tool's default is replaced where it matches");
        assertEquals(Decision.DENY, decide(rules, "bash", "curl http://x"), "the user's deny holds");
        assertEquals(Decision.DENY, decide(rules, "bash", "npm publish"), "the managed deny holds");
        assertEquals(Decision.ASK, decide(rules, "bash", "git push origin"), "the managed ask holds");
        assertEquals(Path.of("--allowedTools"), rules.matches("bash", List.of("make test")).get(0).file());
    }

    @Test
    void theCommandLinesExactAllowNeverUnlocksASecret() throws Exception {
        RuleSet rules = withRunAllow(null, null, null, "{\"read_file\":{\".env\":\"allow\"}}");
        assertTrue(!rules.allowsExactly("read_file", ".env"));
        RuleSet user = layers(null, "{\"read_file\":{\".env\":\"allow\"}}", null, true);
        assertTrue(user.allowsExactly("read_file", ".env"), "the user's own file can");
    }
}
