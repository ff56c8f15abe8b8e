package dev.quiver.kernel;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.api.Access;
import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Verdict;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.Grants;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.bash.CommandGuard;
import dev.quiver.bash.ParsedCommand;
import dev.quiver.bash.ShellParser;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * Not a test: the latency of whole permission decisions, as {@code quiver check} and every call of
 * the model get them — {@link CallChain#check}: the arguments read and checked against the schema,
 * the subjects named, each command parsed, the guard, the secrets, the rule table, the strictest of
 * the parts. In one warm JVM; each case is timed call by call and reported as median, p99 and mean
 * microseconds. Run with {@code bench/decisions.sh [samples]} (or {@code java -cp <test classpath>
 * dev.quiver.kernel.DecisionBench [samples]}).
 */
public final class DecisionBench {

    /** Ten simple commands that all pass the guard, so every part goes through secrets and rules too. */
    static final String COMPOUND = "git status --short && ls -la | grep -v node_modules; "
            + "echo \"built $(date +%s)\" > build/out.log 2>&1 || rm -f target/stale.txt; "
            + "for f in src/*.java; do wc -l \"$f\"; done; mvn -q -o test && npm run build | tee build.log";

    /**
     * Ten plain commands (no expansion, substitution or compound command, no statement that mixes
     * pipes with && or ||), the shape most command lines have: read without tree-sitter.
     */
    static final String PLAIN_COMPOUND = "git status --short && git diff --stat; ls -la src; grep -rn TODO src/main "
            + "> build/todo.txt 2>&1; mvn -q -o test || echo 'tests failed'; npm run build | tee build.log; "
            + "wc -l README.md";

    /** The same shape with a destructive part: the guard refuses it. */
    static final String COMPOUND_REFUSED = COMPOUND.replace("rm -f target/stale.txt", "rm -rf src");

    /** A small, realistic rule table: a default for bash, a few allowed tools, deny rules for paths. */
    static final String RULES = """
            {"bash": {"*": "ask", "git *": "allow", "ls *": "allow", "grep *": "allow", "echo *": "allow",
                      "date *": "allow", "wc *": "allow", "mvn *": "allow", "npm run *": "allow", "npm test*": "allow",
                      "tee *": "allow", "rm *": "ask", "rm -f target/*": "allow", "git push*": "ask"},
             "read_file": {"*": "allow", "private/*": "deny"},
             "write_file": {"*": "ask", "src/generated/*": "allow", "dist/*": "deny"},
             "move_file": {"*": "ask", "archive/*": "deny"}}""";

    private DecisionBench() {
    }

    /** One timed case: a label and the tool call it decides. */
    record Case(String label, String tool, String arguments) {
    }

    /** A bash tool that names its command; never run. */
    static final class Bash implements Tool {
        @Override
        public ToolSpec spec() {
            return new ToolSpec("bash", "Run a command.",
                    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},\"timeout\":{\"type\":\"integer\"}},"
                            + "\"required\":[\"command\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.command(arguments.string("command")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            throw new AssertionError("check never runs the tool");
        }
    }

    /** A file tool with one path, or two ({@code path} and {@code to}, as a move has); never run. */
    static final class Paths implements Tool {
        private final String name;

        Paths(String name) {
            this.name = name;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Use paths.", "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                    + "\"to\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"path\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            Optional<String> to = arguments.optionalString("to");
            return to.isPresent() ? List.of(Subject.path(arguments.string("path")), Subject.path(to.get()))
                    : List.of(Subject.path(arguments.string("path")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            throw new AssertionError("check never runs the tool");
        }
    }

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        Path root = Files.createTempDirectory("quiver-decision-bench");
        Files.writeString(root.resolve(".gitignore"), "target/\nbuild/\nnode_modules/\n");
        for (String folder : List.of("target", "build", "node_modules", "src/generated", "private", "archive")) {
            Files.createDirectories(root.resolve(folder));
        }
        Workspace workspace = new WorkspaceFactoryComponent().open(root);
        List<String> warnings = new ArrayList<>();
        RuleSet rules = RuleSet.parse(List.of(Map.entry(root.resolve(".quiver/config.json"),
                new ObjectMapper().readTree(RULES))), warnings);
        if (!warnings.isEmpty()) {
            throw new IllegalStateException("bad bench rules: " + warnings);
        }
        PermissionEngine engine = new PermissionEngine(rules, workspace, "/home/bench");
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try (Framework framework = new Framework()) {
            framework.register(new Bash(), "bash", "execute");
            for (String tool : List.of("read_file", "write_file", "move_file")) {
                framework.register(new Paths(tool), tool, tool.equals("read_file") ? "read" : "write");
            }
            CallChain chain = new CallChain(workspace, engine, List::of, workers, new CallChain.Modes(false, true, false),
                    Duration.ofSeconds(5), new AuditLog(root, "bench"), key -> Optional.empty(), tool -> false);
            List<RegisteredTool> snapshot = framework.registry.snapshot();
            ObjectMapper json = new ObjectMapper();
            List<Case> cases = new ArrayList<>();
            cases.add(bash(json, "bash: 10-part compound, every part allowed by a rule", COMPOUND));
            cases.add(bash(json, "bash: 10-part compound with `rm -rf src` (guard)", COMPOUND_REFUSED));
            cases.add(bash(json, "bash: 10-part compound of plain commands (no tree-sitter)", PLAIN_COMPOUND));
            cases.add(bash(json, "bash: `git status`", "git status"));
            cases.add(bash(json, "bash: `npm test -- --watch=false`", "npm test -- --watch=false"));
            cases.add(bash(json, "bash: `make build` (no rule: the table's `*`)", "make build"));
            cases.add(bash(json, "bash: `cat .env` (secret)", "cat .env"));
            cases.add(bash(json, "bash: `rm -rf src` (guard)", "rm -rf src"));
            cases.add(new Case("read_file `src/Main.java`", "read_file", "{\"path\":\"src/Main.java\"}"));
            cases.add(new Case("read_file `config/.env` (secret)", "read_file", "{\"path\":\"config/.env\"}"));
            cases.add(new Case("write_file `src/generated/B.java`", "write_file",
                    "{\"path\":\"src/generated/B.java\",\"content\":\"class B {}\"}"));
            cases.add(new Case("move_file `a.txt` → `archive/a.txt`", "move_file",
                    "{\"path\":\"a.txt\",\"to\":\"archive/a.txt\"}"));

            int parts = ShellParser.parse(COMPOUND).commands().size();
            System.out.printf("permission decisions, CallChain.check, %d samples per case after warm-up; the compound "
                    + "has %d simple commands (%d bytes); JVM %s %s%n", samples, parts, COMPOUND.length(),
                    System.getProperty("java.vm.version"), String.join(" ",
                            java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()));
            long sink = 0;
            // warm-up: every case, interleaved, until the JIT has seen them all
            for (int round = 0; round < 5; round++) {
                for (Case c : cases) {
                    for (int i = 0; i < samples / 5; i++) {
                        sink += chain.check(snapshot, c.tool(), c.arguments()).reason().length();
                    }
                }
            }
            System.out.println();
            System.out.println("| case | decision (by) | median µs | p99 µs | mean µs |");
            System.out.println("|---|---|---|---|---|");
            for (Case c : cases) {
                Verdict verdict = chain.check(snapshot, c.tool(), c.arguments());
                long[] times = time(samples, () -> chain.check(snapshot, c.tool(), c.arguments()).reason().length());
                row(c.label(), verdict.decision().id() + " (" + verdict.by() + ")", times);
            }

            // where the compound's time goes: the parts of the chain on their own
            ParsedCommand parsed = ShellParser.parse(COMPOUND);
            List<Subject> subjects = List.of(Subject.command(COMPOUND));
            Grants grants = new Grants();
            System.out.println();
            System.out.println("| the 10-part compound, stage by stage | | median µs | p99 µs | mean µs |");
            System.out.println("|---|---|---|---|---|");
            row("parse (tree-sitter, wrappers, substitutions)", "", time(samples, () -> ShellParser.parse(COMPOUND)
                    .commands().size()));
            row("guard, on the parsed command", "", time(samples, () -> CommandGuard.refusal(parsed, engine.shellWorkspace()).isPresent()
                    ? 1 : 0));
            row("engine: secrets, rules, redirects, strictest", "", time(samples, () -> engine.decide("bash",
                    Access.EXECUTE, false, subjects, List.of(parsed), grants).verdict().reason().length()));
            System.out.printf("%n(checksum %d)%n", sink);
        } finally {
            workers.shutdownNow();
            try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
                for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    private static Case bash(ObjectMapper json, String label, String command) throws Exception {
        return new Case(label, "bash", json.writeValueAsString(Map.of("command", command)));
    }

    private static long[] time(int samples, LongSupplier call) {
        long[] times = new long[samples];
        long sink = 0;
        for (int i = 0; i < samples; i++) {
            long start = System.nanoTime();
            sink += call.getAsLong();
            times[i] = System.nanoTime() - start;
        }
        if (sink == 42) {
            System.out.print("");
        }
        return times;
    }

    private static void row(String label, String decision, long[] times) {
        long[] sorted = times.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0);
        System.out.printf("| %s | %s | %.1f | %.1f | %.1f |%n", label, decision, sorted[sorted.length / 2] / 1e3,
                sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] / 1e3, mean / 1e3);
    }
}
