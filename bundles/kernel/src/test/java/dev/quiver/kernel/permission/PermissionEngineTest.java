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
    void anAlwaysGrantNeverCoversAFileWithSecretsByItsName() {
        Grants granted = new Grants();
        // "always" on a recursive delete of conf/, whose subjects are every file in it
        granted.grant("delete_file", List.of("conf/*", "*"));
        Verdict plain = engine.decide("delete_file", Access.WRITE, false, List.of(Subject.path("conf/app.yml")),
                List.of(), granted).verdict();
        assertEquals(Decision.ALLOW, plain.decision(), plain.reason());
        for (String secret : List.of("conf/.env", ".env", "conf/id_rsa")) {
            Verdict verdict = engine.decide("delete_file", Access.WRITE, false, List.of(Subject.path(secret)),
                    List.of(), granted).verdict();
            assertEquals(Decision.ASK, verdict.decision(), secret + ": " + verdict.reason());
        }
        Verdict folder = engine.decide("delete_file", Access.WRITE, false,
                List.of(Subject.path("conf"), Subject.path("conf/app.yml"), Subject.path("conf/.env")), List.of(),
                granted).verdict();
        assertEquals(Decision.ASK, folder.decision(), "the folder's call asks again for the secret in it");
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
    void writingOutsideTheWorkspaceThroughARedirectAsks() throws Exception {
        Files.createDirectories(temp.resolve("build"));
        Files.createSymbolicLink(temp.resolve("build/link"), Path.of("/tmp"));
        assertEquals(Decision.ALLOW, bash("git log > log.txt", new Grants()).verdict().decision());
        for (String command : List.of("git log >& ~/.bashrc", "git log &>> /tmp/x", "git log | tee ~/.profile",
                "cd .. && git log > x.txt", "git log > build/link/x")) {
            assertEquals(Decision.ASK, bash(command, new Grants()).verdict().decision(), command);
        }
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

    private Decided bashUnder(String rules, String command) throws Exception {
        RuleSet set = RuleSet.parse(List.of(Map.entry(temp.resolve("rules.json"), new ObjectMapper().readTree(rules))),
                new ArrayList<>());
        return new PermissionEngine(set, workspace, HOME).decide("bash", Access.EXECUTE, false,
                List.of(Subject.command(command)), List.of(ShellParser.parse(command)), new Grants());
    }

    @Test
    void rulesMatchTheNormalisedCommandSoNoSpellingSlipsPastADeny() throws Exception {
        String denyPush = "{\"bash\": {\"*\": \"allow\", \"git push *\": \"deny\"}}";
        for (String command : List.of("git push origin main", "git -C . push", "/usr/bin/git push", "git --no-pager push -u",
                "git -c color.ui=never push", "sudo git push", "/usr/bin/../bin/git push")) {
            assertEquals(Decision.DENY, bashUnder(denyPush, command).verdict().decision(), command);
        }
        assertEquals(Decision.ALLOW, bashUnder(denyPush, "git -C . status").verdict().decision());
        // a program found elsewhere is no system program: a deny rule still catches it by its file name
        assertEquals(Decision.DENY, bashUnder(denyPush, "./tools/git push").verdict().decision());
        for (String command : List.of("/bin/rm notes.txt", "\\rm notes.txt", "sudo /bin/rm x")) {
            assertEquals(Decision.DENY, bash(command, new Grants()).verdict().decision(), command);
        }
    }

    @Test
    void anAllowRuleSeesOnlyTheNormalisedCommand() throws Exception {
        String allowGitPush = "{\"bash\": {\"*\": \"ask\", \"git push origin *\": \"allow\"}}";
        assertEquals(Decision.ALLOW, bashUnder(allowGitPush, "git -C . push origin main").verdict().decision());
        assertEquals(Decision.ALLOW, bashUnder(allowGitPush, "/usr/bin/git push origin main").verdict().decision());
        // an allow rule written for how a command looks does not allow another program of that name
        assertEquals(Decision.ASK, bashUnder(allowGitPush, "./git push origin main").verdict().decision());
        String longOption = "{\"bash\": {\"*\": \"ask\", \"rm --recursive *\": \"deny\"}}";
        assertEquals(Decision.DENY, bashUnder(longOption, "rm --rec build/x").verdict().decision(),
                "an abbreviation is matched by its full name");
    }

    @Test
    void privilegedCommandsAlwaysAskAndADenyRuleForTheWrapperMatches() throws Exception {
        Decided sudoGit = bash("sudo git status", new Grants());
        assertEquals(Decision.ASK, sudoGit.verdict().decision(), "git * allows git status, never sudo git status");
        assertTrue(sudoGit.unjudgeable(), "neither a rule nor --yolo may let it run");
        assertTrue(sudoGit.grant().isEmpty(), "nothing can be granted for it");
        assertTrue(sudoGit.verdict().reason().contains("sudo"), sudoGit.verdict().reason());
        for (String command : List.of("doas git status", "su -c 'git status'", "sudo -u deploy git log")) {
            assertEquals(Decision.ASK, bash(command, new Grants()).verdict().decision(), command);
        }
        String denySudo = "{\"bash\": {\"*\": \"allow\", \"sudo *\": \"deny\"}}";
        assertEquals(Decision.DENY, bashUnder(denySudo, "sudo git status").verdict().decision());
        assertEquals(Decision.DENY, bashUnder(denySudo, "sudo -E apt-get update").verdict().decision());
        assertEquals(Decision.ALLOW, bashUnder(denySudo, "git status").verdict().decision());
        assertEquals(Decision.DENY, bash("sudo rm x", new Grants()).verdict().decision(), "the inner command's deny holds");
    }

    @Test
    void codeAnInterpreterIsGivenIsAllowedOnlyByARuleThatNamesTheInterpreter() throws Exception {
        String rmtree = "python3 -c \"import shutil; shutil.rmtree('src')\" --version";
        assertEquals(Decision.ASK, bashUnder("{\"bash\": {\"*\": \"ask\", \"* --version\": \"allow\"}}", rmtree)
                .verdict().decision(), "a pattern written for --version never allows inline code");
        assertEquals(Decision.ALLOW, bashUnder("{\"bash\": {\"*\": \"ask\", \"* --version\": \"allow\"}}",
                "node --version").verdict().decision());
        assertEquals(Decision.ASK, bashUnder("{\"bash\": {\"*\": \"ask\", \"*shutil*\": \"allow\"}}", rmtree)
                .verdict().decision());
        assertEquals(Decision.ALLOW, bashUnder("{\"bash\": {\"*\": \"ask\", \"python3 -c *\": \"allow\"}}", rmtree)
                .verdict().decision(), "a rule that names the interpreter is the user's choice");
        assertEquals(Decision.ALLOW, bashUnder("{\"bash\": \"allow\"}", rmtree).verdict().decision(),
                "so is allowing the whole tool");
        assertEquals(Decision.ASK, bashUnder("{\"bash\": {\"*\": \"ask\", \"* -e *\": \"allow\"}}",
                "node -e \"require('fs').rmSync('src', {recursive: true})\"").verdict().decision());
    }

    @Test
    void whatDependsOnRunTimeValuesOrGitSettingsIsNeverAllowedByARule() throws Exception {
        for (String command : List.of("git -c alias.nuke='reset --hard' status", "git -c core.pager=./evil log",
                "git clean $FLAGS", "git reset $MODE", "git zz-not-a-command")) {
            Decided decided = bash(command, new Grants());
            assertEquals(Decision.ASK, decided.verdict().decision(), command);
            assertTrue(decided.unjudgeable(), command);
        }
        assertEquals(Decision.ALLOW, bash("git -c color.ui=always -c user.name=x log", new Grants()).verdict().decision());
    }

    @Test
    void anAliasFromTheRepositorysConfigIsReadAsItsExpansion() throws Exception {
        Path git = temp.resolve(".git");
        Files.createDirectories(git.resolve("objects"));
        Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(git.resolve("config"), "[alias]\n\tst = status --short\n\tpub = push origin main ; comment\n");
        Workspace repository = new WorkspaceFactoryComponent().open(temp);
        RuleSet rules = RuleSet.parse(List.of(Map.entry(temp.resolve("r.json"), new ObjectMapper().readTree(
                "{\"bash\": {\"*\": \"ask\", \"git status *\": \"allow\", \"git push *\": \"deny\"}}"))), warnings);
        PermissionEngine engine = new PermissionEngine(rules, repository, HOME);
        assertEquals(Decision.ALLOW, engine.decide("bash", Access.EXECUTE, false, List.of(Subject.command("git st")),
                List.of(ShellParser.parse("git st")), new Grants()).verdict().decision());
        assertEquals(Decision.DENY, engine.decide("bash", Access.EXECUTE, false, List.of(Subject.command("git pub")),
                List.of(ShellParser.parse("git pub")), new Grants()).verdict().decision());
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
