package dev.quiver.cli.terminal;

import dev.quiver.api.host.ToolInfo;
import java.util.ArrayList;
import java.util.List;

/** What {@code /tools} prints: how many tools the next step offers of those registered, and where each comes from. */
public final class ToolsReport {

    private ToolsReport() {
    }

    /**
     * {@code 14 offered this turn of 16 registered}, then one line per registered tool: its name,
     * its set or, for a tool without one, the bundle it comes from, and whether the mode or the tool
     * sets withhold it.
     *
     * @param offered what the next step sends the model ({@code Session.tools()})
     * @param registered every tool in the registry ({@code Session.registered()})
     */
    public static List<String> lines(List<ToolInfo> offered, List<ToolInfo> registered) {
        List<String> lines = new ArrayList<>();
        lines.add(offered.size() + " offered this turn of " + registered.size() + " registered");
        int width = 4;
        for (ToolInfo tool : registered) {
            width = Math.max(width, tool.name().length());
        }
        List<String> names = offered.stream().map(ToolInfo::name).toList();
        for (ToolInfo tool : registered) {
            String origin = tool.set().map(set -> set).orElse("from " + tool.bundle());
            StringBuilder line = new StringBuilder("  ").append(tool.name());
            line.append(" ".repeat(width - tool.name().length() + 2)).append(origin);
            if (!names.contains(tool.name())) {
                line.append("  (withheld)");
            }
            tool.note().ifPresent(note -> line.append("  (").append(note).append(')'));
            lines.add(line.toString());
        }
        return lines;
    }

    /** The change between two lists of offered tool names: {@code tools changed: +git_diff −bash}; empty when none. */
    public static String change(List<String> before, List<String> after) {
        StringBuilder out = new StringBuilder();
        for (String name : after) {
            if (!before.contains(name)) {
                out.append(" +").append(name);
            }
        }
        for (String name : before) {
            if (!after.contains(name)) {
                out.append(" −").append(name);
            }
        }
        return out.length() == 0 ? "" : "tools changed:" + out + " (" + after.size() + " offered)";
    }
}
