package dev.quiver.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The subcommands of {@code quiver}, added to the root command line on demand. picocli builds the
 * model of every command it is given by reflection, which is a large part of a command's start-up;
 * a command line that names its subcommand ({@code quiver tools --json}) gets that one only. Any
 * other command line (none named, help, a word picocli will reject) gets them all, so usage,
 * suggestions and errors read exactly as with the full tree.
 */
final class Subcommands {

    /** In the order the usage lists them. */
    private static final Map<String, Supplier<Object>> ALL = new LinkedHashMap<>();

    static {
        ALL.put("tools", ToolsCommand::new);
        ALL.put("call", CallCommand::new);
        ALL.put("check", CheckCommand::new);
        ALL.put("sessions", SessionsCommand::new);
        ALL.put("undo", UndoCommand::new);
        ALL.put("trust", TrustCommand::new);
        ALL.put("mcp", McpCommand::new);
        ALL.put("catalog", CatalogCommand::new);
    }

    private Subcommands() {
    }

    /** Adds to {@code root} the subcommand {@code args} names, or every subcommand when it names none. */
    static void add(CommandLine root, String[] args) {
        String named = named(root.getCommandSpec(), args);
        for (Map.Entry<String, Supplier<Object>> entry : ALL.entrySet()) {
            if (named == null || named.equals(entry.getKey())) {
                root.addSubcommand(entry.getKey(), entry.getValue().get());
            }
        }
    }

    /**
     * The subcommand the arguments name: their first positional word, skipping the root's options
     * and the values of those that take one; {@code null} when that word is no subcommand, when help
     * or the version is asked for first, or when an option is one the root does not know (picocli
     * then reports it against the full tree).
     */
    static String named(CommandSpec root, String[] args) {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if ("--".equals(arg)) {
                return null;
            }
            if (!arg.startsWith("-") || arg.length() == 1) {
                return ALL.containsKey(arg) ? arg : null;
            }
            int equals = arg.indexOf('=');
            OptionSpec option = root.findOption(equals > 0 ? arg.substring(0, equals) : arg);
            if (option == null || option.usageHelp() || option.versionHelp()) {
                return null; // help prints the root's usage, which lists every subcommand
            }
            if (equals < 0 && option.arity().max() > 0) {
                i++; // its value
            }
        }
        return null;
    }
}
