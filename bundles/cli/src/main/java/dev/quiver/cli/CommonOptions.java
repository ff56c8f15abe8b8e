package dev.quiver.cli;

import dev.quiver.api.host.RunOptions;
import dev.quiver.api.host.SessionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Options every command takes. They may come before or after the subcommand
 * ({@code quiver --yolo call ...} or {@code quiver call --yolo ...}); a value given after wins.
 */
final class CommonOptions {

    @Option(names = "--workspace", paramLabel = "DIR", description = "Workspace root (default: the current directory)")
    Path workspace;

    @Option(names = "--config", paramLabel = "FILE", description = "Config file read before the workspace's and the user's")
    Path config;

    @Option(names = "--yolo", description = "Asks become allows; guards and deny rules still refuse")
    boolean yolo;

    @Option(names = "--read-only", description = "Offer only read and state tools")
    boolean readOnly;

    @Option(names = "--model", paramLabel = "PROVIDER/MODEL", description = "Model to use, e.g. openai/gpt-4.1")
    String model;

    @Option(names = "--base-url", paramLabel = "URL", description = "Model server, e.g. http://127.0.0.1:8000/v1")
    String baseUrl;

    @Option(names = "--trust-workspace", description = "Trust the workspace's config for this run only (a CI job on its own repository)")
    boolean trustWorkspace;

    @Option(names = "--mcp-config", paramLabel = "FILE", description = "MCP servers for this run, from a file shaped like Claude Code's .mcp.json ({\"mcpServers\": {...}}); may be repeated")
    List<Path> mcpConfig = new ArrayList<>();

    // one value per occurrence: a list taking every following word would swallow a subcommand's arguments
    // (check --allowedTools read_file bash '{...}' would allow all of bash)
    @Option(names = {"--allowedTools", "--allowed-tools"}, paramLabel = "RULES",
            converter = ToolRules.Converter.class,
            description = "Allow these calls without asking in this run: TOOL or TOOL(PATTERN), comma- or space-separated, "
                    + "e.g. \"bash(git diff *),read_file\"; never past a deny rule, a guard, --read-only or the managed policy")
    List<ToolRules> allowedTools = new ArrayList<>();

    @Option(names = {"--disallowedTools", "--disallowed-tools"}, paramLabel = "RULES",
            converter = ToolRules.Converter.class,
            description = "Deny these calls in this run, on top of every rule: TOOL or TOOL(PATTERN), e.g. \"bash(git push *)\"")
    List<ToolRules> disallowedTools = new ArrayList<>();

    @Option(names = "--agent", paramLabel = "NAME", converter = AgentName.class,
            description = "Agent variant: default, quick, deep, plan or review (plan and review are offered no tool "
                    + "that writes, runs or reaches the network)")
    String agent;

    @Option(names = "--think", paramLabel = "LEVEL", converter = ThinkingLevel.class,
            description = "Thinking level over the agent variant's: off, low, medium, high or max")
    String think;

    /** picocli's converter for {@code --agent}: a variant's name, or a usage error (exit 2) listing them. */
    static final class AgentName implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return oneOf(value, RunOptions.AGENTS, "agent");
        }
    }

    /** picocli's converter for {@code --think}: a level's name, or a usage error (exit 2) listing them. */
    static final class ThinkingLevel implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return oneOf(value, RunOptions.THINKING, "thinking level");
        }
    }

    private static String oneOf(String value, List<String> names, String what) {
        String name = value.strip().toLowerCase(java.util.Locale.ROOT);
        if (!names.contains(name)) {
            throw new picocli.CommandLine.TypeConversionException("Unknown " + what + " \"" + value + "\". Available: "
                    + String.join(", ", names));
        }
        return name;
    }

    /** These options with unset values taken from the options given before the subcommand. */
    CommonOptions over(CommonOptions parent) {
        CommonOptions merged = new CommonOptions();
        merged.workspace = workspace != null ? workspace : parent.workspace;
        merged.config = config != null ? config : parent.config;
        merged.yolo = yolo || parent.yolo;
        merged.readOnly = readOnly || parent.readOnly;
        merged.model = model != null ? model : parent.model;
        merged.baseUrl = baseUrl != null ? baseUrl : parent.baseUrl;
        merged.trustWorkspace = trustWorkspace || parent.trustWorkspace;
        merged.agent = agent != null ? agent : parent.agent;
        merged.think = think != null ? think : parent.think;
        merged.mcpConfig = new ArrayList<>(parent.mcpConfig);
        merged.mcpConfig.addAll(mcpConfig);
        merged.allowedTools = new ArrayList<>(parent.allowedTools);
        merged.allowedTools.addAll(allowedTools);
        merged.disallowedTools = new ArrayList<>(parent.disallowedTools);
        merged.disallowedTools.addAll(disallowedTools);
        return merged;
    }

    SessionOptions session(boolean interactive) {
        return session(interactive, Optional.empty());
    }

    SessionOptions session(boolean interactive, Optional<String> resume) {
        return session(interactive, resume, false);
    }

    /** @param inspectOnly the session only lists tools or checks calls, and starts nothing */
    SessionOptions session(boolean interactive, Optional<String> resume, boolean inspectOnly) {
        return new SessionOptions(root(), Optional.ofNullable(config), yolo, interactive, readOnly,
                Optional.ofNullable(model).filter(s -> !s.isBlank()), Optional.ofNullable(baseUrl).filter(s -> !s.isBlank()),
                resume, trustWorkspace, inspectOnly, mcpConfig.stream().map(file -> file.toAbsolutePath()).toList(),
                run(Optional.empty(), Optional.empty()));
    }

    /**
     * The run's settings: these options' tool rules, agent variant and thinking level with the step cap
     * (empty when not given: the variant's) and system prompt text given.
     */
    RunOptions run(Optional<Integer> maxTurns, Optional<String> appendSystemPrompt) {
        return new RunOptions(maxTurns.orElse(RunOptions.DEFAULT_MAX_TURNS), ToolRules.merged(allowedTools),
                ToolRules.merged(disallowedTools), appendSystemPrompt, Optional.ofNullable(agent),
                Optional.ofNullable(think), maxTurns.isPresent());
    }

    /** The workspace: --workspace, else the current directory. */
    Path root() {
        return workspace != null ? workspace : Path.of("").toAbsolutePath();
    }
}
