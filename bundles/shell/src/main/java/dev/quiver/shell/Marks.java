package dev.quiver.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.logging.Logger;

/**
 * How every process a command started is recognised, wherever it went: two marks every command and
 * all its descendants inherit.
 *
 * <ul>
 * <li>The environment marker {@code QUIVER_SHELL_RUN=OWNER/ID} ({@link ProcessGroups#MARKER}), which
 * {@code env -i} removes.
 * <li>The tag: a unique value of the resource limit {@code RLIMIT_RTTIME} (soft and hard), set by
 * {@code prlimit} before the command starts. The kernel copies resource limits to every child and
 * keeps them across {@code exec}, {@code setsid} and {@code env -i}, and {@code /proc/PID/limits}
 * shows them even for a zombie or after the process was re-parented. The limit only bounds the CPU
 * time of a real-time-scheduled process, which an unprivileged one cannot become; the tagged value is
 * about 185,000 years, so nothing ever reaches it. A process can change its own limit, so a program
 * that sets its real-time limit (a sound server through rtkit, {@code ulimit -R}) loses the tag; it
 * cannot raise the hard limit again without privileges.
 * </ul>
 *
 * <p>Every process the JDK starts inherits this JVM's own limit (normally unlimited), and an
 * unprivileged process can lower its limits but never raise its hard limit again. So among this
 * JVM's children (the orphans re-parented to it, {@link Reaper}) a limit that is neither this JVM's
 * nor a tag belongs to a command's process that set its own limit: it dropped its tag, whether to
 * escape or as a sound server does.
 *
 * <p>A tag is {@code 0x51} in the top byte, the owner (a random number per shell, written in its
 * {@link Journal}, so a crashed run's commands can be found after it died) in the next 28 bits and the
 * command's number in the last 28.
 */
final class Marks {

    private static final Logger LOG = Logger.getLogger(Marks.class.getName());
    private static final long MAGIC = 0x51;
    private static final int NUMBER_BITS = 28;
    private static final long NUMBER_MASK = (1L << NUMBER_BITS) - 1;
    private static final String LIMIT_LINE = "Max realtime timeout";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** {@code prlimit}, looked for once; without it commands carry only the environment marker. */
    private static final Optional<Path> PRLIMIT = findPrlimit();

    /** This JVM's own soft {@code RLIMIT_RTTIME}: what the processes the JDK starts inherit. */
    private static final OptionalLong OWN = limit(ProcessHandle.current().pid());

    private Marks() {
    }

    /** What a process's real-time limit says of where it came from. */
    enum Origin {
        /** This JVM's own limit: the JDK started it, or what the JDK started did (or commands carry no tag here). */
        JVM,
        /** A tag: a command's process. */
        TAGGED,
        /** Another value: a command's process that dropped its tag by setting its own limit. */
        UNTAGGED
    }

    /**
     * The marks of one command.
     *
     * @param environment the value of {@link ProcessGroups#MARKER}
     * @param tag the value of {@code RLIMIT_RTTIME}
     */
    record Mark(String environment, long tag) {
    }

    private static Optional<Path> findPrlimit() {
        String path = System.getenv("PATH");
        Optional<Path> found = Sandbox.onPath("prlimit", (path == null ? "" : path + ":") + "/usr/bin:/bin");
        if (found.isEmpty()) {
            LOG.warning("prlimit (util-linux) is not installed: a process that leaves its command's session and "
                    + "clears its environment (env -i setsid ...) can outlive the command");
        }
        return found;
    }

    /**
     * A new owner: 28 random bits, never 0. A JVM that itself runs under a tag (Quiver started by a
     * Quiver command) can only lower its hard limit, so its owners are drawn below the inherited one:
     * every tag it sets is then smaller than the limit it has, and {@code prlimit} may set it.
     */
    static long newOwner() {
        return newOwner(OWN.isPresent() ? owner(OWN.getAsLong()) : -1);
    }

    /** A new owner below {@code inherited}, the owner of the JVM's own tag, or any when that is no owner. */
    static long newOwner(long inherited) {
        return 1 + RANDOM.nextInt((int) (inherited > 1 ? inherited - 1 : NUMBER_MASK));
    }

    /** The tag of the command numbered {@code number} of {@code owner}. */
    static long tag(long owner, long number) {
        return MAGIC << 56 | (owner & NUMBER_MASK) << NUMBER_BITS | (number & NUMBER_MASK);
    }

    /** The owner a tag names; -1 for a value that is no tag. */
    static long owner(long tag) {
        return tag >>> 56 == MAGIC ? (tag >>> NUMBER_BITS) & NUMBER_MASK : -1;
    }

    /** What goes before the command line so that it runs tagged; empty without {@code prlimit}. */
    static List<String> tagging(long tag) {
        return PRLIMIT.map(prlimit -> List.of(prlimit.toString(), "--rttime=" + tag + ":" + tag)).orElse(List.of());
    }

    /** Whether commands are tagged here. */
    static boolean tagsAvailable() {
        return PRLIMIT.isPresent();
    }

    /** The process's soft {@code RLIMIT_RTTIME}, empty when unlimited or unreadable (the process is gone). */
    static OptionalLong limit(long pid) {
        String text;
        try {
            text = Files.readString(Path.of("/proc", Long.toString(pid), "limits"), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException gone) {
            return OptionalLong.empty();
        }
        int at = text.indexOf(LIMIT_LINE);
        if (at < 0) {
            return OptionalLong.empty();
        }
        int end = text.indexOf('\n', at);
        String[] fields = text.substring(at + LIMIT_LINE.length(), end < 0 ? text.length() : end).trim().split("\\s+");
        try {
            return OptionalLong.of(Long.parseUnsignedLong(fields[0]));
        } catch (NumberFormatException unlimited) {
            return OptionalLong.empty();
        }
    }

    /**
     * Where the process came from by its limit. A process that is gone reads as unlimited; a JVM that
     * itself runs under a tag (Quiver started from a Quiver command) passes that tag to all it starts,
     * so it counts as this JVM's own and never as a command's.
     */
    static Origin origin(long pid) {
        OptionalLong limit = limit(pid);
        if (limit.equals(OWN)) {
            return Origin.JVM;
        }
        return limit.isPresent() && owner(limit.getAsLong()) > 0 ? Origin.TAGGED : Origin.UNTAGGED;
    }
}
