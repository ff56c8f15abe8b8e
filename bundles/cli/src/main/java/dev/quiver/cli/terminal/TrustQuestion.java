package dev.quiver.cli.terminal;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.WorkspaceTrust;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The question the interactive terminal asks once, before the session opens, in a workspace that is
 * not trusted and whose files ask for more than narrowing: trust it? Yes records the trust (as
 * {@code quiver trust} does); anything else starts the session with those files held back, and the
 * header says what was ignored. Never asked with {@code --trust-workspace}, nor where there is
 * nothing to trust.
 */
final class TrustQuestion {

    private TrustQuestion() {
    }

    /**
     * Asks when there is something to trust.
     *
     * @param read shows a prompt and returns the answer (null at the end of input)
     * @return a line to show about what was decided; empty when nothing was asked
     */
    static Optional<String> ask(Launch launch, Function<String, String> read) {
        if (launch.options().trustWorkspace()) {
            return Optional.empty();
        }
        WorkspaceTrust trust;
        try {
            trust = launch.kernel().workspaceTrust(launch.options().workspace());
        } catch (HostException e) {
            return Optional.empty(); // opening the session reports it
        }
        if (trust.trusted() || trust.held().isEmpty()) {
            return Optional.empty();
        }
        String answer = read.apply("This folder (" + trust.root() + ") is not trusted. Its files ask for: "
                + String.join(", ", trust.held()) + ". Trust it, so they count in full until they change? [y/N] ");
        String said = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT);
        if (said.equals("y") || said.equals("yes")) {
            try {
                launch.kernel().trust(trust.root());
                return Optional.of("Trusted " + trust.root() + ".");
            } catch (HostException e) {
                return Optional.of("Could not trust " + trust.root() + ": " + e.getMessage());
            }
        }
        return Optional.of("Not trusted: those settings stay ignored. `quiver trust` trusts the folder later.");
    }
}
