package dev.quiver.cli.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/** Chooses the interactive front end: JLine on a real terminal, line mode in a pipe. */
public final class TerminalFrontEnd {

    private static final Logger LOG = Logger.getLogger(TerminalFrontEnd.class.getName());

    private TerminalFrontEnd() {
    }

    /** Runs the interactive session; the exit code. */
    public static int run(Launch launch) {
        if (System.getProperty(TerminalBuilder.PROP_DISABLE_ALTERNATE_CHARSET) == null) {
            // read once, when JLine's styled strings are first used: box drawing stays Unicode
            System.setProperty(TerminalBuilder.PROP_DISABLE_ALTERNATE_CHARSET, "true");
        }
        if (launch.systemTerminal() && interactive() && !"dumb".equals(launch.environment().get("TERM"))) {
            Terminal terminal = systemTerminal();
            if (terminal != null) {
                return new JLineFrontEnd(launch, terminal).run();
            }
        }
        return new LineFrontEnd(launch).run();
    }

    /**
     * Whether standard input and output are a terminal. Java 17 has no console when either is
     * redirected; from Java 22 on there may be one anyway, and {@code Console.isTerminal()} tells.
     */
    static boolean interactive() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException | RuntimeException olderJava) {
            return true;
        }
    }

    /** The process's terminal, or null when JLine can only offer a dumb one. */
    static Terminal systemTerminal() {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // JLine finds its terminal providers through the context class loader; in OSGi that is not its own
        thread.setContextClassLoader(TerminalBuilder.class.getClassLoader());
        try {
            Terminal terminal = TerminalBuilder.builder().name("quiver").system(true).dumb(true)
                    .encoding(StandardCharsets.UTF_8).jna(false).jansi(false).build();
            if (Terminal.TYPE_DUMB.equals(terminal.getType()) || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType())) {
                terminal.close();
                return null;
            }
            return terminal;
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "No terminal; using line mode", e);
            return null;
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
