package dev.quiver.cli;

import dev.quiver.api.Shell;
import dev.quiver.api.host.Session;
import java.util.Optional;

/**
 * The one start-up line of {@code -p}, {@code call}, {@code check} and {@code tools}: version,
 * workspace, model and the tool sets that loaded, and — only when shell commands would not run in
 * the sandbox — the shell's sandbox state ({@code · NOT sandboxed: bubblewrap (bwrap) is not
 * installed}), as {@link Shell#status} words it. It goes where the header goes: stderr in the
 * machine-readable modes, never their stdout.
 */
final class Header {

    private Header() {
    }

    /**
     * The line.
     *
     * @param shell the shell service, empty when no shell bundle runs (then no command runs at all,
     *     and the line says nothing of a sandbox)
     */
    static String line(String version, Session session, Optional<Shell> shell) {
        String sets = session.toolSets().isEmpty() ? "none" : String.join(", ", session.toolSets());
        String line = "quiver " + version + " · workspace " + session.workspace() + " · model "
                + session.model().orElse("none")
                + dev.quiver.cli.terminal.StartupHeader.variant(session).map(variant -> " · " + variant).orElse("")
                + " · tools " + sets;
        return sandboxWarning(session, shell).map(warning -> line + " · " + warning).orElse(line);
    }

    /**
     * What the header says of the sandbox: nothing when commands run sandboxed or no shell runs;
     * otherwise the shell's own words, {@code NOT sandboxed: <reason>} or why every command is
     * refused, on one line.
     */
    static Optional<String> sandboxWarning(Session session, Optional<Shell> shell) {
        if (shell.isEmpty()) {
            return Optional.empty();
        }
        String status;
        try {
            status = shell.get().status(session.config("shell"));
        } catch (RuntimeException | LinkageError e) {
            status = "sandbox state unknown (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")";
        }
        if (status == null || status.isBlank()) {
            status = "sandbox state unknown (the shell did not say)";
        }
        String oneLine = status.strip().replaceAll("\\s*\\R\\s*", " ");
        return oneLine.startsWith("sandboxed") ? Optional.empty() : Optional.of(oneLine);
    }
}
