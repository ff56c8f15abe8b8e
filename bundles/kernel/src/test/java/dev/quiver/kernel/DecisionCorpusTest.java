package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decision corpus ({@code decision-corpus.tsv}) through the whole decision chain — parser,
 * guard, secrets, rules, the strictest of the parts — with the most permissive configuration a user
 * can write ({@code "bash": "allow"}). Every line names its exact expected decision (allow, ask or
 * deny) and its class: every {@code destructive} line must be denied by the guard and every
 * {@code secret} line by the secret check; an {@code unjudgeable} line (what it does depends on run-time
 * values) must ask, and still ask under --yolo; an {@code everyday} line that is denied is a false
 * refusal, and the false-refusal rate is printed. {@code CommandGuardTest} reads the same file:
 * the guard alone must refuse exactly the {@code destructive} lines.
 */
class DecisionCorpusTest {

    /** The rule set every corpus line is decided under. */
    static final String CONFIG = "{\"bash\":\"allow\"}";
    static final Set<String> CLASSES = Set.of("destructive", "secret", "unjudgeable", "everyday");

    @TempDir
    Path temp;

    /** A bash tool that is never run: check decides without calling it. */
    static final class Bash implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("bash", "Run a command.",
                    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.command(arguments.string("command")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            throw new AssertionError("check must not run the tool");
        }
    }

    /** One corpus line: its line number, expected decision, class and command. */
    record Line(int number, Decision expected, String kind, String command) {
    }

    static List<Line> corpus() throws Exception {
        List<Line> lines = new ArrayList<>();
        List<String> malformed = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                DecisionCorpusTest.class.getResourceAsStream("/decision-corpus.tsv"), StandardCharsets.UTF_8))) {
            String text;
            int number = 0;
            while ((text = in.readLine()) != null) {
                number++;
                if (text.isBlank() || text.startsWith("#")) {
                    continue;
                }
                String[] columns = text.split("\t", 3);
                Decision expected = columns.length == 3 ? decision(columns[0]) : null;
                if (expected == null || !CLASSES.contains(columns[1])) {
                    malformed.add(number + ": " + text);
                    continue;
                }
                lines.add(new Line(number, expected, columns[1], columns[2].replace("⏎", "\n")));
            }
        }
        if (!malformed.isEmpty()) {
            fail("decision-corpus.tsv lines are not <allow|ask|deny><TAB><" + String.join("|", CLASSES)
                    + "><TAB><command>:\n  " + String.join("\n  ", malformed));
        }
        return lines;
    }

    private static Decision decision(String id) {
        for (Decision decision : Decision.values()) {
            if (decision.id().equals(id)) {
                return decision;
            }
        }
        return null;
    }

    @Test
    void everyLineGetsItsExactDecisionWithBashAllowed() throws Exception {
        // the corpus treats these folders as git-ignored build output, beside work that is not
        Files.writeString(temp.resolve(".gitignore"), "target/\nbuild/\nnode_modules/\ndist/\n");
        for (String folder : List.of("target", "build", "node_modules", "dist", "src", "docs", "conf")) {
            Files.createDirectories(temp.resolve(folder));
        }
        // secrets by their names, for the globs and braces that reach them
        for (String file : List.of("README.md", "notes.txt", "target-notes.md", "src/Main.java", ".env", "id_rsa",
                "conf/prod.env", "conf/app.yml")) {
            Files.writeString(temp.resolve(file), "x");
        }
        Workspace workspace = new WorkspaceFactoryComponent().open(temp);
        RuleSet allowAll = RuleSet.parse(List.of(Map.entry(temp.resolve("config.json"),
                new ObjectMapper().readTree(CONFIG))), new ArrayList<>());
        List<Line> corpus = corpus();
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try (Framework framework = new Framework()) {
            framework.register(new Bash(), "bash", "execute");
            PermissionEngine engine = new PermissionEngine(allowAll, workspace, "/home/tester");
            CallChain chain = new CallChain(workspace, engine, List::of, workers, new CallChain.Modes(false, false, false),
                    Duration.ofSeconds(5), new AuditLog(temp, "corpus"), key -> Optional.empty(), tool -> false);
            CallChain yolo = new CallChain(workspace, engine, List::of, workers, new CallChain.Modes(true, false, false),
                    Duration.ofSeconds(5), new AuditLog(temp, "corpus"), key -> Optional.empty(), tool -> false);
            List<String> mismatches = new ArrayList<>();
            List<String> mislabelled = new ArrayList<>();
            List<String> falseRefusals = new ArrayList<>();
            Map<Decision, Integer> everyday = new EnumMap<>(Decision.class);
            int refusedLines = 0;
            for (Line line : corpus) {
                Verdict verdict = chain.check(framework.registry.snapshot(), "bash",
                        new ObjectMapper().writeValueAsString(Map.of("command", line.command())));
                String shown = line.command().replace("\n", "⏎");
                String by = line.kind().equals("destructive") ? CallChain.BY_GUARD
                        : line.kind().equals("secret") ? PermissionEngine.BY_SECRET : null;
                if (verdict.decision() != line.expected() || by != null && !by.equals(verdict.by())) {
                    mismatches.add("line " + line.number() + " [" + line.kind() + "] expected " + line.expected().id()
                            + (by == null ? "" : " by " + by) + ", got " + verdict.decision().id() + " by " + verdict.by() + ": " + shown + "\n      ("
                            + verdict.reason() + ")");
                }
                if (line.kind().equals("unjudgeable")) {
                    Verdict underYolo = yolo.check(framework.registry.snapshot(), "bash",
                            new ObjectMapper().writeValueAsString(Map.of("command", line.command())));
                    if (line.expected() != Decision.ASK || underYolo.decision() != Decision.ASK) {
                        mismatches.add("line " + line.number() + " [unjudgeable] must ask, with --yolo too; got "
                                + underYolo.decision().id() + " under --yolo: " + shown);
                    }
                } else if (line.kind().equals("everyday")) {
                    everyday.merge(verdict.decision(), 1, Integer::sum);
                    if (verdict.decision() == Decision.DENY) {
                        falseRefusals.add(shown + " => " + verdict.reason());
                    }
                } else {
                    refusedLines++;
                    if (line.expected() != Decision.DENY) {
                        mislabelled.add("line " + line.number() + " [" + line.kind() + "] must expect deny: " + shown);
                    }
                }
            }
            long unjudgeableLines = corpus.stream().filter(l -> l.kind().equals("unjudgeable")).count();
            int everydayLines = (int) (corpus.size() - refusedLines - unjudgeableLines);
            System.out.printf("decision corpus (%s): %d commands; %d everyday: %d allowed, %d asked, %d falsely refused "
                    + "(false-refusal rate %.1f%%); %d destructive or secret, all expected deny; %d unjudgeable, all "
                    + "expected ask%n", CONFIG, corpus.size(), everydayLines, everyday.getOrDefault(Decision.ALLOW, 0),
                    everyday.getOrDefault(Decision.ASK, 0), falseRefusals.size(),
                    100.0 * falseRefusals.size() / Math.max(1, everydayLines), refusedLines, unjudgeableLines);
            falseRefusals.forEach(refusal -> System.out.println("  false refusal: " + refusal));
            assertTrue(corpus.size() >= 200 && everydayLines >= 100 && refusedLines >= 100,
                    "corpus size " + corpus.size() + " (" + everydayLines + " everyday, " + refusedLines + " refused)");
            if (!mislabelled.isEmpty() || !mismatches.isEmpty()) {
                fail(mismatches.size() + " of " + corpus.size() + " corpus lines did not get their expected decision under "
                        + CONFIG + ":\n  " + String.join("\n  ", mismatches)
                        + (mislabelled.isEmpty() ? "" : "\nmislabelled:\n  " + String.join("\n  ", mislabelled)));
            }
        } finally {
            workers.shutdownNow();
        }
    }
}
