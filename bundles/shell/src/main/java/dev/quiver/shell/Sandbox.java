package dev.quiver.shell;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The operating-system sandbox: bubblewrap. The workspace is mounted read-write and everything
 * else read-only, {@code /tmp}, {@code /var/tmp} and {@code /run} are private and empty (so no
 * socket of the host, such as Docker's or D-Bus's, is reachable), there is no network unless
 * allowed, all capabilities are dropped (even for root), the command gets pid, IPC and UTS
 * namespaces of its own, and every secret file of the workspace is covered by an empty read-only
 * file. The sandbox's own configuration ({@code .quiver}) and the places git runs code from
 * ({@code .git/hooks}, {@code .git/config}) stay read-only, so a sandboxed command cannot switch the
 * sandbox off or plant code that runs outside it.
 */
final class Sandbox {

    /** Shown and sent to the model when bwrap is missing. */
    static final String NOT_INSTALLED = "bubblewrap (bwrap) is not installed";

    private static final long PROBE_MILLIS = 10_000;
    private static final String INTERRUPTED = "the check of bubblewrap was interrupted";

    private final String searchPath;
    private volatile Availability availability;
    private Path empty;

    /**
     * Whether the sandbox can be used here.
     *
     * @param bwrap the bwrap executable, when found
     * @param problem why it cannot be used; empty when it can
     */
    record Availability(Optional<Path> bwrap, String problem) {

        boolean usable() {
            return bwrap.isPresent() && problem.isEmpty();
        }
    }

    /** @param searchPath where to look for bwrap, in the syntax of {@code PATH} */
    Sandbox(String searchPath) {
        this.searchPath = searchPath == null ? "" : searchPath;
    }

    /** Finds bwrap and checks once that it can create a sandbox here (user namespaces may be disabled). */
    Availability availability() {
        Availability known = availability;
        if (known == null) {
            synchronized (this) {
                known = availability;
                if (known == null) {
                    known = probe();
                    if (!known.problem().equals(INTERRUPTED)) {
                        availability = known;
                    }
                }
            }
        }
        return known;
    }

    /** Starts {@link #availability}'s check on a daemon thread: its first caller finds it done or under way. */
    void probeAhead() {
        Thread probe = new Thread(this::availability, "quiver-sandbox-probe");
        probe.setDaemon(true);
        probe.start();
    }

    private Availability probe() {
        Optional<Path> bwrap = find("bwrap");
        if (bwrap.isEmpty()) {
            return new Availability(bwrap, NOT_INSTALLED);
        }
        List<String> command = new ArrayList<>();
        command.add(bwrap.get().toString());
        command.addAll(isolation(false));
        command.addAll(List.of("--", "true"));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            byte[] error = process.getErrorStream().readNBytes(4096);
            if (!process.waitFor(PROBE_MILLIS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return new Availability(bwrap, "bubblewrap did not start a sandbox within " + PROBE_MILLIS / 1000 + " s");
            }
            if (process.exitValue() != 0) {
                String first = new String(error, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("exit code "
                        + process.exitValue());
                return new Availability(bwrap, "bubblewrap cannot create a sandbox here (" + first + ")");
            }
            return new Availability(bwrap, "");
        } catch (IOException e) {
            return new Availability(bwrap, "bubblewrap could not be run (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // not kept: the next call checks again
            return new Availability(bwrap, INTERRUPTED);
        }
    }

    /**
     * The command line that runs {@code bash -lc LINE} in the sandbox.
     *
     * @param bwrap the executable
     * @param root the workspace root, a real path
     * @param secrets files to mask, absolute
     * @param network whether the network stays reachable
     */
    List<String> wrap(Path bwrap, Path root, List<Path> secrets, boolean network, String line) throws IOException {
        List<String> command = new ArrayList<>(64 + 3 * secrets.size());
        command.add(bwrap.toString());
        command.addAll(isolation(network));
        if (network) {
            // /run is private, so a resolv.conf that links into it (systemd-resolved) is mounted back
            Path resolv = Path.of("/etc/resolv.conf");
            try {
                Path real = resolv.toRealPath();
                if (real.startsWith("/run/") || real.startsWith("/var/run/")) {
                    command.addAll(List.of("--ro-bind", real.toString(), real.toString()));
                }
            } catch (IOException missing) {
                // no resolver configuration to keep
            }
        }
        String workspace = root.toString();
        command.addAll(List.of("--bind", workspace, workspace));
        for (String protectedPath : List.of(".quiver", ".git/hooks", ".git/config")) {
            Path path = root.resolve(protectedPath);
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(path)) {
                command.addAll(List.of("--ro-bind", path.toString(), path.toString()));
            }
        }
        if (!secrets.isEmpty()) {
            String mask = emptyFile().toString();
            for (Path secret : secrets) {
                command.addAll(List.of("--ro-bind", mask, secret.toString()));
            }
        }
        command.addAll(List.of("--chdir", workspace, "--setenv", "TMPDIR", "/tmp", "--setenv", "QUIVER_SANDBOX",
                "bubblewrap", "--", "bash", "-lc", line));
        return command;
    }

    /** Namespaces, capabilities and the mounts every sandbox has; the probe checks exactly these. */
    private static List<String> isolation(boolean network) {
        List<String> options = new ArrayList<>(List.of("--unshare-all"));
        if (network) {
            options.add("--share-net");
        }
        options.addAll(List.of("--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
        for (String scratch : List.of("/var/tmp", "/run", "/var/run")) {
            Path path = Path.of(scratch);
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                options.addAll(List.of("--tmpfs", scratch));
            }
        }
        return options;
    }

    /** The empty, read-only file mounted over every secret; made again if something removed or filled it. */
    private synchronized Path emptyFile() throws IOException {
        if (empty != null && Files.isRegularFile(empty, LinkOption.NOFOLLOW_LINKS) && Files.size(empty) == 0) {
            return empty;
        }
        Path file = Files.createTempFile("quiver-masked-", "",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r--r--r--")));
        file.toFile().deleteOnExit();
        empty = file;
        return file;
    }

    private Optional<Path> find(String executable) {
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, executable);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
