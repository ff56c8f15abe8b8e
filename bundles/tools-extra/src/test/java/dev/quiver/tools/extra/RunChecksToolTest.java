package dev.quiver.tools.extra;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.shell.ProcessShell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run_checks with real commands through the real shell, in its sandbox. */
class RunChecksToolTest {

    @TempDir
    Path root;

    private ToolTestContext context;
    private final RunChecksTool tool = new RunChecksTool(new ProcessShell());

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
        script("scripts/test-pass.sh", "echo all good");
        script("scripts/lint-fail.sh", "echo checking 3 files; echo 'src/a.ts:3:1 error unused variable x'; "
                + "echo 'src/b.ts:9:2 error missing semicolon'; echo '2 problems' >&2; exit 1");
        Files.writeString(root.resolve("AGENTS.md"), """
                # Checks
                Run `scripts/test-pass.sh` and `scripts/lint-fail.sh` before you finish.
                """);
    }

    private void script(String path, String body) throws Exception {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** As the kernel does: the subjects first (judged by the rules and the guard), then the call. */
    private String runChecks(Map<String, ?> values) throws ToolException {
        Arguments arguments = Arguments.of(values);
        tool.subjects(arguments, context.workspace());
        return tool.call(arguments, context).text();
    }

    @Test
    void everyCheckRunsAndReportsPassOrFailWithTheFirstErrorLines() throws Exception {
        String text = runChecks(Map.of());
        assertTrue(text.startsWith("1 of 2 checks passed (from AGENTS.md).\n"), text);
        assertTrue(text.matches("(?s).*\nPASS test-pass\\.sh: scripts/test-pass\\.sh \\(\\d+\\.\\d s\\)\n.*"), text);
        assertTrue(text.matches("(?s).*\nFAIL lint-fail\\.sh: scripts/lint-fail\\.sh \\(exit 1, \\d+\\.\\d s\\)\n"
                + "  src/a\\.ts:3:1 error unused variable x\n  src/b\\.ts:9:2 error missing semicolon\n(.*\n)?  2 problems"),
                text);
        assertTrue(context.streamedText().contains("$ scripts/test-pass.sh\n"), context.streamedText());
        assertTrue(context.streamedText().contains("all good\n"), context.streamedText());
    }

    @Test
    void targetPicksOneCheckByName() throws Exception {
        String text = runChecks(Map.of("target", "test-pass.sh"));
        assertTrue(text.matches("All 1 check passed \\(from AGENTS\\.md\\)\\.\nPASS test-pass\\.sh: scripts/test-pass\\.sh "
                + "\\(\\d+\\.\\d s\\)"), text);
    }

    @Test
    void unknownTargetNamesTheChecks() {
        ToolException error = assertThrows(ToolException.class, () -> runChecks(Map.of("target", "deploy")));
        assertEquals("No check is called \"deploy\". The checks (from AGENTS.md): test-pass.sh, lint-fail.sh; or all.",
                error.getMessage());
    }

    @Test
    void subjectsAreTheTargetAndEveryCommand() throws Exception {
        assertEquals(List.of(Subject.name("all"), Subject.command("scripts/test-pass.sh"),
                Subject.command("scripts/lint-fail.sh")), tool.subjects(Arguments.empty(), context.workspace()));
        assertEquals(List.of(Subject.name("lint-fail.sh"), Subject.command("scripts/lint-fail.sh")),
                tool.subjects(Arguments.of(Map.of("target", "lint-fail.sh")), context.workspace()));
        assertEquals(List.of(Subject.name("all")), tool.subjects(Arguments.empty()));
    }

    @Test
    void commandsNotJudgedByTheKernelDoNotRun() throws Exception {
        script("scripts/test-pass.sh", "touch ran");
        ToolException error = assertThrows(ToolException.class, () -> tool.call(Arguments.empty(), context));
        assertEquals("run_checks could not have its commands judged by the permission rules (this Quiver does not pass "
                + "the workspace to Tool.subjects), so it runs nothing. Run them with bash: scripts/test-pass.sh ; "
                + "scripts/lint-fail.sh", error.getMessage());
        assertTrue(Files.notExists(root.resolve("ran")));
    }

    @Test
    void commandsThatChangedAfterTheyWereJudgedDoNotRun() throws Exception {
        tool.subjects(Arguments.empty(), context.workspace());
        Files.writeString(root.resolve("AGENTS.md"), "Run `scripts/test-pass.sh` and `./test-evil.sh`.\n");
        ToolException error = assertThrows(ToolException.class, () -> tool.call(Arguments.empty(), context));
        assertEquals("The check commands changed after they were approved (scripts/test-pass.sh ; scripts/lint-fail.sh "
                + "became scripts/test-pass.sh ; ./test-evil.sh), so nothing ran. Call run_checks again.",
                error.getMessage());
    }

    @Test
    void aCheckThatHangsTimesOutAndIsReportedAsUnfinished() throws Exception {
        script("scripts/test-pass.sh", "echo started; sleep 100");
        String text = runChecks(Map.of("target", "test-pass.sh", "timeout", 2500));
        assertTrue(text.matches("0 of 1 check passed \\(from AGENTS\\.md\\)\\.\nTIMED OUT test-pass\\.sh: "
                + "scripts/test-pass\\.sh \\(after \\d+\\.\\d s; killed with every process it started: it did not finish, "
                + "so its effects are unknown\\)\n(?s).*started.*"), text);
    }

    @Test
    void checksRunInTheSameSandboxAsBash() throws Exception {
        Files.writeString(root.resolve(".env"), "KEY=top-secret\n");
        script("scripts/test-pass.sh", "cat .env; touch /etc/quiver-check-probe && echo escaped; echo \"[$QUIVER_SANDBOX]\"");
        String text = runChecks(Map.of("target", "test-pass.sh"));
        assertTrue(text.startsWith("All 1 check passed"), text);
        assertTrue(context.streamedText().contains("[bubblewrap]\n"), context.streamedText());
        assertTrue(!context.streamedText().contains("top-secret") && !context.streamedText().contains("escaped"),
                context.streamedText());
        assertTrue(Files.notExists(Path.of("/etc/quiver-check-probe")));
    }

    @Test
    void noChecksAtAllIsAnErrorThatSaysWhatWasLookedFor() throws Exception {
        Files.delete(root.resolve("AGENTS.md"));
        ToolException error = assertThrows(ToolException.class, () -> runChecks(Map.of()));
        assertTrue(error.getMessage().startsWith("No check commands found: no commands in AGENTS.md, no package.json "
                + "scripts, and no pom.xml"), error.getMessage());
    }

    @Test
    void firstErrorLinesFallBackToTheLastLines() {
        List<String> lines = RunChecksTool.firstErrorLines("one\ntwo\n", "three\n");
        assertEquals(List.of("  one", "  two", "  three"), lines);
        List<String> many = RunChecksTool.firstErrorLines("x\n".repeat(50) + "Error: broken\n" + "y\n".repeat(50), "");
        assertEquals(RunChecksTool.ERROR_LINES, many.size());
        assertEquals("  Error: broken", many.get(0));
    }
}
