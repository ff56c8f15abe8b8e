package dev.quiver.kernel.permission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Access;
import dev.quiver.api.Subject;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import dev.quiver.bash.ParsedCommand;
import dev.quiver.bash.ShellParser;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PermissionEngineTest {

    static final String HOME = "/home/tester";
    static final String RULES = """
            {"read_file": {"*": "allow", "private/*": "deny", "unlocked/.env": "allow"},
             "write_file": {"*": "ask", "src/generated/*": "allow", "dist/*": "deny", "/var/scratch/*": "allow",
                            "~/notes/*": "allow", "$HOME/scratch/*": "allow"},
             "edit_file": {"*": "deny", "src/*": "ask", "src/main/*": "allow"},
             "move_file": {"*": "ask", "archive/*": "deny"},
             "bash": {"*": "ask", "git *": "allow", "npm test*": "allow", "rm *": "deny"}}""";

    @TempDir
    Path temp;

    private Workspace workspace;
    private PermissionEngine engine;
    private List<String> warnings;

    @BeforeEach
    void open() throws Exception {
        workspace = new WorkspaceFactoryComponent().open(temp);
        warnings = new ArrayList<>();
        RuleSet rules = RuleSet.parse(List.of(Map.entry(temp.resolve(".quiver/config.json"),
                new ObjectMapper().readTree(RULES))), warnings);
        engine = new PermissionEngine(rules, workspace, HOME);
    }

    private Verdict paths(String tool, Access access, String... paths) {
        List<Subject> subjects = new ArrayList<>();
        for (String path : paths) {
            subjects.add(Subject.path(path));
        }
        return engine.decide(tool, access, false, subjects, List.of(), new Grants()).verdict();
    }

    private Decided bash(String command, Grants grants) {
        ParsedCommand parsed = ShellParser.parse(command);
        return engine.decide("bash", Access.EXECUTE, false, List.of(Subject.command(command)), List.of(parsed), grants);
    }

    @Test
    void thePathCorpusGetsItsExpectedDecisions() throws Exception {
        List<String> failures = new ArrayList<>();
        int cases = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                getClass().getResourceAsStream("/path-corpus.tsv"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] columns = line.split("\t");
                Decision expected = Decision.valueOf(columns[0].toUpperCase());
                Access access = Access.parse(columns[2]).orElseThrow();
                String[] paths = columns[3].equals("-") ? new String[0] : columns[3].split("\\|");
                for (int i = 0; i < paths.length; i++) {
                    paths[i] = paths[i].replace("W/", workspace.root() + "/").replaceFirst("^~", HOME);
                }
                Verdict verdict = paths(columns[1], access, paths);
                cases++;
                if (verdict.decision() != expected) {
                    failures.add(line + "  => " + verdict);
                }
            }
        }
        assertTrue(cases >= 60, "the corpus has " + cases + " cases");
        assertEquals(List.of(), failures);
        assertEquals(List.of(), warnings);
    }

    @Test
    void aSecretNamesWhatDecidedAndTellsTheModelWhatToDo() {
        Verdict verdict = paths("read_file", Access.READ, "config/.env");
        assertEquals("secret", verdict.by());
        assertTrue(verdict.reason().startsWith("config/.env holds secrets"), verdict.reason());
    }

    @Test
    void aRuleVerdictNamesThePatternAndTheFile() {
        Verdict verdict = paths("write_file", Access.WRITE, "dist/x.js");
        assertEquals("rule", verdict.by());
        assertEquals("rule \"dist/*\" for write_file (deny, from " + temp.resolve(".quiver/config.json") + ")",
                verdict.reason());
    }

    @Test
    void anAlwaysGrantForANameBesidePathsGrantsThatNameNotEverything() {
        Decided amend = engine.decide("git_commit", Access.WRITE, false,
                List.of(Subject.name("--amend"), Subject.path("README.md")), List.of(), new Grants());
        assertEquals(Decision.ASK, amend.verdict().decision());
        assertEquals(List.of("--amend", "*"), amend.grant(), "the amend is granted as itself, the top-level file as *");
        Grants files = new Grants();
        files.grant("git_commit", List.of("*")); // "always" on a commit of a top-level file
        Decided later = engine.decide("git_commit", Access.WRITE, false,
                List.of(Subject.name("--amend"), Subject.path("b.txt")), List.of(), files);
        assertEquals(Decision.ASK, later.verdict().decision(), "a file grant never approves an amend");
        files.grant("git_commit", List.of("--amend"));
        assertEquals(Decision.ALLOW, engine.decide("git_commit", Access.WRITE, false,
                List.of(Subject.name("--amend"), Subject.path("b.txt")), List.of(), files).verdict().decision());
    }

    @Test
    void aCompoundCommandGetsTheStrictestDecisionOfItsParts() {
        assertEquals(Decision.ALLOW, bash("git status && git log -1", new Grants()).verdict().decision());
        Decided mixed = bash("git status && make build", new Grants());
        assertEquals(Decision.ASK, mixed.verdict().decision());
        assertTrue(mixed.verdict().reason().startsWith("make build: "), mixed.verdict().reason());
        assertEquals(Decision.DENY, bash("git status; rm notes.txt", new Grants()).verdict().decision());
        assertEquals(Decision.ASK, bash("git log | less", new Grants()).verdict().decision());
        assertEquals(Decision.ASK, bash("echo $(whoami)", new Grants()).verdict().decision());
    }

    @Test
    void aComputedCommandWordOrAnUnparseableCommandIsNeverAllowed() {
        Decided computed = bash("$(echo git) status", new Grants());
        assertEquals(Decision.ASK, computed.verdict().decision());
        assertTrue(computed.grant().isEmpty(), "nothing can be granted for it");
        assertEquals(Decision.ASK, bash("git status \"unterminated", new Grants()).verdict().decision());
    }

    @Test
    void readingASecretThroughTheShellIsDenied() {
        for (String command : List.of("cat .env", "source .env", "grep KEY .env", "git diff < .env", ". config/.env",
                "docker run --env-file=.env img", "npm test && cat id_rsa")) {
            Verdict verdict = bash(command, new Grants()).verdict();
            assertEquals(Decision.DENY, verdict.decision(), command);
            assertEquals("secret", verdict.by(), command);
        }
        assertEquals(Decision.ALLOW, bash("git show HEAD:.env.example", new Grants()).verdict().decision());
    }

    @Test
    void writingOutsideTheWorkspaceThroughARedirectAsks() {
        assertEquals(Decision.ALLOW, bash("git log > log.txt", new Grants()).verdict().decision());
        assertEquals(Decision.ALLOW, bash("git log 2>/dev/null", new Grants()).verdict().decision());
        Verdict outside = bash("git log > /etc/motd", new Grants()).verdict();
        assertEquals(Decision.ASK, outside.decision());
        assertTrue(outside.reason().contains("outside the workspace"), outside.reason());
        assertEquals(Decision.ASK, bash("git log >> ../x.txt", new Grants()).verdict().decision());
    }

    @Test
    void alwaysGrantsAPatternPerSimpleCommandAndNeverOutranksADeny() {
        Grants grants = new Grants();
        Decided asked = bash("make build --verbose", grants);
        assertEquals(List.of("make build *"), asked.grant());
        grants.grant("bash", asked.grant());
        assertEquals(Decision.ALLOW, bash("make build", grants).verdict().decision());
        assertEquals(Decision.ASK, bash("make install", grants).verdict().decision());

        grants.grant("bash", List.of("rm *"));
        assertEquals(Decision.DENY, bash("rm x", grants).verdict().decision(), "a grant never outranks a deny rule");

        Decided compound = bash("cargo build && rm y", new Grants());
        assertEquals(Decision.DENY, compound.verdict().decision());
        assertTrue(compound.grant().isEmpty());
        assertEquals(List.of("cargo build *", "ls *"), bash("cargo build && ls -la", new Grants()).grant());
    }

    @Test
    void grantPatternsForPathsAreTheirFolder() {
        assertEquals("src/a/*", PermissionEngine.pathPattern("src/a/B.java"));
        assertEquals("*", PermissionEngine.pathPattern("README.md"));
        assertEquals("git status *", PermissionEngine.commandPattern("git status --porcelain"));
        assertEquals("ls *", PermissionEngine.commandPattern("ls -la"));
    }

    @Test
    void mcpToolsAskByDefaultWhateverTheirAccess() {
        Verdict verdict = paths("mcp__github__list_issues", Access.READ);
        assertEquals(Decision.ASK, verdict.decision());
        assertTrue(verdict.reason().contains("MCP"), verdict.reason());
    }

    @Test
    void hugeAndInvalidCommandsNeverResolveToAllow() throws Exception {
        RuleSet allowAll = RuleSet.parse(List.of(Map.entry(temp.resolve("c.json"),
                new ObjectMapper().readTree("{\"bash\":\"allow\"}"))), new ArrayList<>());
        PermissionEngine permissive = new PermissionEngine(allowAll, workspace, HOME);
        String huge = "echo " + "a".repeat(1_100_000);
        String invalid = "echo " + new String(new byte[] {(byte) 0xC3, (byte) 0x28, 0}, StandardCharsets.ISO_8859_1);
        for (String command : List.of(huge, invalid)) {
            Decided decided = permissive.decide("bash", Access.EXECUTE, false, List.of(Subject.command(command)),
                    List.of(ShellParser.parse(command)), new Grants());
            assertEquals(Decision.ASK, decided.verdict().decision());
        }
        Files.writeString(temp.resolve("x"), "");
    }
}
