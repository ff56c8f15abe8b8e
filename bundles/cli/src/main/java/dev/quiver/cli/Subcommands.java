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
     * The subcommand a lone word looks like a typo of ({@code tool}, {@code chekc}, {@code sesions}): one
     * edit away from a name, or two from a name of six letters or more. Anything else — a word further
     * off, or text with a space — is a prompt for the interactive agent ({@code quiver "fix the build"}).
     */
    static java.util.Optional<String> typoOf(String word) {
        if (!word.matches("[A-Za-z-]+") || ALL.containsKey(word)) {
            return java.util.Optional.empty();
        }
        String lower = word.toLowerCase(java.util.Locale.ROOT);
        for (String name : ALL.keySet()) {
            if (distance(lower, name) <= (name.length() >= 6 ? 2 : 1)) {
                return java.util.Optional.of(name);
            }
        }
        return java.util.Optional.empty();
    }

    /** Edits (insert, delete, replace, swap two neighbours) that turn one word into the other. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
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
