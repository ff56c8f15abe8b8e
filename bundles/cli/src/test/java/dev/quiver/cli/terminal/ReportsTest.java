package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Shell;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.Decision;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.ToolInfo;
import dev.quiver.api.host.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The plain functions behind /tools, /bash, /bundles, the call line and the history file. */
class ReportsTest {

    private static ToolInfo tool(String name, String set, String bundle, boolean offered) {
        return new ToolInfo(name, Optional.ofNullable(set), "read", Decision.ALLOW, bundle, 10, "", "{}", Optional.empty(),
                offered);
    }

    @Test
    void toolsSaysHowManyAreOfferedOfThoseRegisteredAndWhereEachComesFrom() {
        List<ToolInfo> registered = List.of(tool("bash", "core", "dev.quiver.tools.core", true),
                tool("mcp__gh__issue", null, "dev.quiver.mcp", true), tool("web_fetch", "net", "dev.quiver.tools.net", false));
        List<String> lines = ToolsReport.lines(registered.subList(0, 2), registered);
        assertEquals(List.of("2 offered this turn of 3 registered",
                "  bash            core",
                "  mcp__gh__issue  from dev.quiver.mcp",
                "  web_fetch       net  (withheld)"), lines);
    }

    @Test
    void aToolChangeNamesWhatCameAndWent() {
        assertEquals("tools changed: +glob −git_diff (2 offered)", ToolsReport.change(List.of("bash", "git_diff"),
                List.of("bash", "glob")));
        assertEquals("", ToolsReport.change(List.of("bash"), List.of("bash")));
    }

    @Test
    void bashListsBackgroundCommandsAndCtrlCPicksTheNewestRunning() {
        List<Shell.Job> jobs = List.of(new Shell.Job("bg1", "web", "npm run dev", Shell.Job.State.RUNNING, -1,
                Duration.ofSeconds(75), true), new Shell.Job("bg2", "", "make", Shell.Job.State.EXITED, 2,
                Duration.ofMillis(900), false), new Shell.Job("bg3", "", "tail -f log", Shell.Job.State.RUNNING, -1,
                Duration.ofSeconds(2), true));
        List<String> lines = JobsReport.lines(jobs);
        assertEquals("  bg1   running      1m 15s  npm run dev  (web)", lines.get(0));
        assertEquals("  bg2   exited 2     900 ms  make  [not sandboxed]", lines.get(1));
        assertEquals("bg3", JobsReport.newestRunning(jobs).orElseThrow().handle());
        assertEquals(List.of("bg1", "bg3"), JobsReport.running(jobs).stream().map(Shell.Job::handle).toList());
        assertEquals(List.of("No background commands."), JobsReport.lines(List.of()));
        assertTrue(JobsReport.newestRunning(List.of()).isEmpty());
    }

    @Test
    void bundlesShowStateOriginTrustToolsAndProblems() {
        List<String> lines = BundlesReport.lines(List.of(
                new Platform.BundleInfo(7, "dev.quiver.tools.core", "0.1.0", "active", Platform.ORIGIN_DISTRIBUTION,
                        Optional.empty(), false, List.of("bash", "glob"), Optional.empty()),
                new Platform.BundleInfo(31, "org.example.hello", "1.2.0", "installed", Platform.ORIGIN_CATALOG,
                        Optional.of("examples"), true, List.of(), Optional.of("missing package org.x"))));
        assertEquals("    7  dev.quiver.tools.core 0.1.0  active   distribution  tools: bash, glob", lines.get(0));
        assertEquals("   31  org.example.hello 1.2.0      installed catalog (examples)  trusted  problem: missing package org.x",
                lines.get(1));
        assertEquals("2 bundles", lines.get(2));
    }

    @Test
    void aCallLeavesOneLineWithItsSubjectAndOutcome() {
        Verdict allow = new Verdict(Decision.ALLOW, "rule", "allowed");
        assertEquals("✓ bash  git status  12 ms", CallView.line(new CallOutcome("bash", CallOutcome.Status.OK, "x", 12,
                allow), "git status", 100).toString());
        assertEquals("✗ bash  make · Exit: boom  3.2 s", CallView.line(new CallOutcome("bash", CallOutcome.Status.ERROR,
                "Exit: boom\nmore", 3200, allow), "make", 100).toString());
        assertEquals("⊘ bash  rm -rf / · refused (guard): recursive deletion  0 ms", CallView.line(new CallOutcome("bash",
                CallOutcome.Status.DENIED, "x", 0, new Verdict(Decision.DENY, "guard", "recursive deletion")), "rm -rf /",
                100).toString());
        assertEquals("⊘ bash  ls · denied  0 ms", CallView.line(new CallOutcome("bash", CallOutcome.Status.DENIED, "x", 0,
                new Verdict(Decision.DENY, "user", "the user declined")), "ls", 100).toString());
        String narrow = CallView.line(new CallOutcome("bash", CallOutcome.Status.ERROR, "a long failure ".repeat(10), 5,
                allow), "a long command ".repeat(10), 60).toString();
        assertTrue(narrow.length() <= 60, narrow);
    }

    @Test
    void theSummaryIsWhatTheCallActsOn() {
        assertEquals("git status", CallView.summary("{\"command\":\"git status\",\"timeout\":5}"));
        assertEquals("src/A.java", CallView.summary("{\"path\":\"src/A.java\",\"offset\":3}"));
        assertEquals("TODO in src", CallView.summary("{\"pattern\":\"TODO\",\"path\":\"src\"}"));
        assertEquals("a=1 b=x", CallView.summary("{\"a\":1,\"b\":\"x\"}"));
        assertEquals("echo a ⏎ echo b", CallView.summary("{\"command\":\"echo a\\necho b\"}"));
        assertEquals("not json", CallView.summary("not json"));
        assertEquals("", CallView.summary("{}"));
    }

    @Test
    void durationsAreShortAndWholeSecondsDoNotFlicker() {
        assertEquals("840 ms", CallView.duration(840));
        assertEquals("3.2 s", CallView.duration(3210));
        assertEquals("2m 05s", CallView.duration(125_000));
        assertEquals("4 s", LiveArea.seconds(4999));
    }

    @Test
    void historyIsKeptPerWorkspaceUnderTheStateFolder() {
        Path a = HistoryPath.of(Map.of("XDG_STATE_HOME", "/state"), Path.of("/work/a"));
        Path b = HistoryPath.of(Map.of("XDG_STATE_HOME", "/state"), Path.of("/work/b"));
        assertEquals(Path.of("/state/quiver/history"), a.getParent());
        assertEquals(16, a.getFileName().toString().length());
        assertTrue(!a.equals(b));
        assertEquals(a, HistoryPath.of(Map.of("XDG_STATE_HOME", "/state"), Path.of("/work/x/../a")));
        assertEquals(Path.of("/home/u/.local/state/quiver/history"),
                HistoryPath.of(Map.of("HOME", "/home/u"), Path.of("/w")).getParent());
        assertEquals(Path.of("/home/u/.local/state/quiver/history"),
                HistoryPath.of(Map.of("HOME", "/home/u", "XDG_STATE_HOME", "relative"), Path.of("/w")).getParent(),
                "a relative XDG_STATE_HOME is ignored, as the spec says");
    }

    @Test
    void slashCommandsAreParsedButPathsAreNot() {
        assertEquals(Optional.of(new Commands.Parsed("bash", "stop bg1")), Commands.parse("/bash stop bg1"));
        assertEquals(Optional.of(new Commands.Parsed("tools", "")), Commands.parse("  /Tools  "));
        assertEquals(Optional.empty(), Commands.parse("/etc/hosts looks wrong"));
        assertEquals(Optional.empty(), Commands.parse("what does /tools do"));
    }

    @Test
    void printableDropsControlsAndVisibleShowsThem() {
        assertEquals("ab", Printable.line("a\033[2Jb"));
        assertEquals("100%", Printable.line("10%\r50%\r100%"));
        assertEquals("line", Printable.line("line\r"));
        assertEquals("a   b", Printable.line("a\tb"));
        assertEquals("rm ^[[2J -rf", Printable.visible("rm \033[2J -rf"));
        assertEquals("ab…", Printable.cut("abcdef", 3));
    }
}
