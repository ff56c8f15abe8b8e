package dev.quiver.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.ToolInfo;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code quiver tools [--json]}: the live registry. */
@Command(name = "tools", mixinStandardHelpOptions = true, description = "List the tools registered now")
final class ToolsCommand implements Callable<Integer> {

    @ParentCommand
    RootCommand root;

    @Mixin
    CommonOptions common = new CommonOptions();

    @Option(names = "--json", description = "One JSON array: name, set, access, decision, bundle, schema_bytes")
    boolean json;

    @Option(names = "--with-mcp", description = "Start the configured MCP servers to list their tools too (tools alone starts nothing)")
    boolean withMcp;

    @Override
    public Integer call() {
        PrintStream out = root.terminal.out();
        CommonOptions options = common.over(root.common);
        PrintStream header = json ? root.terminal.err() : out;
        boolean recordable = false;
        try (Session session = root.inspect(options, header, withMcp)) {
            List<ToolInfo> tools = session.tools();
            if (json) {
                ArrayNode array = Output.MAPPER.createArrayNode();
                for (ToolInfo tool : tools) {
                    ObjectNode node = array.addObject();
                    node.put("name", tool.name());
                    node.put("set", tool.set().orElse(null));
                    node.put("access", tool.access());
                    node.put("decision", tool.decision().id());
                    node.put("bundle", tool.bundle());
                    node.put("schema_bytes", tool.schemaBytes());
                    tool.note().ifPresent(note -> node.put("note", note));
                }
                Output.line(out, array);
                // a warning may not be printed again by a record (it could be about something outside the
                // record's inputs), nor may a sandbox state the next run might find otherwise
                recordable = !withMcp && !options.yolo && session.warnings().isEmpty()
                        && Header.sandboxWarning(session, root.services.shell()).isEmpty();
            } else {
                int total = 0;
                out.printf("%-18s %-10s %-8s %-8s %7s  %s%n", "TOOL", "SET", "ACCESS", "DECISION", "BYTES", "BUNDLE");
                for (ToolInfo tool : tools) {
                    total += tool.schemaBytes();
                    out.printf("%-18s %-10s %-8s %-8s %7d  %s%s%n", tool.name(), tool.set().orElse("-"), tool.access(),
                            tool.decision().id(), tool.schemaBytes(), tool.bundle(),
                            tool.note().map(n -> "  (" + n + ")").orElse(""));
                }
                out.printf("%d tools, %,d schema bytes sent on every request%n", tools.size(), total);
                // what /tools in the terminal also lists: installed, but not offered (an opt-in set, a narrowing)
                List<String> names = tools.stream().map(ToolInfo::name).toList();
                List<String> withheld = session.registered().stream().filter(tool -> !names.contains(tool.name()))
                        .map(tool -> tool.name() + tool.set().map(set -> " (" + set + ")").orElse("")).toList();
                if (!withheld.isEmpty()) {
                    out.printf("%d more installed, not offered (see toolSets): %s%n", withheld.size(),
                            String.join(", ", withheld));
                }
                // what each MCP server costs: its tools are mcp__<server>__<tool>, registered by the MCP bundle
                java.util.Map<String, int[]> servers = new java.util.TreeMap<>();
                for (ToolInfo tool : tools) {
                    int end = tool.name().indexOf("__", 5);
                    if ("dev.quiver.mcp".equals(tool.bundle()) && tool.name().startsWith("mcp__") && end > 5) {
                        int[] sum = servers.computeIfAbsent(tool.name().substring(5, end), k -> new int[2]);
                        sum[0]++;
                        sum[1] += tool.schemaBytes();
                    }
                }
                servers.forEach((server, sum) -> out.printf("mcp server %s: %d tools, %,d schema bytes%n", server, sum[0],
                        sum[1]));
            }
        }
        // only once the session closed without a failure: a run that failed at its close is not one to give again
        root.recordable = recordable;
        return ExitCodes.OK;
    }
}
