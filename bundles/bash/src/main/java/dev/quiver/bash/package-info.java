/**
 * What a bash command line does, read once for everyone who judges it: {@link dev.quiver.bash.ShellParser}
 * turns a line into {@link dev.quiver.bash.ParsedCommand}'s simple commands (wrappers stripped,
 * words marked literal or computed, redirections attached), and {@link dev.quiver.bash.CommandGuard}
 * refuses what destroys work whatever the rules say. The kernel's permission engine and guard ask this
 * package; nothing else in Quiver parses bash.
 *
 * <p>Only the model and the two entry points are public; the parser's machinery is package-private.
 * 1.1 added {@link dev.quiver.bash.ParsedCommand#unjudgeable()}, the reasons a line cannot be judged.
 */
@Export
@Version("1.1.0")
package dev.quiver.bash;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
