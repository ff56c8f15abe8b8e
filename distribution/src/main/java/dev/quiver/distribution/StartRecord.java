package dev.quiver.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * An answer recorded by the last start with exactly the same inputs, so that the next start can give
 * it before the framework has started: {@code quiver mcp}'s catalogue ({@link McpCatalogue}) and
 * {@code quiver tools --json}'s output ({@link ToolsRecord}). This class alone decides what the
 * inputs are; each kind of answer has its own folder and its own fields.
 *
 * <p>A record is served only for exactly the inputs it was recorded with. Its {@code inputs} line is
 * the SHA-256 of everything that can change the answer: the Java version and every system property,
 * the installation (the framework and launcher jars and every file of {@code bundle/}, {@code deploy/}
 * and the plugins folder, with size and modification time, as the framework snapshot lists them),
 * the working folder, the command line word for word, the whole environment, the content of every
 * config input (the workspace's {@code .quiver/config.json}, {@code .quiver/notes.md} and
 * {@code .mcp.json}, whether each is a link, the user's config, the trust store, the managed policies,
 * the installation's {@code conf/} files and every file the command line names: {@code --config},
 * {@code --mcp-config}), and what decides whether the shell's sandbox works: every {@code bwrap} on
 * {@code PATH} (mode, owner and group included), the kernel's user-namespace settings and this
 * process's namespaces, capabilities, seccomp and AppArmor state. A file that is absent is part of the
 * inputs too, so creating one is a change.
 *
 * <p>There is no record at all (none read, none written) when a live start would act on something a
 * killed process left: anything in the workspace's change-journal folder (the kernel finishes or
 * rolls back the change and says so) or a {@code commands-*} journal in the shell's journal folder whose
 * lock no running process holds (the shell kills the commands of a crashed run); when whether a keyed path exists cannot be told (the
 * kernel refuses to start over such a managed policy); when an argument is an {@code @FILE}, which
 * picocli expands; and when {@code HOME} is empty or unset.
 *
 * <p>A record lives in Quiver's state folder ({@code $XDG_STATE_HOME/quiver/KIND}, else
 * {@code ~/.local/state/quiver/KIND}), one file per installation, working folder and command line.
 * It is read only when the folder and the file belong to this user, are writable by nobody else, the
 * file is a regular file (not a link) of at most {@link #MAX_BYTES}, and every line of it is well
 * formed; anything else is ignored as if there were no record. It is written beside the old one and
 * moved over it, owner-only.
 */
final class StartRecord {

    static final long MAX_BYTES = 8L * 1024 * 1024;
    private static final int KEPT = 64;
    /** A config file larger than this is described by size and time rather than read. */
    private static final long MAX_DIGESTED_BYTES = 16L * 1024 * 1024;
    private static final Set<PosixFilePermission> OTHERS_WRITE = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    /** What decides whether bubblewrap can make a sandbox here, besides the bwrap executables on PATH. */
    private static final List<String> SANDBOX_FILES = List.of("/proc/sys/kernel/unprivileged_userns_clone",
            "/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            "/proc/self/attr/current");
    private static final List<String> NAMESPACES = List.of("user", "mnt", "pid", "net", "ipc", "uts", "cgroup");
    private static final Set<String> STATUS_LINES = Set.of("Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp",
            "Seccomp_filters", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb");

    private final Path file;
    private final String format;
    private final String inputs;
    private final Inputs source;

    private StartRecord(Path file, String format, Inputs source, String inputs) {
        this.file = file;
        this.format = format;
        this.source = source;
        this.inputs = inputs;
    }

    /**
     * What the inputs are read from; read again before a record is written.
     *
     * @param properties the system properties as the process started (the framework and the bundles add
     *     their own as they start)
     */
    record Inputs(Path home, Path workingFolder, List<String> args, Map<String, String> environment,
            List<Path> bundleFolders, Map<String, String> properties) {

        /** This start's inputs, with the system properties as they are now. */
        Inputs(Path home, Path workingFolder, List<String> args, Map<String, String> environment, List<Path> bundleFolders) {
            this(home, workingFolder, args, environment, bundleFolders, systemProperties());
        }

        private static Map<String, String> systemProperties() {
            Map<String, String> properties = new TreeMap<>();
            System.getProperties().forEach((name, value) -> properties.put(String.valueOf(name), String.valueOf(value)));
            return properties;
        }
    }

    /**
     * The record of one kind for this start, its inputs digested now.
     *
     * @param kind the folder of this kind of record in the state folder
     * @param format the first line of this kind of record, changed when its fields change
     * @return empty when there is no state folder, the workspace is not a folder, {@code HOME} is empty
     *     or unset, or an argument is an {@code @FILE} (picocli reads more arguments from it, so the
     *     command line alone no longer says what the run is, nor which workspace it is in)
     * @throws IOException when an input cannot be read or told: a file whose existence cannot be told
     *     (the kernel refuses to start over one), or what a killed process left for the next start to act on
     */
    static Optional<StartRecord> of(String kind, String format, Inputs source) throws IOException {
        Optional<Path> state = stateFolder(source.environment());
        String home = source.environment().get("HOME");
        // without HOME the kernel's folders are found by rules of their own (one even relative to the
        // working folder): no record rather than a second copy of those rules
        if (state.isEmpty() || home == null || home.isBlank()
                || source.args().stream().anyMatch(arg -> arg.startsWith("@"))
                || !Files.isDirectory(workspace(source))) {
            return Optional.empty();
        }
        String slot = sha256(source.home() + "\0" + source.workingFolder() + "\0" + String.join("\0", source.args()));
        return Optional.of(new StartRecord(state.get().resolve(kind).resolve(slot.substring(0, 32) + ".record"), format,
                source, digest(format, source)));
    }

    /** Quiver's state folder: {@code $XDG_STATE_HOME/quiver}, else {@code ~/.local/state/quiver}. */
    static Optional<Path> stateFolder(Map<String, String> environment) {
        String state = environment.get("XDG_STATE_HOME");
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        if (state != null && !state.isBlank()) {
            return Optional.of(Path.of(state, "quiver"));
        }
        return home == null || home.isBlank() ? Optional.empty()
                : Optional.of(Path.of(home, ".local", "state", "quiver"));
    }

    /**
     * The recorded fields when the record is this user's, well formed, of this format and recorded with
     * exactly these inputs: one {@code NAME VALUE} line per name, in this order.
     */
    Optional<List<String>> read(List<String> names) {
        try {
            if (!ownedAndPrivate(file.getParent()) || !ownedAndPrivate(file)) {
                return Optional.empty();
            }
            PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile() || attributes.size() > MAX_BYTES) {
                return Optional.empty();
            }
            String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n", -1);
            if (lines.length != names.size() + 3 || !format.equals(lines[0]) || !lines[lines.length - 1].isEmpty()
                    || !lines[1].equals("inputs " + inputs)) {
                return Optional.empty();
            }
            List<String> values = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                values.add(field(lines[i + 2], names.get(i)));
            }
            return Optional.of(values);
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // missing, unreadable or garbled: start the ordinary way
        }
    }

    private static String field(String line, String name) {
        if (!line.startsWith(name + " ")) {
            throw new IllegalArgumentException("no " + name);
        }
        return line.substring(name.length() + 1);
    }

    /**
     * Records the fields, if the inputs are still those of this start (a config changed while it ran
     * means the answer may belong to either) and they differ from the record in place.
     *
     * @param fields names and values in the order {@link #read} expects them; no value may hold a line break
     */
    void write(Map<String, String> fields) {
        try {
            StringBuilder text = new StringBuilder(format).append("\ninputs ").append(inputs).append('\n');
            for (Map.Entry<String, String> field : fields.entrySet()) {
                if (field.getValue().indexOf('\n') >= 0 || field.getValue().indexOf('\r') >= 0) {
                    return;
                }
                text.append(field.getKey()).append(' ').append(field.getValue()).append('\n');
            }
            if (text.length() > MAX_BYTES || !digest(format, source).equals(inputs)) {
                return;
            }
            Path folder = file.getParent();
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (!ownedAndPrivate(folder)) {
                return;
            }
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    && text.toString().equals(Files.readString(file, StandardCharsets.UTF_8))) {
                return;
            }
            Path fresh = Files.createTempFile(folder, "record-", ".new",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(fresh, text, StandardCharsets.UTF_8);
                try {
                    Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(fresh);
            }
            prune(folder);
        } catch (IOException | RuntimeException e) {
            // the next start answers the ordinary way and records again
        }
    }

    /** Keeps the {@value #KEPT} records written last: one per installation, folder and command line adds up. */
    private static void prune(Path folder) throws IOException {
        List<Path> records = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*.record")) {
            files.forEach(records::add);
        }
        if (records.size() <= KEPT) {
            return;
        }
        records.sort(java.util.Comparator.comparing(StartRecord::modified).reversed());
        for (Path old : records.subList(KEPT, records.size())) {
            Files.deleteIfExists(old);
        }
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Owned by this process's user and writable by nobody else; a link is never followed. */
    private static boolean ownedAndPrivate(Path path) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return attributes.owner().getName().equals(System.getProperty("user.name"))
                && attributes.permissions().stream().noneMatch(OTHERS_WRITE::contains)
                && !attributes.isSymbolicLink();
    }

    private static Path workspace(Inputs source) {
        String named = null;
        List<String> args = source.args();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--workspace") && i + 1 < args.size()) {
                named = args.get(i + 1);
            } else if (args.get(i).startsWith("--workspace=")) {
                named = args.get(i).substring("--workspace=".length());
            }
        }
        return named == null ? source.workingFolder() : source.workingFolder().resolve(named);
    }

    /** The SHA-256 of every input, in a fixed order, each entry length-prefixed so none can run into the next. */
    private static String digest(String format, Inputs source) throws IOException {
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("format", format);
        source.properties().forEach((name, value) -> {
            // java.vm.info says how this VM happens to run, not what it runs: "mixed mode, sharing" or
            // "mixed mode" as the CDS archive mapped or not, which -Xshare:auto lets vary between starts
            if (!name.equals("java.vm.info")) {
                entries.put("property " + name, value);
            }
        });
        entries.put("java", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.version"));
        entries.put("home", source.home().toString());
        entries.put("cwd", source.workingFolder().toString());
        for (int i = 0; i < source.args().size(); i++) {
            entries.put("arg " + i, source.args().get(i));
        }
        source.environment().forEach((name, value) -> entries.put("env " + name, value));
        Path workspace = workspace(source);
        entries.put("workspace", workspace.toRealPath().toString());
        List<Path> files = new ArrayList<>(List.of(workspace.resolve(".quiver").resolve("config.json"),
                workspace.resolve(".quiver").resolve("notes.md"), workspace.resolve(".mcp.json"),
                Path.of("/etc/quiver/managed.json"), source.home().resolve("conf").resolve("managed.json"),
                source.home().resolve("conf").resolve("config.properties"),
                source.home().resolve("conf").resolve("catalogs.json")));
        userConfig(source.environment()).ifPresent(files::add);
        stateFolder(source.environment()).ifPresent(state -> files.add(state.resolve("trusted-workspaces.json")));
        for (String arg : source.args()) {
            // every word that names a file: --config FILE, --mcp-config FILE, --config=FILE
            for (String word : arg.startsWith("--") && arg.contains("=") ? List.of(arg.substring(arg.indexOf('=') + 1))
                    : List.of(arg)) {
                if (!word.isEmpty() && word.indexOf('\0') < 0) {
                    Path named = source.workingFolder().resolve(word);
                    if (exists(named) && Files.isRegularFile(named)) {
                        files.add(named);
                    }
                }
            }
        }
        for (Path file : files) {
            entries.put("file " + file, content(file));
        }
        Path real = workspace.toRealPath();
        entries.put("kind " + workspace.resolve(".quiver"), kind(workspace.resolve(".quiver")));
        refuseLeftovers(changeJournals(source.environment(), real), "*");
        refuseShellLeftovers(shellJournals(source.environment(), source.properties()));
        sandbox(entries, source.environment());
        entries.put("file felix.jar", stat(source.home().resolve("bin").resolve("felix.jar")));
        entries.put("file quiver.jar", stat(source.home().resolve("bin").resolve("quiver.jar")));
        for (Path folder : source.bundleFolders()) {
            list(entries, folder, 3);
        }
        StringBuilder all = new StringBuilder();
        entries.forEach((name, value) -> all.append(name.length()).append(':').append(name).append(value.length())
                .append(':').append(value));
        return sha256(all.toString());
    }

    /**
     * A live start acts on what a killed process left in this folder (rolls back a change, kills
     * commands) and a record would skip that, so a record is neither read nor written while the folder
     * holds anything of that pattern: not even a journal a live process holds at this moment, which
     * may be left behind the moment that process dies.
     */
    private static void refuseLeftovers(Path folder, String pattern) throws IOException {
        if (!exists(folder) || !Files.isDirectory(folder)) {
            return;
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(folder, pattern)) {
            for (Path found : left) {
                throw new IOException(found + " was left for a live start to act on");
            }
        }
    }

    /**
     * The shell's command journals a live start would act on: those of a run whose lock no process
     * holds, or that has no lock ({@code Journal.cleanUp} judges them so and kills what they list). A
     * Quiver process running beside this one holds its lock, and its journal keeps no record away.
     */
    private static void refuseShellLeftovers(Path folder) throws IOException {
        if (!exists(folder) || !Files.isDirectory(folder)) {
            return;
        }
        java.util.Set<String> runs = new java.util.TreeSet<>();
        try (DirectoryStream<Path> found = Files.newDirectoryStream(folder, "commands-*")) {
            for (Path file : found) {
                String name = file.getFileName().toString();
                int dot = name.lastIndexOf('.');
                runs.add(dot < 0 ? name : name.substring(0, dot));
            }
        }
        // a journal under this process's pid is never opened: closing any descriptor of a file drops every
        // POSIX lock the process holds on it (Journal says so too). It is this process's own (a live quiver
        // mcp recording again) or a dead run's whose pid came round again (a container's pid 1): no record
        // either way, which costs the first only a record not brought up to date
        String own = "commands-" + ProcessHandle.current().pid() + "-";
        for (String run : runs) {
            if (run.startsWith(own)) {
                throw new IOException(folder.resolve(run) + " carries this process's pid");
            }
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                    folder.resolve(run + ".lock"), java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.channels.FileLock lock = channel.tryLock();
                if (lock == null) {
                    continue; // its process runs
                }
                lock.release();
            } catch (java.nio.file.NoSuchFileException noLock) {
                // a journal without its lock: the shell's start acts on it
            } catch (java.nio.channels.OverlappingFileLockException heldHere) {
                continue;
            }
            throw new IOException(folder.resolve(run) + " was left for a live start to act on");
        }
    }

    /**
     * The folder where a change to this workspace keeps its journal until it is done: a start finds what a
     * killed process left there ({@code *.pending}, and the journal beside it), finishes or rolls it back
     * and says so. Nothing is left there once a change is done, so anything in it keeps the record away.
     * As the kernel's {@code SessionStore.fromEnvironment}, {@code folder} and {@code stateFolder} name it,
     * with {@code HOME} set (the launcher cannot call the kernel; ToolsRecordEndToEndTest fails if the two part).
     */
    private static Path changeJournals(Map<String, String> environment, Path workspace) {
        String data = environment.get("XDG_DATA_HOME");
        Path base = data != null && !data.isBlank() ? Path.of(data) : Path.of(environment.get("HOME"), ".local", "share");
        String name = workspace.getFileName() == null ? "root"
                : workspace.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(workspace.toString().getBytes(StandardCharsets.UTF_8));
            return base.resolve("quiver").resolve("sessions").resolve(name + "-" + HexFormat.of().formatHex(hash, 0, 6))
                    .resolve("state").resolve("changes");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The shell's command journals ({@code commands-PID-START.txt} and {@code .lock}): every start of the
     * shell bundle kills what a crashed run listed there ({@code Journal.cleanUp}). As the shell's
     * {@code ProcessShell.defaultStateDir} names it, which reads the JVM's {@code user.home}, not
     * {@code HOME}, and only an absolute {@code XDG_STATE_HOME} (ToolsRecordEndToEndTest fails if the two part).
     */
    static Path shellJournals(Map<String, String> environment, Map<String, String> properties) {
        String state = environment.get("XDG_STATE_HOME");
        Path base = state != null && !state.isBlank() && Path.of(state).isAbsolute() ? Path.of(state)
                : Path.of(properties.getOrDefault("user.home", System.getProperty("user.home")), ".local", "state");
        return base.resolve("quiver").resolve("shell");
    }

    /**
     * What decides whether the shell's sandbox works, which the header of {@code tools} and the other
     * commands reports: the shell finds bwrap on PATH and runs it once, which needs user namespaces. The
     * run itself cannot be part of the inputs; what it depends on is: every {@code bwrap} on PATH, the
     * kernel's settings, and this process's namespaces (another container is another set), credentials,
     * capabilities, seccomp and AppArmor confinement, all inherited by the probe.
     */
    private static void sandbox(TreeMap<String, String> entries, Map<String, String> environment) throws IOException {
        String path = environment.getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path bwrap = Path.of(dir, "bwrap");
                entries.put("bwrap " + bwrap, executable(bwrap));
            }
        }
        for (String file : SANDBOX_FILES) {
            entries.put("sandbox " + file, procText(Path.of(file)));
        }
        for (String namespace : NAMESPACES) {
            Path link = Path.of("/proc/self/ns", namespace);
            String target;
            try {
                target = Files.readSymbolicLink(link).toString();
            } catch (IOException | UnsupportedOperationException e) {
                target = "absent";
            }
            entries.put("namespace " + namespace, target);
        }
        for (String line : procText(Path.of("/proc/self/status")).split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && STATUS_LINES.contains(line.substring(0, colon))) {
                entries.put("status " + line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
    }

    private static String procText(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "absent";
        }
    }

    /**
     * An executable as a start runs it: size, times, the whole mode (a setuid bit makes another bwrap),
     * owner and group, and whether this user may run it, through links.
     */
    private static String executable(Path file) throws IOException {
        if (!exists(file)) {
            return "absent";
        }
        try {
            Map<String, Object> unix = Files.readAttributes(file, "unix:mode,uid,gid,ino,dev,size,lastModifiedTime,ctime");
            return new TreeMap<>(unix) + (Files.isExecutable(file) ? " x" : "");
        } catch (UnsupportedOperationException | IllegalArgumentException noUnixView) {
            PosixFileAttributes posix = Files.readAttributes(file, PosixFileAttributes.class);
            return posix.size() + " " + posix.lastModifiedTime().toMillis() + " " + PosixFilePermissions.toString(posix.permissions())
                    + " " + posix.owner().getName() + " " + posix.group().getName() + (Files.isExecutable(file) ? " x" : "");
        }
    }

    /**
     * Whether a path exists, or an {@link IOException} when that cannot be told (a folder on the way this
     * user cannot search, a loop of links, a file where a folder should be): the kernel refuses to start
     * when it cannot tell whether a managed policy exists, so a record must not stand for "absent".
     */
    static boolean exists(Path path, LinkOption... options) throws IOException {
        if (Files.exists(path, options)) {
            return true;
        }
        if (Files.notExists(path, options)) {
            return false;
        }
        throw new IOException("whether " + path + " exists cannot be told");
    }

    /** A link, a folder, a file or nothing: a workspace's config read through a link is not read at all. */
    private static String kind(Path path) throws IOException {
        if (!exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return "absent";
        }
        if (Files.isSymbolicLink(path)) {
            return "link";
        }
        return Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) ? "folder" : "file";
    }

    private static Optional<Path> userConfig(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Optional.of(Path.of(xdg, "quiver", "config.json"));
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, ".config", "quiver", "config.json"));
    }

    private static void list(TreeMap<String, String> entries, Path folder, int depth) throws IOException {
        if (!exists(folder) || !Files.isDirectory(folder)) {
            entries.put("folder " + folder, "absent");
            return;
        }
        entries.put("folder " + folder, "present");
        try (DirectoryStream<Path> children = Files.newDirectoryStream(folder)) {
            for (Path child : children) {
                if (Files.isDirectory(child) && depth > 0) {
                    list(entries, child, depth - 1);
                } else {
                    entries.put("file " + child, stat(child));
                }
            }
        }
    }

    private static String stat(Path file) throws IOException {
        if (!exists(file)) {
            return "absent";
        }
        try {
            var attributes = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            return attributes.size() + " " + attributes.lastModifiedTime().toMillis();
        } catch (IOException e) {
            return "unreadable";
        }
    }

    private static String content(Path file) throws IOException {
        if (!exists(file)) {
            return exists(file, LinkOption.NOFOLLOW_LINKS) ? "dangling link" : "absent";
        }
        try {
            String prefix = Files.isSymbolicLink(file) ? "link " : "";
            if (Files.size(file) > MAX_DIGESTED_BYTES) {
                return prefix + "large " + stat(file);
            }
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    sha.update(buffer, 0, n);
                }
            }
            return prefix + HexFormat.of().formatHex(sha.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            return "unreadable";
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
