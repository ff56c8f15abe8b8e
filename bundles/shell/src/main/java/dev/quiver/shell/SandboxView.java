package dev.quiver.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a sandboxed command sees of the file system besides the system folders: an empty home, the
 * toolchains on {@code PATH}, the folders the user's {@code "readable"} and {@code "writable"} name,
 * the workspace, and nothing of the user's credentials or of Quiver's own data, whatever a listed
 * folder contains. {@link Sandbox#wrap} turns it into bubblewrap's options.
 *
 * @param root the workspace root, a real path
 * @param home the sandbox's {@code HOME}: an empty tmpfs at the user's home path
 * @param binds folders shown besides the workspace, in mount order (a folder before what is inside it)
 * @param hidden credential folders and Quiver's data, as real paths on the host: covered wherever a
 *     bind shows them
 * @param gitDirs the repository's data when {@code .git} is a file pointing elsewhere (a worktree, a
 *     submodule), shown read-only: the real git folders the {@link Baseline} found, as real paths
 * @param kept {@code .git} and {@code .quiver} where the {@link Baseline} found them, shown read-only
 * @param placeholders {@code .git} and {@code .quiver} where the {@link Baseline} found none: covered by
 *     an empty read-only folder, so no command can make one (a {@code .git} with a hook or
 *     {@code core.fsmonitor} would run code in the user's own git, outside the sandbox). bwrap makes
 *     the empty folder on the host as its mount point; git takes an empty {@code .git} for none, and
 *     {@link ProcessShell} removes it when the command ends
 * @param masked the workspace's secret files that are not tracked, covered by an empty file
 * @param network whether the network stays reachable
 */
record SandboxView(Path root, Path home, List<Bind> binds, List<Path> hidden, List<Path> gitDirs, List<Path> kept,
        List<Path> placeholders, List<Path> masked, boolean network) {

    /** Removes the placeholders a command's sandbox left, when they are still empty folders. */
    static void removePlaceholders(List<Path> placeholders) {
        for (Path placeholder : placeholders) {
            try {
                if (Files.isDirectory(placeholder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.delete(placeholder); // fails, and so keeps it, when anything is in it
                }
            } catch (IOException | SecurityException kept) {
                // not empty (the user made it meanwhile), or in use: left as it is
            }
        }
    }

    /**
     * Folders and files in the home that hold credentials: never shown, even under a listed parent.
     * {@code .config} holds gh's, gcloud's and Quiver's own; Maven's settings and Gradle's properties
     * hold repository passwords.
     */
    static final List<String> CREDENTIALS = List.of(".ssh", ".aws", ".azure", ".config", ".gnupg", ".kube",
            ".docker", ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".m2/settings.xml",
            ".m2/settings-security.xml", ".gradle/gradle.properties", ".cargo/credentials",
            ".cargo/credentials.toml", ".local/share/keyrings");

    /** Where a home that cannot be used is made instead: inside the sandbox's private {@code /tmp}. */
    static final Path FALLBACK_HOME = Path.of("/tmp/home");

    /**
     * A host folder shown in the sandbox.
     *
     * @param source the real path on the host
     * @param target where the command sees it (the path as configured, links not followed)
     * @param writable read-write, or read-only
     */
    record Bind(Path source, Path target, boolean writable) {
    }

    /** A workspace or setting the sandbox cannot be set up for; the message says what to do. */
    static final class Refused extends Exception {

        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /**
     * The view for one command.
     *
     * @param root the workspace root, a real path
     * @param masked the secret files to cover (the untracked ones)
     * @param config the shell configuration, for {@code readable}, {@code writable} and {@code network}
     * @param environment the command's environment: {@code HOME}, {@code PATH}, {@code JAVA_HOME},
     *     {@code XDG_*}
     * @param quiverFolders Quiver's own folders to hide besides the XDG ones (the shell's journal, the
     *     workspace's state folder)
     * @param baseline what {@code .git} and {@code .quiver} were before the first command, already
     *     {@linkplain Baseline#check checked} against the workspace as it is now
     * @throws Refused when {@code .git} or {@code .quiver} is a link, or a setting cannot be honoured
     */
    static SandboxView of(Path root, List<Path> masked, ShellConfig config, Map<String, String> environment,
            List<Path> quiverFolders, Baseline baseline) throws Refused, IOException {
        List<Path> kept = new ArrayList<>();
        List<Path> placeholders = new ArrayList<>();
        for (String name : List.of(".git", ".quiver")) {
            Path path = root.resolve(name);
            Baseline.Kind kind = name.equals(".git") ? baseline.git() : baseline.quiver();
            if (kind == Baseline.Kind.FOLDER || kind == Baseline.Kind.FILE) {
                kept.add(path);
            } else if (kind == Baseline.Kind.ABSENT) {
                placeholders.add(path);
            }
            if (kind == Baseline.Kind.LINK) { // as it still is: Baseline.check refused any change
                throw new Refused("The workspace's " + name + " is a symbolic link (to " + Files.readSymbolicLink(path)
                        + "), so the sandbox cannot keep it read-only, and no command ran. Replace the link with the "
                        + "folder itself, or open the workspace where the folder really is.");
            }
        }
        Optional<Path> userHome = userHome(environment);
        // a home inside the workspace cannot be emptied without hiding part of the workspace
        Path home = userHome.filter(candidate -> !candidate.startsWith(root)).orElse(FALLBACK_HOME);
        Map<Path, Bind> binds = new LinkedHashMap<>();
        toolchains(environment, root, userHome).forEach(bind -> binds.putIfAbsent(bind.target(), bind));
        List<Bind> listed = new ArrayList<>();
        for (String path : config.readable()) {
            listed.addAll(bind("readable", path, userHome, false));
        }
        for (String path : config.writable()) {
            listed.addAll(bind("writable", path, userHome, true));
        }
        // a folder before what is inside it, so "writable": ["~/.m2"] stays writable under "readable": ["~"]
        listed.sort(Comparator.comparingInt(bind -> bind.target().getNameCount()));
        listed.forEach(bind -> binds.put(bind.target(), bind));
        return new SandboxView(root, home, List.copyOf(binds.values()), hidden(userHome, environment, quiverFolders),
                baseline.gitDirsNow(), List.copyOf(kept), List.copyOf(placeholders), List.copyOf(masked), config.network());
    }

    /** The user's home from {@code HOME}: absolute and not {@code /}, or none. */
    static Optional<Path> userHome(Map<String, String> environment) {
        String home = environment.get("HOME");
        if (home == null || home.isBlank() || !Path.of(home).isAbsolute()) {
            return Optional.empty();
        }
        Path path = Path.of(home).normalize();
        return path.getNameCount() == 0 ? Optional.empty() : Optional.of(path);
    }

    /** Whether the sandbox shows this folder anyway, read-only: the system's own folders. */
    static boolean isSystem(Path path) {
        for (String system : Sandbox.SYSTEM) {
            if (path.startsWith(system)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The toolchains the command finds on {@code PATH} and {@code JAVA_HOME}, read-only: for a
     * {@code bin} folder its parent (a JDK's or Node's {@code lib} sits next to it), unless that parent
     * is the home or a folder right in it ({@code ~/.local}, {@code ~/.cargo} hold more than tools).
     */
    private static List<Bind> toolchains(Map<String, String> environment, Path root, Optional<Path> home)
            throws IOException {
        List<Path> candidates = new ArrayList<>();
        String path = environment.getOrDefault("PATH", "");
        for (String entry : path.split(":")) {
            if (entry.isEmpty() || !Path.of(entry).isAbsolute()) {
                continue;
            }
            Path dir = Path.of(entry).normalize();
            Path parent = dir.getParent();
            boolean wholeToolchain = dir.getFileName() != null && dir.getFileName().toString().equals("bin")
                    && parent != null && broadEnough(parent, home);
            candidates.add(wholeToolchain ? parent : dir);
        }
        String javaHome = environment.get("JAVA_HOME");
        if (javaHome != null && Path.of(javaHome).isAbsolute() && broadEnough(Path.of(javaHome).normalize(), home)) {
            candidates.add(Path.of(javaHome).normalize());
        }
        List<Bind> binds = new ArrayList<>();
        for (Path target : candidates) {
            if (!Files.isDirectory(target) || target.startsWith(root)) {
                continue;
            }
            Path source = target.toRealPath();
            if (!(isSystem(target) && isSystem(source))) {
                binds.add(new Bind(source, target, false));
            }
        }
        return binds;
    }

    /** Not {@code /}, not the home or above it, not a folder right in the home. */
    private static boolean broadEnough(Path folder, Optional<Path> home) {
        if (folder.getNameCount() < 1) {
            return false;
        }
        return home.map(h -> !h.startsWith(folder) && !h.equals(folder.getParent())).orElse(true);
    }

    private static List<Bind> bind(String key, String configured, Optional<Path> home, boolean writable)
            throws Refused, IOException {
        Path target = expand(key, configured, home);
        if (target.getNameCount() == 0) {
            throw new Refused("\"shell\".\"" + key + "\" lists /, which would show the whole file system to every "
                    + "command; list the folders the commands need instead.");
        }
        if (writable && home.isPresent() && home.get().startsWith(target)) {
            throw new Refused("\"shell\".\"writable\" lists " + configured + ", which holds the home folder: a command "
                    + "could plant code there (~/.bashrc) that runs outside the sandbox. List the caches themselves, "
                    + "such as ~/.m2 or ~/.npm.");
        }
        if (!Files.exists(target)) {
            return List.of(); // a cache this machine does not have yet: nothing to show
        }
        return List.of(new Bind(target.toRealPath(), target, writable));
    }

    /** {@code ~} and {@code ~/...} against the home; other paths are absolute (checked when parsed). */
    static Path expand(String key, String configured, Optional<Path> home) throws Refused {
        if (configured.equals("~") || configured.startsWith("~/")) {
            if (home.isEmpty()) {
                throw new Refused("\"shell\".\"" + key + "\" lists " + configured + ", but HOME is not set to an "
                        + "absolute folder, so ~ means nothing. Write the path out in full.");
            }
            return configured.equals("~") ? home.get() : home.get().resolve(configured.substring(2)).normalize();
        }
        return Path.of(configured).normalize();
    }

    /** The credential folders of the home and Quiver's own data, config and state, as real paths, where they exist. */
    private static List<Path> hidden(Optional<Path> home, Map<String, String> environment, List<Path> quiverFolders)
            throws IOException {
        List<Path> candidates = new ArrayList<>();
        home.ifPresent(h -> CREDENTIALS.forEach(name -> candidates.add(h.resolve(name))));
        // Quiver's sessions, audit logs and notes of every workspace, and its config with the trust list
        xdg(environment, "XDG_DATA_HOME", home, ".local/share").ifPresent(dir -> candidates.add(dir.resolve("quiver")));
        xdg(environment, "XDG_STATE_HOME", home, ".local/state").ifPresent(dir -> candidates.add(dir.resolve("quiver")));
        xdg(environment, "XDG_CONFIG_HOME", home, ".config").ifPresent(candidates::add);
        candidates.addAll(quiverFolders);
        List<Path> hidden = new ArrayList<>();
        for (Path candidate : candidates) {
            if (Files.exists(candidate)) {
                Path real = candidate.toRealPath();
                if (!hidden.contains(real)) {
                    hidden.add(real);
                }
            }
        }
        return hidden;
    }

    private static Optional<Path> xdg(Map<String, String> environment, String variable, Optional<Path> home,
            String fallback) {
        String value = environment.get(variable);
        if (value != null && Path.of(value).isAbsolute()) {
            return Optional.of(Path.of(value).normalize());
        }
        return home.map(h -> h.resolve(fallback));
    }
}
