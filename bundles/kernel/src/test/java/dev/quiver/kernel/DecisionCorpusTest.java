package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell corpus through the whole decision chain — parser, guard, secrets, rules — with the most
 * permissive configuration a user can write ({@code "bash": "allow"}): every destructive line must
 * still be denied, and no everyday line may be.
 */
class DecisionCorpusTest {

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

    @Test
    void everyRefusedLineIsDeniedAndNoEverydayLineIsEvenWithBashAllowed() throws Exception {
        // the corpus treats these folders as git-ignored build output
        Files.writeString(temp.resolve(".gitignore"), "target/\nbuild/\nnode_modules/\ndist/\n");
        for (String folder : List.of("target", "build", "node_modules", "dist")) {
            Files.createDirectories(temp.resolve(folder));
        }
        Workspace workspace = new WorkspaceFactoryComponent().open(temp);
        RuleSet allowAll = RuleSet.parse(List.of(Map.entry(temp.resolve("config.json"),
                new ObjectMapper().readTree("{\"bash\":\"allow\"}"))), new ArrayList<>());
        try (Framework framework = new Framework()) {
            framework.register(new Bash(), "bash", "execute");
            CallChain chain = new CallChain(workspace, new PermissionEngine(allowAll, workspace, "/home/tester"), List::of,
                    Executors.newSingleThreadExecutor(), new CallChain.Modes(false, false, false), Duration.ofSeconds(5),
                    new AuditLog(temp, "corpus"), key -> Optional.empty(), tool -> false);
            int pass = 0;
            int refuse = 0;
            List<String> falseRefusals = new ArrayList<>();
            List<String> misses = new ArrayList<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(
                    getClass().getResourceAsStream("/shell-corpus.tsv"), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.isBlank() || line.startsWith("#")) {
                        continue;
                    }
                    int tab = line.indexOf('\t');
                    String expected = line.substring(0, tab);
                    String command = line.substring(tab + 1).replace("⏎", "\n");
                    Verdict verdict = chain.check(framework.registry.snapshot(), "bash",
                            new ObjectMapper().writeValueAsString(Map.of("command", command)));
                    if (expected.equals("refuse")) {
                        refuse++;
                        if (verdict.decision() != Decision.DENY) {
                            misses.add(command + " => " + verdict);
                        }
                    } else {
                        pass++;
                        if (verdict.decision() == Decision.DENY) {
                            falseRefusals.add(command + " => " + verdict);
                        }
                    }
                }
            }
            System.out.printf("decision corpus: %d everyday commands, %d falsely refused (%.1f%%); %d destructive, %d not "
                    + "denied%n", pass, falseRefusals.size(), 100.0 * falseRefusals.size() / pass, refuse, misses.size());
            assertTrue(pass >= 100 && refuse + pass >= 200, "corpus size " + pass + "/" + refuse);
            assertEquals(List.of(), misses);
            assertEquals(List.of(), falseRefusals);
        }
    }
}
