package dev.quiver.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the workspace's {@code .git} and {@code .quiver} were when the shell first ran a command there:
 * whether each existed and as what, where a {@code .git} file pointed, and the repository folders it
 * names that are real git folders. Taken once per shell and workspace root and never again, so it is
 * never read from what a command could have written: the sandbox keeps what it names read-only, and a
 * {@code .git} or {@code .quiver} that appears or changes later refuses every further command
 * ({@link #check}), because the user's own git, outside the sandbox, runs the hooks and configuration
 * of a {@code .git} ({@code core.fsmonitor}, {@code core.hooksPath}) and the kernel reads
 * {@code .quiver}.
 *
 * @param git what {@code .git} was
 * @param gitTarget what a {@code .git} file said after {@code gitdir:}; empty otherwise
 * @param quiver what {@code .quiver} was
 * @param gitDirs the folders a {@code .git} file leads to (its gitdir and that one's common folder) that
 *     are real git folders ({@link #gitFolder}), as real paths, a folder before what lies in it
 */
record Baseline(Kind git, String gitTarget, Kind quiver, List<GitDir> gitDirs) {

    /** What a protected name is in the workspace; links are not followed. */
    enum Kind {
        ABSENT("not there"), FOLDER("a folder"), FILE("a file"), LINK("a symbolic link"), OTHER("a special file");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        static Kind of(Path path) throws IOException {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return ABSENT;
            }
            if (attributes.isSymbolicLink()) {
                return LINK;
            }
            return attributes.isDirectory() ? FOLDER : attributes.isRegularFile() ? FILE : OTHER;
        }
    }

    /**
     * A repository folder a {@code .git} file leads to.
     *
     * @param path its real path
     * @param identity the file system's identity of the folder (device and inode), so that a folder
     *     put in its place later (its parent renamed, a new one made) is not taken for it
     */
    record GitDir(Path path, Object identity) {
    }

    /**
     * Folders no {@code .git} file may lead to, whatever they hold: the kernel's own file systems and
     * the host's sockets. {@code /} and every top-level folder are refused too ({@link #forbidden}).
     */
    private static final List<Path> NEVER_UNDER = List.of(Path.of("/proc"), Path.of("/sys"), Path.of("/dev"),
            Path.of("/run"));

    /**
     * Looks at the workspace as it is now.
     *
     * @param root the workspace root, a real path
     * @param homes the user's home folders (from {@code HOME} and the JVM's {@code user.home}): a
     *     {@code .git} file never leads to one or to a folder above one
     */
    static Baseline of(Path root, List<Path> homes) throws IOException {
        Path dotGit = root.resolve(".git");
        Kind git = Kind.of(dotGit);
        String target = git == Kind.FILE ? gitTarget(dotGit) : "";
        List<GitDir> gitDirs = target.isEmpty() ? List.of() : gitDirs(root, target, homes);
        return new Baseline(git, target, Kind.of(root.resolve(".quiver")), gitDirs);
    }

    /**
     * Refuses when {@code .git} or {@code .quiver} is not what it was when the baseline was taken, or a
     * repository folder the {@code .git} file leads to was replaced.
     *
     * @param root the workspace root, a real path
     * @throws SandboxView.Refused saying what changed and what to do; no command may run
     */
    void check(Path root) throws SandboxView.Refused, IOException {
        Path dotGit = root.resolve(".git");
        Kind gitNow = placeholderOr(git, dotGit);
        changed(".git", git, gitNow);
        if (gitNow == Kind.FILE) {
            String targetNow = gitTarget(dotGit);
            if (!targetNow.equals(gitTarget)) {
                throw refusal("The workspace's .git file now says \"gitdir: " + targetNow + "\" instead of \"gitdir: "
                        + gitTarget + "\": a command changed it during this session");
            }
        }
        changed(".quiver", quiver, placeholderOr(quiver, root.resolve(".quiver")));
        for (GitDir dir : gitDirs) {
            Optional<Object> identity = identity(dir.path());
            if (identity.isPresent() && !identity.get().equals(dir.identity())) {
                throw refusal("The repository folder " + dir.path() + " that the workspace's .git file leads to was "
                        + "replaced by another folder during this session");
            }
        }
    }

    /** The folders to show read-only now: those of the baseline that are still there as they were. */
    List<Path> gitDirsNow() throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (GitDir dir : gitDirs) {
            Optional<Object> identity = identity(dir.path());
            // gone (a worktree removed) or replaced (refused by check): never shown in its place
            if (identity.isPresent() && identity.get().equals(dir.identity())
                    && dir.path().toRealPath().equals(dir.path())) {
                dirs.add(dir.path());
            }
        }
        return List.copyOf(dirs);
    }

    /**
     * What a name is now, where an empty folder counts as absent when it was absent: the sandbox's
     * placeholder (see {@link SandboxView#placeholders()}) while another command runs, or an empty
     * folder, which git takes for none and the kernel reads nothing from.
     */
    private static Kind placeholderOr(Kind then, Path path) throws IOException {
        Kind now = Kind.of(path);
        if (then == Kind.ABSENT && now == Kind.FOLDER) {
            try (var entries = Files.list(path)) {
                if (entries.findAny().isEmpty()) {
                    return Kind.ABSENT;
                }
            }
        }
        return now;
    }

    private static void changed(String name, Kind then, Kind now) throws SandboxView.Refused {
        if (then == now) {
            return;
        }
        if (then == Kind.ABSENT) {
            throw refusal("A command created " + name + " in the workspace during this session (it was not there when "
                    + "the session's first command ran)");
        }
        if (now == Kind.ABSENT) {
            throw refusal("The workspace's " + name + " was removed during this session (it was " + then.words
                    + " when the session's first command ran)");
        }
        throw refusal("The workspace's " + name + " is now " + now.words + "; it was " + then.words
                + " when the session's first command ran");
    }

    private static SandboxView.Refused refusal(String what) {
        return new SandboxView.Refused(what + ", so no command runs. Check it before you run git or Quiver here: a "
                + ".git can make your own git run code (hooks, core.fsmonitor, core.hooksPath) and .quiver holds "
                + "Quiver's configuration and notes for this workspace. Quit Quiver and start it again to accept "
                + "the workspace as it is now.");
    }

    /** What a {@code .git} file says after {@code gitdir:} on its first line; empty when it says nothing else. */
    private static String gitTarget(Path dotGit) throws IOException {
        String first;
        try (var lines = Files.lines(dotGit)) {
            first = lines.findFirst().orElse("");
        } catch (java.io.UncheckedIOException e) {
            return "?"; // not text: no repository, but a change from it is still seen
        }
        return first.startsWith("gitdir:") ? first.substring("gitdir:".length()).strip() : "";
    }

    /** The gitdir and its common folder, each when it is a real git folder; a worktree's first, under its common one. */
    private static List<GitDir> gitDirs(Path root, String target, List<Path> homes) throws IOException {
        Optional<Path> gitDir = gitFolder(root.resolve(target), root, homes, false);
        if (gitDir.isEmpty()) {
            return List.of();
        }
        List<Path> dirs = new ArrayList<>(List.of(gitDir.get()));
        Path common = gitDir.get().resolve("commondir");
        if (Files.isRegularFile(common, LinkOption.NOFOLLOW_LINKS)) {
            String named = Files.readString(common).strip();
            Optional<Path> commonDir = named.isEmpty() ? Optional.empty()
                    : gitFolder(gitDir.get().resolve(named), root, homes, true);
            if (commonDir.isPresent()) {
                // a worktree's folder usually lies inside the common one, which then shows both
                dirs.removeIf(dir -> dir.startsWith(commonDir.get()));
                dirs.add(0, commonDir.get());
            }
        }
        List<GitDir> result = new ArrayList<>();
        for (Path dir : dirs) {
            Optional<Object> identity = identity(dir);
            if (identity.isPresent()) {
                result.add(new GitDir(dir, identity.get()));
            }
        }
        return List.copyOf(result);
    }

    /**
     * The real path of a folder a {@code .git} file names, when it is a real git folder: a folder
     * holding a {@code HEAD} file and an {@code objects} folder (a worktree's may hold a
     * {@code commondir} file instead), and not a folder whose showing would show more than a
     * repository ({@link #forbidden}).
     *
     * @param common whether it is a common folder, which must hold {@code objects} itself
     */
    static Optional<Path> gitFolder(Path named, Path root, List<Path> homes, boolean common) throws IOException {
        Path path = named.normalize();
        if (!Files.isDirectory(path)) {
            return Optional.empty();
        }
        Path real = path.toRealPath();
        if (forbidden(real, root, homes) || !Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        boolean head = Files.isRegularFile(real.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS);
        boolean objects = Files.isDirectory(real.resolve("objects"), LinkOption.NOFOLLOW_LINKS);
        boolean commonDir = !common && Files.isRegularFile(real.resolve("commondir"), LinkOption.NOFOLLOW_LINKS);
        return head && (objects || commonDir) ? Optional.of(real) : Optional.empty();
    }

    /**
     * {@code /}, a top-level folder ({@code /usr}, {@code /etc}, {@code /tmp}, {@code /var},
     * {@code /home}), anything in {@code /proc}, {@code /sys}, {@code /dev} or {@code /run}, a home or
     * a folder above one, the workspace or a folder above it.
     */
    static boolean forbidden(Path real, Path root, List<Path> homes) {
        if (real.getNameCount() <= 1 || root.startsWith(real)) {
            return true;
        }
        for (Path never : NEVER_UNDER) {
            if (real.startsWith(never)) {
                return true;
            }
        }
        for (Path home : homes) {
            if (home.startsWith(real)) {
                return true;
            }
        }
        return false;
    }

    /** The folder's identity, or none when it is not a folder now (links not followed). */
    private static Optional<Object> identity(Path dir) throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(dir, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            return attributes.isDirectory() ? Optional.ofNullable(attributes.fileKey()) : Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The home folders a {@code .git} file may not lead to or above: {@code HOME} and {@code user.home}, as real paths too. */
    static List<Path> homes(Optional<Path> environmentHome) {
        List<Path> homes = new ArrayList<>();
        environmentHome.ifPresent(homes::add);
        String jvmHome = System.getProperty("user.home");
        if (jvmHome != null && Path.of(jvmHome).isAbsolute()) {
            homes.add(Path.of(jvmHome).normalize());
        }
        for (Path home : List.copyOf(homes)) {
            try {
                homes.add(home.toRealPath());
            } catch (IOException missing) {
                // a home that does not exist has no real path to add
            }
        }
        return homes.stream().distinct().toList();
    }
}
