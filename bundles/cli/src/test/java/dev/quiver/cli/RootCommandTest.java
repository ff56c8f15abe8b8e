package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The root command's reading of its arguments, before any session: a prompt as an argument, the
 * headless options' values, and the usage errors (exit 2) they give. No kernel is reached.
 */
class RootCommandTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private RootCommand parsed(String... args) {
        RootCommand root = new RootCommand(null, "", terminal());
        CommandLine line = new CommandLine(root);
        Subcommands.add(line, args);
        line.parseArgs(args);
        return root;
    }

    private Terminal terminal() {
        return new Terminal(new BufferedReader(new StringReader("")), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private int run(String... args) {
        RootCommand root = new RootCommand(null, "", terminal());
        CommandLine line = new CommandLine(root);
        Subcommands.add(line, args);
        line.setErr(new java.io.PrintWriter(new PrintStream(err, true, StandardCharsets.UTF_8), true));
        return line.execute(args);
    }

    @Test
    void wordsWithoutASubcommandAreThePromptAndPWithoutAValueTakesThem() {
        assertEquals(List.of("fix the build"), parsed("fix the build").words);
        assertEquals(List.of("fix", "it"), parsed("--yolo", "fix", "it").words);
        RootCommand claudeStyle = parsed("-p", "--output-format", "stream-json", "What changed?");
        assertEquals("", claudeStyle.prompt, "-p without a value: the prompt is the argument");
        assertEquals(List.of("What changed?"), claudeStyle.words);
        assertEquals(RootCommand.Format.STREAM_JSON, claudeStyle.format);
        assertEquals("review", parsed("-p", "review").prompt);
    }

    @Test
    void theRunsOptionsReachTheSessionOptions() {
        RootCommand root = parsed("-p", "x", "--max-turns", "3", "--append-system-prompt", "Be brief.",
                "--allowedTools", "Bash(git diff:*) Read", "--disallowedTools", "bash(git push *)");
        dev.quiver.api.host.RunOptions run = root.run();
        assertEquals(3, run.maxTurns());
        assertEquals(java.util.Optional.of("Be brief."), run.appendSystemPrompt());
        assertEquals(Map.of("bash", List.of("git diff *"), "read_file", List.of("*")), run.allowedTools());
        assertEquals(Map.of("bash", List.of("git push *")), run.disallowedTools());
        assertEquals(run, root.common.session(false).withRun(root.run()).run());
        assertTrue(run.maxTurnsGiven());
        assertEquals(java.util.Optional.empty(), run.agent());
    }

    @Test
    void agentAndThinkReachTheRunAndAnUnsetMaxTurnsLeavesTheVariantsCap() {
        dev.quiver.api.host.RunOptions run = parsed("-p", "x", "--agent", "Plan", "--think", "max").run();
        assertEquals(java.util.Optional.of("plan"), run.agent());
        assertEquals(java.util.Optional.of("max"), run.thinking());
        assertFalse(run.maxTurnsGiven());
        assertEquals(2, run("-p", "x", "--agent", "turbo"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(
                "Unknown agent \"turbo\". Available: default, quick, deep, plan, review"), err.toString());
    }

    @Test
    void aLoneWordCloseToACommandIsSuggestedNotSentToTheModel() {
        assertEquals(2, run("tool"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("'tool' is no command. Did you mean: quiver tools?"), err.toString());
    }

    @Test
    void badValuesAreUsageErrorsNamingWhatToGive() {
        assertEquals(2, run("-p", "x", "--output-format", "xml"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("expected one of text, json, stream-json but was 'xml'"),
                err.toString());
        assertEquals(2, run("-p", "x", "--max-turns", "0"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--max-turns': it must be 1 or more, not 0"), err.toString());
        assertEquals(2, run("--max-turns", "0", "tools"), "before a subcommand too");
        assertEquals(2, run("-p", "x", "--allowedTools", "bash(git"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("'bash(git' is missing its closing ')'"), err.toString());
        assertEquals(2, run("-p", "review this", "and that"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("the prompt was given twice"), err.toString());
        assertEquals(2, run("-p", "review", "--allowedTools", "read_file", "bash"),
                "a second word after the rules is no rule: nothing runs with bash allowed");
    }

    @Test
    void aRuleOptionTakesOneValueSoASubcommandKeepsItsArguments() {
        CommandLine line = new CommandLine(new RootCommand(null, "", terminal()));
        String[] args = {"check", "--allowedTools", "read_file", "bash", "{\"command\":\"ls\"}"};
        Subcommands.add(line, args);
        CommandLine.ParseResult parsed = line.parseArgs(args);
        CheckCommand check = (CheckCommand) parsed.subcommand().commandSpec().userObject();
        assertEquals(Map.of("read_file", List.of("*")), ToolRules.merged(check.common.allowedTools));
    }
}
