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
 * The operating-system sandbox: bubblewrap, showing a command a minimal view of the machine
 * ({@link SandboxView}). It sees the system folders read-only ({@code /usr}, {@code /bin},
 * {@code /lib*}, {@code /etc} without its secrets such as {@code /etc/shadow}, {@code /opt}), the
 * toolchains on its {@code PATH} read-only, the workspace read-write, an empty home ({@code HOME},
 * a tmpfs at the user's home path), fresh {@code /tmp}, {@code /var/tmp} and {@code /run} (so no
 * socket of the host, such as Docker's or D-Bus's, is reachable), and the folders the user lists in
 * {@code "readable"} and {@code "writable"}. Nothing else of the host exists inside. The user's
 * credential folders ({@code ~/.ssh}, {@code ~/.aws}, {@code ~/.config}, ...) and Quiver's own data and
 * state are covered by empty ones wherever a listed folder would show them.
 *
 * <p>There is no network unless allowed, all capabilities are dropped (even for root), and the command
 * gets pid, IPC and UTS namespaces of its own. Every untracked secret file of the workspace is covered
 * by an empty read-only file; a tracked one is left as it is, because an empty file in its place would
 * read to git as a change that {@code git add -A} commits, and its content is in the history anyway
 * (redaction of output is the backstop). {@code .git} and {@code .quiver} are read-only, so a
 * sandboxed command can neither commit (commits go through the git tools) nor plant hooks or
 * configuration that run outside it, nor switch the sandbox off; a workspace where either is a link
 * is refused. Which of them exist, and which repository folders a {@code .git} file leads to, comes
 * from the {@link Baseline} taken before the shell's first command in the workspace, never from what
 * a command wrote since.
 */
final class Sandbox {

    /** Shown and sent to the model when bwrap is missing. */
    static final String NOT_INSTALLED = "bubblewrap (bwrap) is not installed";

    /** The system folders every command sees, read-only. */
    static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
            "/opt", "/nix");

    /** Files of {@code /etc} that hold the machine's secrets (root inside can read /etc/shadow). */
    private static final List<String> ETC_SECRETS = List.of("/etc/shadow", "/etc/shadow-", "/etc/gshadow",
            "/etc/gshadow-", "/etc/ssl/private");

    private static final long PROBE_MILLIS = 10_000;
    private static final String INTERRUPTED = "the check of bubblewrap was interrupted";

    private final String searchPath;
    private volatile Availability availability;
    private Path empty;
    private Path emptyFolder;

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
        try {
            command.addAll(isolation(false));
            command.addAll(List.of("--", "true"));
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
     * The command line that runs {@code bash -lc LINE} in the sandbox, showing what the view holds.
     * Mounts are made in order, a later one covering an earlier one: the system and the scratch folders,
     * the empty home, the toolchains and listed folders, the repository folders outside the workspace,
     * the workspace, then what must never show (credentials, Quiver's data, {@code /etc}'s secrets) and
     * what must stay read-only ({@code .git}, {@code .quiver}, repository folders inside the
     * workspace), and last the untracked secret files.
     *
     * @param bwrap the executable
     */
    List<String> wrap(Path bwrap, SandboxView view, String line) throws IOException {
        List<String> command = new ArrayList<>(96 + 3 * view.masked().size());
        command.add(bwrap.toString());
        command.addAll(isolation(view.network()));
        if (view.network()) {
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
        for (String secret : ETC_SECRETS) {
            hide(command, Path.of(secret), Path.of(secret));
        }
        Path sshd = Path.of("/etc/ssh");
        if (Files.isDirectory(sshd)) {
            try (var keys = Files.newDirectoryStream(sshd, "ssh_host_*key")) {
                for (Path key : keys) {
                    hide(command, key, key);
                }
            }
        }
        String home = view.home().toString();
        command.addAll(List.of("--tmpfs", home));
        for (SandboxView.Bind bind : view.binds()) {
            command.addAll(List.of(bind.writable() ? "--bind" : "--ro-bind", bind.source().toString(),
                    bind.target().toString()));
        }
        Path root = view.root();
        for (Path gitDir : view.gitDirs()) {
            if (!gitDir.startsWith(root)) {
                command.addAll(List.of("--ro-bind", gitDir.toString(), gitDir.toString()));
            }
        }
        String workspace = root.toString();
        command.addAll(List.of("--bind", workspace, workspace));
        boolean workspaceCovered = false;
        for (Path hidden : view.hidden()) {
            for (Path shown : whereShown(hidden, view)) {
                hide(command, hidden, shown);
                workspaceCovered |= root.startsWith(shown) && !root.equals(shown);
            }
        }
        if (workspaceCovered) {
            // the user works inside a hidden folder (~/.config/project): the workspace itself shows again
            command.addAll(List.of("--bind", workspace, workspace));
        }
        // what the baseline found, never what exists now: no mount point is made in the workspace, and
        // nothing a command wrote decides what is mounted
        for (Path kept : view.kept()) {
            command.addAll(List.of("--ro-bind", kept.toString(), kept.toString()));
        }
        for (Path placeholder : view.placeholders()) {
            command.addAll(List.of("--ro-bind", emptyFolder().toString(), placeholder.toString()));
        }
        for (Path gitDir : view.gitDirs()) {
            if (gitDir.startsWith(root)) {
                // a repository folder inside the workspace: after the workspace, which would cover it writable
                command.addAll(List.of("--ro-bind", gitDir.toString(), gitDir.toString()));
            }
        }
        if (!view.masked().isEmpty()) {
            String mask = emptyFile().toString();
            for (Path secret : view.masked()) {
                command.addAll(List.of("--ro-bind", mask, secret.toString()));
            }
        }
        command.addAll(List.of("--chdir", workspace, "--setenv", "HOME", home, "--setenv", "TMPDIR", "/tmp",
                "--setenv", "QUIVER_SANDBOX", "bubblewrap", "--", "bash", "-lc", line));
        return command;
    }

    /** Where the sandbox would show a host path: under every bind and the workspace that hold it. */
    private static List<Path> whereShown(Path real, SandboxView view) {
        List<Path> shown = new ArrayList<>();
        for (SandboxView.Bind bind : view.binds()) {
            if (real.startsWith(bind.source())) {
                shown.add(bind.target().resolve(bind.source().relativize(real)));
            }
        }
        for (Path gitDir : view.gitDirs()) {
            if (real.startsWith(gitDir)) {
                shown.add(real);
            }
        }
        if (real.startsWith(view.root())) {
            shown.add(real);
        }
        return shown;
    }

    /**
     * Covers a folder with an empty tmpfs and a file with the empty file, when it exists.
     *
     * @param host the path on the host, which says what it is
     * @param shown where the sandbox shows it
     */
    private void hide(List<String> command, Path host, Path shown) throws IOException {
        if (Files.isDirectory(host)) {
            command.addAll(List.of("--tmpfs", shown.toString()));
        } else if (Files.exists(host)) {
            command.addAll(List.of("--ro-bind", emptyFile().toString(), shown.toString()));
        }
    }

    /**
     * Namespaces, capabilities, the system folders read-only and fresh scratch folders: the mounts every
     * sandbox has; the probe checks exactly these.
     */
    private static List<String> isolation(boolean network) throws IOException {
        List<String> options = new ArrayList<>(List.of("--unshare-all"));
        if (network) {
            options.add("--share-net");
        }
        options.addAll(List.of("--die-with-parent", "--new-session", "--cap-drop", "ALL"));
        for (String system : SYSTEM) {
            Path path = Path.of(system);
            if (Files.isSymbolicLink(path)) {
                // merged /usr: /bin is a link to usr/bin
                options.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), system));
            } else if (Files.isDirectory(path)) {
                options.addAll(List.of("--ro-bind", system, system));
            }
        }
        options.addAll(List.of("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp",
                "--tmpfs", "/run", "--symlink", "../run", "/var/run"));
        return options;
    }

    /** An empty folder no one may write, mounted where {@code .git} or {@code .quiver} must not appear. */
    private synchronized Path emptyFolder() throws IOException {
        if (emptyFolder != null && Files.isDirectory(emptyFolder, LinkOption.NOFOLLOW_LINKS)) {
            try (var entries = Files.list(emptyFolder)) {
                if (entries.findAny().isEmpty()) {
                    return emptyFolder;
                }
            }
        }
        Path folder = Files.createTempDirectory("quiver-placeholder-");
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("r-xr-xr-x"));
        folder.toFile().deleteOnExit();
        emptyFolder = folder;
        return folder;
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
        return onPath(executable, searchPath);
    }

    /** The executable of that name in the first folder of {@code searchPath} (syntax of {@code PATH}) holding one. */
    static Optional<Path> onPath(String executable, String searchPath) {
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
