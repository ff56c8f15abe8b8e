/**
 * What a bash command line does, read once for everyone who judges it: {@link dev.quiver.bash.ShellParser}
 * turns a line into {@link dev.quiver.bash.ParsedCommand}'s simple commands (wrappers stripped,
 * words marked literal or computed, redirections attached), {@link dev.quiver.bash.CommandModel} reads
 * each one once — its program, its options as the program reads them, what it reads, writes and deletes,
 * whether it runs privileged or runs code it is given, why it cannot be judged — and
 * {@link dev.quiver.bash.CommandGuard} refuses what destroys work whatever the rules say. Paths are
 * resolved in the {@link dev.quiver.bash.ShellWorkspace} the caller describes. The kernel's permission
 * engine and guard ask this package; nothing else in Quiver parses bash.
 *
 * <p>Only the models and the entry points are public; the parser's machinery, the option tables and
 * the path resolver are package-private.
 * 1.1 added {@link dev.quiver.bash.ParsedCommand#unjudgeable()}, the reasons a line cannot be judged.
 */
@Export
@Version("1.1.0")
package dev.quiver.bash;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
