package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Guard;
import dev.quiver.api.Workspace;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.kernel.conversation.ArgumentLimit;
import dev.quiver.kernel.permission.AuditLog;
import dev.quiver.kernel.permission.PermissionEngine;
import dev.quiver.kernel.permission.RuleSet;
import dev.quiver.api.Tool;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.CallOutcome.Status;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.Verdict;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.ServiceRegistration;

class CallChainTest {

    @TempDir
    Path workspace;

    private Framework framework;
    private ExecutorService workers;
    private final List<Guard> guards = new ArrayList<>();
    private final TestTools.Echo echo = new TestTools.Echo();

    @BeforeEach
    void start() throws Exception {
        framework = new Framework();
        workers = Executors.newCachedThreadPool();
        framework.register(echo, "echo", "read");
    }

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        framework.close();
    }

    private CallChain chain(boolean yolo, boolean interactive, Duration timeout) throws Exception {
        return chain(new CallChain.Modes(yolo, interactive, false), timeout, RuleSet.empty());
    }

    private CallChain chain(CallChain.Modes modes, Duration timeout, RuleSet rules) throws Exception {
        Workspace opened = new WorkspaceFactoryComponent().open(workspace);
        return new CallChain(opened, new PermissionEngine(rules, opened, "/home/nobody"), () -> guards,
                workers, modes, timeout, new AuditLog(opened.root().resolve("state"), "test"), key -> Optional.empty(), tool -> false);
    }

    private static RuleSet rules(String json) throws Exception {
        return RuleSet.parse(List.of(java.util.Map.entry(Path.of("/cfg/config.json"),
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(json))), new ArrayList<>());
    }

    private CallOutcome run(CallChain chain, String tool, String arguments) {
        return chain.run(framework.registry.snapshot(), tool, arguments, new TurnListener() { });
    }

    @Test
    void allowedCallRunsAndReturnsTheToolsText() throws Exception {
        CallOutcome outcome = run(chain(false, false, Duration.ofSeconds(5)), "echo", "{\"text\":\"hi\"}");
        assertEquals(Status.OK, outcome.status());
        assertEquals("hi", outcome.output());
        assertEquals(Decision.ALLOW, outcome.verdict().decision());
        assertEquals("default", outcome.verdict().by());
    }

    @Test
    void unknownToolIsAnErrorNamingWhatIsOffered() throws Exception {
        CallOutcome outcome = run(chain(false, false, Duration.ofSeconds(5)), "nope", "{}");
        assertEquals(Status.ERROR, outcome.status());
        assertEquals("No tool named 'nope' is offered in this step. Offered: echo.", outcome.output());
    }

    @Test
    void argumentsThatAreNotJsonOrBreakTheSchemaNeverReachTheTool() throws Exception {
        CallChain chain = chain(false, false, Duration.ofSeconds(5));
        CallOutcome notJson = run(chain, "echo", "{text: hi");
        assertEquals(Status.ERROR, notJson.status());
        assertTrue(notJson.output().startsWith("Arguments for echo are not valid JSON"), notJson.output());
        CallOutcome array = run(chain, "echo", "[1]");
        assertEquals("Arguments for echo must be a JSON object, got array.", array.output());
        CallOutcome missing = run(chain, "echo", "{}");
        assertEquals("Invalid arguments for echo: 'text' is required (a string).", missing.output());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void argumentsOverTheLimitAreRefusedBeforeTheyAreParsedWhetherRunOrChecked() throws Exception {
        CallChain chain = chain(true, false, Duration.ofSeconds(5));
        // not even valid JSON: a size refusal rather than a syntax error shows nothing parsed the text
        String over = "{\"text\":\"" + "é".repeat(ArgumentLimit.MAX_BYTES / 2);
        long bytes = over.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        String refusal = ArgumentLimit.refusal("echo", bytes);
        assertTrue(refusal.startsWith("The arguments of echo are " + String.format(java.util.Locale.ROOT, "%,d", bytes)
                + " bytes; the limit is 1,048,576. Nothing was run. Split the change into smaller calls"), refusal);
        CallOutcome outcome = run(chain, "echo", over);
        assertEquals(Status.ERROR, outcome.status());
        assertEquals(refusal, outcome.output());
        Verdict checked = chain.check(framework.registry.snapshot(), "echo", over);
        assertEquals(Decision.DENY, checked.decision());
        assertEquals(refusal, checked.reason());
        assertEquals(0, echo.calls.get());

        // at the limit exactly, the call runs
        String text = "a".repeat(ArgumentLimit.MAX_BYTES - "{\"text\":\"\"}".length());
        assertEquals(Status.OK, run(chain, "echo", "{\"text\":\"" + text + "\"}").status());
    }

    @Test
    void guardRefusalDeniesBeforeTheToolAndYoloDoesNotReachIt() throws Exception {
        guards.add(call -> call.subjects().get(0).value().contains("rm") ? Optional.of("rm is refused") : Optional.empty());
        CallOutcome outcome = run(chain(true, false, Duration.ofSeconds(5)), "echo", "{\"text\":\"rm -rf\"}");
        assertEquals(Status.DENIED, outcome.status());
        assertEquals(new Verdict(Decision.DENY, "guard", "rm is refused"), outcome.verdict());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void aGuardThatThrowsRefusesTheCall() throws Exception {
        guards.add(call -> {
            throw new IllegalStateException("broken guard");
        });
        CallOutcome outcome = run(chain(false, false, Duration.ofSeconds(5)), "echo", "{\"text\":\"a\"}");
        assertEquals(Status.DENIED, outcome.status());
        assertEquals("guard", outcome.verdict().by());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void aCommandThatCannotBeJudgedRunsNeitherByRuleNorByYoloAndIsDeniedHeadless() throws Exception {
        framework.register(new TestTools.Subjects("bash", dev.quiver.api.Subject.Kind.COMMAND), "bash", "execute");
        RuleSet allowAll = rules("{\"bash\":\"allow\"}");
        for (String command : List.of("$CMD -rf src", "x=rm; $x -rf src", "echo $( (", "x=-rf; rm $x src",
                "git -c alias.x=status x")) {
            CallChain yolo = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5), allowAll);
            Verdict checked = yolo.check(framework.registry.snapshot(), "bash",
                    "{\"subject\":" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(command) + "}");
            assertEquals(Decision.ASK, checked.decision(), command + ": " + checked);
            assertTrue(checked.reason().contains("cannot be judged"), checked.reason());
            CallOutcome ran = run(yolo, "bash", "{\"subject\":"
                    + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(command) + "}");
            assertEquals(Status.DENIED, ran.status(), command);
            assertEquals("mode", ran.verdict().by());
            assertFalse(ran.output().contains("run with --yolo"), ran.output());
        }
        // an ordinary ask is still turned into an allow by --yolo
        CallChain yolo = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5), RuleSet.empty());
        assertEquals(Status.OK, run(yolo, "bash", "{\"subject\":\"ls -la\"}").status());
    }

    @Test
    void aPrivilegedCommandAsksWhateverTheRulesAndYoloSayAndIsDeniedHeadless() throws Exception {
        framework.register(new TestTools.Subjects("bash", dev.quiver.api.Subject.Kind.COMMAND), "bash", "execute");
        CallChain yolo = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5),
                rules("{\"bash\":{\"*\":\"allow\",\"git *\":\"allow\"}}"));
        for (String command : List.of("sudo git status", "doas ls", "su -c 'ls'", "sudo -i")) {
            String arguments = "{\"subject\":" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(command)
                    + "}";
            Verdict checked = yolo.check(framework.registry.snapshot(), "bash", arguments);
            assertEquals(Decision.ASK, checked.decision(), command + ": " + checked);
            assertTrue(checked.reason().contains("another user"), checked.reason());
            CallOutcome ran = run(yolo, "bash", arguments);
            assertEquals(Status.DENIED, ran.status(), command);
            assertEquals("mode", ran.verdict().by());
        }
    }

    @Test
    void askWithoutAPersonIsDeniedAndYoloAllowsIt() throws Exception {
        TestTools.Echo writer = new TestTools.Echo("write_echo");
        framework.register(writer, "write_echo", "write");
        CallOutcome headless = run(chain(false, false, Duration.ofSeconds(5)), "write_echo", "{\"text\":\"a\"}");
        assertEquals(Status.DENIED, headless.status());
        assertEquals("mode", headless.verdict().by());
        assertTrue(headless.output().contains("--yolo"), headless.output());
        assertEquals(0, writer.calls.get());

        CallOutcome yolo = run(chain(true, false, Duration.ofSeconds(5)), "write_echo", "{\"text\":\"a\"}");
        assertEquals(Status.OK, yolo.status());
        assertEquals("mode", yolo.verdict().by());
        assertEquals(1, writer.calls.get());
    }

    @Test
    void interactiveApprovalShowsTheSubjectAndRunsOnlyWhenApproved() throws Exception {
        TestTools.Echo writer = new TestTools.Echo("write_echo");
        framework.register(writer, "write_echo", "write");
        CallChain chain = chain(false, true, Duration.ofSeconds(5));
        List<String> asked = new ArrayList<>();
        TurnListener no = new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request.tool() + ":" + request.subject());
                return Approval.deny("");
            }
        };
        CallOutcome denied = chain.run(framework.registry.snapshot(), "write_echo", "{\"text\":\"abc\"}", no);
        assertEquals(Status.DENIED, denied.status());
        assertEquals("The user denied this call. Ask the user what to do instead.", denied.output());
        assertEquals(List.of("write_echo:abc"), asked);
        assertEquals(0, writer.calls.get());

        CallOutcome approved = chain.run(framework.registry.snapshot(), "write_echo", "{\"text\":\"abc\"}",
                new TurnListener() {
                    @Override
                    public Approval approve(ApprovalRequest request) {
                        return Approval.once();
                    }
                });
        assertEquals(Status.OK, approved.status());
        assertEquals(1, writer.calls.get());
    }

    @Test
    void aToolThatDoesNotReturnIsCancelledAtTheTimeout() throws Exception {
        TestTools.Blocker blocker = new TestTools.Blocker();
        framework.register(blocker, "block", "read");
        CallOutcome outcome = run(chain(false, false, Duration.ofMillis(300)), "block", "{}");
        assertEquals(Status.ERROR, outcome.status());
        assertTrue(outcome.output().contains("did not return within") && outcome.output().contains("effects are unknown"),
                outcome.output());
        // the outcome is returned at the timeout; the worker notices the cancellation a moment later
        assertTrue(blocker.sawCancel.await(5, java.util.concurrent.TimeUnit.SECONDS), "the tool saw the cancellation");
    }

    @Test
    void aCallToAToolThatWasRegisteredAndIsGoneSaysItWasUnloadedAndWhatIsOffered() throws Exception {
        ServiceRegistration<Tool> registration = framework.register(new TestTools.Echo("counter"), "counter", "read");
        Workspace opened = new WorkspaceFactoryComponent().open(workspace);
        CallChain chain = new CallChain(opened, new PermissionEngine(RuleSet.empty(), opened, "/home/nobody"),
                () -> guards, workers, new CallChain.Modes(false, false, false), Duration.ofSeconds(5),
                new AuditLog(opened.root().resolve("state"), "test"), key -> Optional.empty(), tool -> false,
                framework.registry::wasUnloaded, java.util.Map::of);
        framework.unregister(registration);

        CallOutcome gone = run(chain, "counter", "{}");
        assertEquals(Status.ERROR, gone.status());
        assertEquals("Tool counter was unloaded (its bundle stopped) and is no longer offered. Offered: echo.",
                gone.output());
        CallOutcome never = run(chain, "nope", "{}");
        assertEquals("No tool named 'nope' is offered in this step. Offered: echo.", never.output(),
                "a name never registered is unknown, not unloaded");
    }

    @Test
    void longResultsAreCapped() throws Exception {
        CallOutcome outcome = run(chain(false, false, Duration.ofSeconds(5)), "echo", "{\"text\":\"ab\",\"times\":20000}");
        assertEquals(Status.OK, outcome.status());
        assertTrue(outcome.output().endsWith("... [truncated 10,000 chars]"));
    }

    @Test
    void aToolWhoseServiceGoesAwayMidCallFailsSayingItWasUnloaded() throws Exception {
        TestTools.Blocker blocker = new TestTools.Blocker();
        blocker.failWith = new IllegalStateException("class loader closed");
        ServiceRegistration<Tool> registration = framework.register(blocker, "block", "read");
        CallChain chain = chain(false, false, Duration.ofSeconds(10));
        List<RegisteredTool> snapshot = framework.registry.snapshot();
        CompletableFuture<CallOutcome> call = CompletableFuture.supplyAsync(
                () -> chain.run(snapshot, "block", "{}", new TurnListener() { }));
        assertTrue(blocker.entered.await(5, TimeUnit.SECONDS));
        framework.unregister(registration);
        blocker.release.countDown();
        CallOutcome outcome = call.get(5, TimeUnit.SECONDS);
        assertEquals(Status.ERROR, outcome.status());
        assertTrue(outcome.output().startsWith("Tool block was unloaded while this call ran"), outcome.output());

        CallOutcome next = run(chain, "block", "{}");
        assertEquals("No tool named 'block' is offered in this step. Offered: echo.", next.output());
    }

    @Test
    void checkDecidesWithoutRunning() throws Exception {
        CallChain chain = chain(false, false, Duration.ofSeconds(5));
        Verdict verdict = chain.check(framework.registry.snapshot(), "echo", "{\"text\":\"a\"}");
        assertEquals(Decision.ALLOW, verdict.decision());
        assertEquals(Decision.ASK, chain.check(framework.registry.snapshot(), "missing", "{}").decision());
        assertEquals(0, echo.calls.get());
    }

    @Test
    void theThirdIdenticalCallInATurnAsksSoHeadlessItIsRefusedAndANewTurnStartsAfresh() throws Exception {
        CallChain chain = chain(false, false, Duration.ofSeconds(5));
        assertEquals(Status.OK, run(chain, "echo", "{\"text\":\"same\"}").status());
        assertEquals(Status.OK, run(chain, "echo", "{\"text\":\"same\"}").status());
        assertEquals(Status.OK, run(chain, "echo", "{\"text\":\"other\"}").status());
        CallOutcome third = run(chain, "echo", "{\"text\":\"same\"}");
        assertEquals(Status.DENIED, third.status());
        assertTrue(third.output().contains("same arguments"), third.output());
        assertEquals(3, echo.calls.get());
        chain.newTurn();
        assertEquals(Status.OK, run(chain, "echo", "{\"text\":\"same\"}").status());
        assertEquals(Decision.ALLOW, chain.check(framework.registry.snapshot(), "echo", "{\"text\":\"same\"}").decision(),
                "check does not count");
    }

    @Test
    void readOnlyModeWithholdsWriteToolsAndDeniesThemByMode() throws Exception {
        TestTools.Echo writer = new TestTools.Echo("write_echo");
        framework.register(writer, "write_echo", "write");
        CallChain chain = chain(new CallChain.Modes(true, false, true), Duration.ofSeconds(5), RuleSet.empty());
        List<RegisteredTool> offered = framework.registry.snapshot().stream().filter(chain::offers).toList();
        assertEquals(List.of("echo"), offered.stream().map(RegisteredTool::name).toList());
        CallOutcome denied = run(chain, "write_echo", "{\"text\":\"a\"}");
        assertEquals(Status.DENIED, denied.status());
        assertEquals("mode", denied.verdict().by());
        assertEquals(0, writer.calls.get(), "not even --yolo lets it run");
    }

    @Test
    void aSecretPathNeverReachesTheToolAndYoloDoesNotChangeThat() throws Exception {
        PathTool reader = new PathTool("reader");
        framework.register(reader, "reader", "read");
        CallOutcome outcome = run(chain(true, false, Duration.ofSeconds(5)), "reader", "{\"path\":\"config/.env\"}");
        assertEquals(Status.DENIED, outcome.status());
        assertEquals("secret", outcome.verdict().by());
        assertEquals(0, reader.calls.get());
    }

    @Test
    void anApprovalQuestionShowsTheFirstTwentySubjectsAndHowManyMore() throws Exception {
        Tool many = new Tool() {
            @Override
            public dev.quiver.api.ToolSpec spec() {
                return new dev.quiver.api.ToolSpec("many", "Use many paths.", "{\"type\":\"object\"}");
            }

            @Override
            public List<dev.quiver.api.Subject> subjects(dev.quiver.api.Arguments arguments) {
                List<dev.quiver.api.Subject> paths = new ArrayList<>();
                for (int i = 1; i <= 25; i++) {
                    paths.add(dev.quiver.api.Subject.path("out/f" + i + ".txt"));
                }
                return paths;
            }

            @Override
            public dev.quiver.api.ToolResult call(dev.quiver.api.Arguments arguments, dev.quiver.api.ToolContext context) {
                return dev.quiver.api.ToolResult.of("done");
            }
        };
        framework.register(many, "many", "write");
        List<ApprovalRequest> asked = new ArrayList<>();
        TurnListener once = new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request);
                return Approval.always();
            }
        };
        assertEquals(Status.OK, chain(false, true, Duration.ofSeconds(5)).run(framework.registry.snapshot(), "many", "{}",
                once).status());
        List<String> lines = List.of(asked.get(0).subject().split("\n"));
        assertEquals(21, lines.size(), asked.get(0).subject());
        assertEquals("out/f1.txt", lines.get(0));
        assertEquals("out/f20.txt", lines.get(19));
        assertEquals("... and 5 more", lines.get(20));
    }

    @Test
    void alwaysGrantsTheShownPatternForTheSessionOnly() throws Exception {
        PathTool writer = new PathTool("writer");
        framework.register(writer, "writer", "write");
        CallChain chain = chain(false, true, Duration.ofSeconds(5));
        List<ApprovalRequest> asked = new ArrayList<>();
        TurnListener always = new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request);
                return Approval.always();
            }
        };
        List<RegisteredTool> snapshot = framework.registry.snapshot();
        assertEquals(Status.OK, chain.run(snapshot, "writer", "{\"path\":\"src/a/One.java\"}", always).status());
        assertEquals(Optional.of("src/a/*"), asked.get(0).pattern());
        assertEquals(Status.OK, chain.run(snapshot, "writer", "{\"path\":\"src/a/Two.java\"}", always).status());
        assertEquals(1, asked.size(), "the grant covered the second call");
        chain.run(snapshot, "writer", "{\"path\":\"src/b/Three.java\"}", always);
        assertEquals(2, asked.size(), "another folder asks again");
        CallChain fresh = chain(false, false, Duration.ofSeconds(5));
        assertEquals(Status.DENIED, run(fresh, "writer", "{\"path\":\"src/a/Four.java\"}").status(),
                "grants live in their session only");
    }

    @Test
    void aDenyRuleWinsOverApprovalAndTheAuditLogRecordsEveryDecisionWithoutArguments() throws Exception {
        PathTool writer = new PathTool("writer");
        framework.register(writer, "writer", "write");
        CallChain chain = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5),
                rules("{\"writer\":{\"*\":\"allow\",\"locked/*\":\"deny\"}}"));
        CallOutcome denied = run(chain, "writer", "{\"path\":\"locked/x.txt\",\"content\":\"TOP-SECRET-CONTENT\"}");
        assertEquals(Status.DENIED, denied.status());
        assertEquals("rule", denied.verdict().by());
        assertEquals(Status.OK, run(chain, "writer", "{\"path\":\"open/x.txt\"}").status());

        List<String> lines = java.nio.file.Files.readAllLines(workspace.resolve("state/audit.jsonl"));
        assertEquals(2, lines.size());
        var first = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(0));
        assertEquals("writer", first.get("tool").asText());
        assertEquals("locked/x.txt", first.get("subjects").get(0).asText());
        assertEquals("deny", first.get("decision").asText());
        assertEquals("rule", first.get("by").asText());
        assertEquals("locked/*", first.get("rule").asText());
        assertEquals("/cfg/config.json", first.get("file").asText());
        assertTrue(lines.stream().noneMatch(l -> l.contains("TOP-SECRET-CONTENT")));
        assertFalse(java.nio.file.Files.exists(workspace.resolve(".quiver")), "nothing is written into the working tree");
    }

    @Test
    void autoApproveIsHonouredOnlyForTrustedBundlesAndNeverPastADenyRule() throws Exception {
        PathTool plugin = new PathTool("plugin_write");
        framework.register(plugin, "plugin_write", "write", dev.quiver.api.Tool.AUTO_APPROVE, "true");
        Workspace opened = new WorkspaceFactoryComponent().open(workspace);
        RuleSet rules = rules("{\"plugin_write\":{\"locked/*\":\"deny\"}}");
        CallChain untrusted = new CallChain(opened, new PermissionEngine(rules, opened, "/h"), () -> guards, workers,
                new CallChain.Modes(false, false, false), Duration.ofSeconds(5), new AuditLog(opened.root(), "t"),
                key -> Optional.empty(), tool -> false);
        assertEquals(Status.DENIED, run(untrusted, "plugin_write", "{\"path\":\"a.txt\"}").status(), "untrusted: it asks");
        CallChain trusted = new CallChain(opened, new PermissionEngine(rules, opened, "/h"), () -> guards, workers,
                new CallChain.Modes(false, false, false), Duration.ofSeconds(5), new AuditLog(opened.root(), "t"),
                key -> Optional.empty(), tool -> true);
        CallOutcome ran = run(trusted, "plugin_write", "{\"path\":\"a.txt\"}");
        assertEquals(Status.OK, ran.status());
        assertTrue(ran.verdict().reason().contains("trusted bundle"), ran.verdict().reason());
        assertEquals(Status.DENIED, run(trusted, "plugin_write", "{\"path\":\"locked/b.txt\"}").status());
        guards.add(call -> Optional.of("no plugins today"));
        assertEquals("guard", run(trusted, "plugin_write", "{\"path\":\"c.txt\"}").verdict().by());
        assertEquals(1, plugin.calls.get());
    }

    /*
     * run_checks: the rules match the target name; every command it discovered is judged by the guard
     * (and the shell checks), a refusal wins. ChecksTool names its subjects as RunChecksTool does (the
     * target, then each command; RunChecksToolTest pins that shape), so this is the real decision.
     */

    private CallChain checks(String permission) throws Exception {
        framework.register(checksTool, "run_checks", "execute", Tool.SET, "extra");
        return chain(new CallChain.Modes(false, false, false), Duration.ofSeconds(5),
                rules("{\"run_checks\":" + permission + "}"));
    }

    private Verdict checkVerdict(CallChain chain, String target) {
        return chain.check(framework.registry.snapshot(), "run_checks", "{\"target\":\"" + target + "\"}");
    }

    private final ChecksTool checksTool = new ChecksTool();

    @Test
    void runChecksRulesMatchTheTargetNameNotTheDiscoveredCommands() throws Exception {
        CallChain chain = checks("{\"test\":\"allow\"}");
        Verdict test = checkVerdict(chain, "test");
        assertEquals(Decision.ALLOW, test.decision(), test.reason());
        assertEquals("rule", test.by());
        assertEquals("rule \"test\" for run_checks (allow, from /cfg/config.json)", test.reason());
        CallOutcome ran = run(chain, "run_checks", "{\"target\":\"test\"}");
        assertEquals(Status.OK, ran.status(), ran.output());
        assertEquals(List.of("./check.sh test"), checksTool.ran);
        // a target no rule names keeps the default of an execute tool, and all is a name of its own
        assertEquals(Decision.ASK, checkVerdict(chain, "lint").decision());
        assertEquals("default", checkVerdict(chain, "lint").by());
        assertEquals(Decision.ASK, checkVerdict(chain, "all").decision());
        assertEquals(Status.DENIED, run(chain, "run_checks", "{\"target\":\"lint\"}").status());
        assertEquals(List.of("./check.sh test"), checksTool.ran);
    }

    @Test
    void runChecksDenyRuleDenies() throws Exception {
        CallChain chain = checks("{\"*\":\"deny\"}");
        Verdict verdict = checkVerdict(chain, "test");
        assertEquals(new Verdict(Decision.DENY, "rule", "rule \"*\" for run_checks (deny, from /cfg/config.json)"),
                verdict);
        assertEquals(Status.DENIED, run(chain, "run_checks", "{\"target\":\"test\"}").status());
        CallChain mixed = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5),
                rules("{\"run_checks\":{\"*\":\"allow\",\"lint\":\"deny\"}}"));
        assertEquals(Decision.DENY, checkVerdict(mixed, "lint").decision(), "yolo does not pass a deny rule");
        assertEquals(Decision.ALLOW, checkVerdict(mixed, "test").decision());
        assertEquals(List.of(), checksTool.ran);
    }

    @Test
    void runChecksDiscoveredDestructiveCommandIsRefusedByTheGuardWhateverTheRules() throws Exception {
        java.nio.file.Files.createDirectories(workspace.resolve("src")); // work the command would delete
        CallChain chain = checks("{\"*\":\"allow\"}");
        Verdict wipe = checkVerdict(chain, "wipe");
        assertEquals(Decision.DENY, wipe.decision());
        assertEquals("guard", wipe.by());
        assertTrue(wipe.reason().startsWith("Refused `rm -rf src`"), wipe.reason());
        CallChain yolo = chain(new CallChain.Modes(true, false, false), Duration.ofSeconds(5),
                rules("{\"run_checks\":{\"wipe\":\"allow\"}}"));
        CallOutcome refused = run(yolo, "run_checks", "{\"target\":\"wipe\"}");
        assertEquals(Status.DENIED, refused.status());
        assertTrue(refused.output().startsWith("Refused by the guard: Refused `rm -rf src`"), refused.output());
        // a command that reads a secret is refused as bash's would be; an allowed target runs
        assertEquals(new Verdict(Decision.DENY, "secret", "cat .env: it reads .env, which holds secrets by its name; "
                + "that is refused. Ask the user for the value you need."), checkVerdict(chain, "peek"));
        assertEquals(Status.OK, run(chain, "run_checks", "{\"target\":\"test\"}").status());
        assertEquals(List.of("./check.sh test"), checksTool.ran);
    }

    @Test
    void runChecksApprovalOffersToAlwaysAllowTheTarget() throws Exception {
        framework.register(checksTool, "run_checks", "execute", Tool.SET, "extra");
        CallChain chain = chain(new CallChain.Modes(false, true, false), Duration.ofSeconds(5), RuleSet.empty());
        List<ApprovalRequest> asked = new ArrayList<>();
        TurnListener always = new TurnListener() {
            @Override
            public Approval approve(ApprovalRequest request) {
                asked.add(request);
                return Approval.always();
            }
        };
        assertEquals(Status.OK, chain.run(framework.registry.snapshot(), "run_checks", "{\"target\":\"lint\"}",
                always).status());
        assertEquals(1, asked.size());
        assertEquals(Optional.of("lint"), asked.get(0).pattern());
        assertEquals("lint\nnpm run lint", asked.get(0).subject());
        assertEquals(Status.OK, chain.run(framework.registry.snapshot(), "run_checks", "{\"target\":\"lint\"}",
                always).status());
        assertEquals(1, asked.size(), "the granted target runs unasked");
        assertEquals(Decision.ASK, chain.check(framework.registry.snapshot(), "run_checks", "{\"target\":\"test\"}")
                .decision());
    }

    /** Names its subjects as run_checks does: the target, then every command the target runs. */
    static final class ChecksTool implements Tool {
        static final java.util.Map<String, List<String>> CHECKS = new java.util.LinkedHashMap<>();

        static {
            CHECKS.put("test", List.of("./check.sh test"));
            CHECKS.put("lint", List.of("npm run lint"));
            CHECKS.put("all", List.of("./check.sh test", "npm run lint"));
            CHECKS.put("wipe", List.of("./check.sh test && rm -rf src"));
            CHECKS.put("peek", List.of("cat .env"));
        }

        final List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public dev.quiver.api.ToolSpec spec() {
            return new dev.quiver.api.ToolSpec("run_checks", "Run checks.",
                    "{\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\"}}}");
        }

        @Override
        public List<dev.quiver.api.Subject> subjects(dev.quiver.api.Arguments arguments) throws dev.quiver.api.ToolException {
            return List.of(dev.quiver.api.Subject.name(arguments.string("target", "all")));
        }

        @Override
        public List<dev.quiver.api.Subject> subjects(dev.quiver.api.Arguments arguments, Workspace workspace)
                throws dev.quiver.api.ToolException {
            String target = arguments.string("target", "all");
            List<dev.quiver.api.Subject> subjects = new ArrayList<>();
            subjects.add(dev.quiver.api.Subject.name(target));
            for (String command : CHECKS.getOrDefault(target, List.of())) {
                subjects.add(dev.quiver.api.Subject.command(command));
            }
            return subjects;
        }

        @Override
        public dev.quiver.api.ToolResult call(dev.quiver.api.Arguments arguments, dev.quiver.api.ToolContext context)
                throws dev.quiver.api.ToolException {
            List<String> commands = CHECKS.get(arguments.string("target", "all"));
            ran.addAll(commands);
            return dev.quiver.api.ToolResult.of("ran " + commands);
        }
    }

    /** A tool with a path argument, as file tools have. */
    static final class PathTool implements Tool {
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        private final String name;

        PathTool(String name) {
            this.name = name;
        }

        @Override
        public dev.quiver.api.ToolSpec spec() {
            return new dev.quiver.api.ToolSpec(name, "Use a path.", "{\"type\":\"object\",\"properties\":{"
                    + "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"path\"]}");
        }

        @Override
        public List<dev.quiver.api.Subject> subjects(dev.quiver.api.Arguments arguments) throws dev.quiver.api.ToolException {
            return List.of(dev.quiver.api.Subject.path(arguments.string("path")));
        }

        @Override
        public dev.quiver.api.ToolResult call(dev.quiver.api.Arguments arguments, dev.quiver.api.ToolContext context)
                throws dev.quiver.api.ToolException {
            calls.incrementAndGet();
            return dev.quiver.api.ToolResult.of("used " + arguments.string("path"));
        }
    }
}
