package dev.quiver.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code bin/quiver} finds the command before the JVM starts (to choose the compilers) with its own
 * copy of what {@link Subcommands#named} reads from picocli: the root options that take a value, and
 * the subcommands. The copy must follow the command line.
 */
class LauncherScriptTest {

    private static final Path SCRIPT = Path.of("..", "..", "distribution", "src", "main", "dist", "bin", "quiver");

    private static Set<String> caseList(String script, String marker) {
        Matcher line = Pattern.compile("^\\s*([-|a-zA-Z]+)\\) " + Pattern.quote(marker), Pattern.MULTILINE).matcher(script);
        assertTrue(line.find(), "bin/quiver has a case ending in '" + marker + "'");
        return new TreeSet<>(Set.of(line.group(1).split("\\|")));
    }

    @Test
    void theScriptKnowsEveryRootOptionThatTakesAValue() throws Exception {
        String script = Files.readString(SCRIPT);
        Set<String> valued = new TreeSet<>();
        for (OptionSpec option : new CommandLine(new RootCommand(null, "", null)).getCommandSpec().options()) {
            if (option.arity().max() > 0) {
                valued.addAll(Set.of(option.names()));
            }
        }
        assertEquals(valued, caseList(script, "skip=1"));
    }

    @Test
    void theScriptsOneShotCommandsAreSubcommands() throws Exception {
        Set<String> oneShot = caseList(Files.readString(SCRIPT), "return 0");
        CommandLine root = new CommandLine(new RootCommand(null, "", null));
        Subcommands.add(root, new String[0]);
        Set<String> subcommands = new TreeSet<>(root.getSubcommands().keySet());
        assertTrue(subcommands.containsAll(oneShot), oneShot + " not all in " + subcommands);
        assertEquals(Set.of("mcp"), new TreeSet<>(subcommands) {{ removeAll(oneShot); }},
                "every subcommand but mcp (long-running) is one-shot");
    }
}
