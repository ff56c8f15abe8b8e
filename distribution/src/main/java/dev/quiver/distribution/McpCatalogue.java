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
 * The tool catalogue {@code quiver mcp} recorded at its last start: the {@code initialize} and
 * {@code tools/list} answers, so that the next start can give them before the framework has started
 * ({@link McpEarly}).
 *
 * <p>A record is served only for exactly the inputs it was recorded with. Its {@code inputs} line is
 * the SHA-256 of everything that can change the tool list: the Java version, the installation (the
 * framework and launcher jars and every file of {@code bundle/}, {@code deploy/} and the plugins
 * folder, with size and modification time, as the framework snapshot lists them), the working
 * folder, the command line word for word, the whole environment, and the content of every config
 * input: the workspace's {@code .quiver/config.json}, {@code .quiver/notes.md} and {@code .mcp.json},
 * the user's config, the trust store, the managed policies, the installation's {@code conf/} files
 * and every file the command line names ({@code --config}, {@code --mcp-config}). A file that is
 * absent is part of the inputs too, so creating one is a change.
 *
 * <p>The record lives in Quiver's state folder ({@code $XDG_STATE_HOME/quiver/mcp-tools}, else
 * {@code ~/.local/state/quiver/mcp-tools}), one file per installation, working folder and command
 * line. It is read only when the folder and the file belong to this user, are writable by nobody
 * else, the file is a regular file (not a link) of at most {@link #MAX_BYTES}, and every line of it
 * is well formed; anything else is ignored as if there were no record.
 */
final class McpCatalogue {

    private static final String FORMAT = "quiver mcp catalogue 1";
    static final long MAX_BYTES = 8L * 1024 * 1024;
    private static final int KEPT = 64;
    /** A config file larger than this is described by size and time rather than read. */
    private static final long MAX_DIGESTED_BYTES = 16L * 1024 * 1024;
    private static final Set<PosixFilePermission> OTHERS_WRITE = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);

    /** A record that matched this start's inputs. */
    record Record(boolean interactive, List<String> protocols, String initialize, String tools) {
    }

    private final Path file;
    private final String inputs;
    private final Inputs source;

    private McpCatalogue(Path file, Inputs source, String inputs) {
        this.file = file;
        this.source = source;
        this.inputs = inputs;
    }

    /** What the inputs are read from; read again before a record is written. */
    record Inputs(Path home, Path workingFolder, List<String> args, Map<String, String> environment,
            List<Path> bundleFolders) {
    }

    /**
     * The catalogue for this start, its inputs digested now.
     *
     * @return empty when there is no state folder or the workspace is not a folder
     */
    static Optional<McpCatalogue> of(Inputs source) throws IOException {
        Optional<Path> state = stateFolder(source.environment());
        if (state.isEmpty() || !Files.isDirectory(workspace(source))) {
            return Optional.empty();
        }
        String slot = sha256(source.home() + "\0" + source.workingFolder() + "\0" + String.join("\0", source.args()));
        return Optional.of(new McpCatalogue(state.get().resolve(slot.substring(0, 32) + ".record"), source,
                digest(source)));
    }

    static Optional<Path> stateFolder(Map<String, String> environment) {
        String state = environment.get("XDG_STATE_HOME");
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        if (state != null && !state.isBlank()) {
            return Optional.of(Path.of(state, "quiver", "mcp-tools"));
        }
        return home == null || home.isBlank() ? Optional.empty()
                : Optional.of(Path.of(home, ".local", "state", "quiver", "mcp-tools"));
    }

    /** The recorded catalogue when it is this user's, well formed and recorded with exactly these inputs. */
    Optional<Record> read() {
        try {
            if (!ownedAndPrivate(file.getParent()) || !ownedAndPrivate(file)) {
                return Optional.empty();
            }
            PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile() || attributes.size() > MAX_BYTES) {
                return Optional.empty();
            }
            String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n", -1);
            if (lines.length != 7 || !FORMAT.equals(lines[0]) || !lines[6].isEmpty()
                    || !lines[1].equals("inputs " + inputs)) {
                return Optional.empty();
            }
            return parse(lines);
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // missing, unreadable or garbled: start the ordinary way
        }
    }

    private static Optional<Record> parse(String[] lines) {
        String interactive = field(lines[2], "interactive");
        List<String> protocols = List.of(field(lines[3], "protocols").split(" "));
        String initialize = field(lines[4], "initialize");
        String tools = field(lines[5], "tools");
        if (!interactive.equals("true") && !interactive.equals("false")
                || protocols.stream().anyMatch(p -> !p.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}"))
                || !(MiniJson.parse(initialize) instanceof Map<?, ?> init) || init.containsKey("protocolVersion")
                || !(MiniJson.parse(tools) instanceof Map<?, ?> list) || !(list.get("tools") instanceof List<?> entries)) {
            return Optional.empty();
        }
        for (Object entry : entries) {
            if (!(entry instanceof Map<?, ?> tool) || !(tool.get("name") instanceof String)) {
                return Optional.empty();
            }
        }
        return Optional.of(new Record(Boolean.parseBoolean(interactive), protocols, initialize, tools));
    }

    private static String field(String line, String name) {
        if (!line.startsWith(name + " ")) {
            throw new IllegalArgumentException("no " + name);
        }
        return line.substring(name.length() + 1);
    }

    /**
     * Records the catalogue the live server answered with, if the inputs are still those of this
     * start (a config changed while it ran means the answer may belong to either) and it differs from
     * the record in place. Written beside the old record and moved over it, owner-only.
     */
    void write(boolean interactive, List<String> protocols, String initialize, String tools) {
        try {
            if (initialize.indexOf('\n') >= 0 || tools.indexOf('\n') >= 0
                    || !(MiniJson.parse(initialize) instanceof Map<?, ?>) || !(MiniJson.parse(tools) instanceof Map<?, ?>)
                    || !digest(source).equals(inputs)) {
                return;
            }
            String text = FORMAT + "\ninputs " + inputs + "\ninteractive " + interactive + "\nprotocols "
                    + String.join(" ", protocols) + "\ninitialize " + initialize + "\ntools " + tools + "\n";
            if (text.length() > MAX_BYTES) {
                return;
            }
            Path folder = file.getParent();
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (!ownedAndPrivate(folder)) {
                return;
            }
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    && text.equals(Files.readString(file, StandardCharsets.UTF_8))) {
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
        records.sort(java.util.Comparator.comparing(McpCatalogue::modified).reversed());
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
    private static String digest(Inputs source) throws IOException {
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("format", FORMAT);
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
        stateFolder(source.environment()).ifPresent(state -> files.add(state.resolveSibling("trusted-workspaces.json")));
        for (String arg : source.args()) {
            // every word that names a file: --config FILE, --mcp-config FILE, --config=FILE
            for (String word : arg.startsWith("--") && arg.contains("=") ? List.of(arg.substring(arg.indexOf('=') + 1))
                    : List.of(arg)) {
                if (!word.isEmpty() && word.indexOf('\0') < 0) {
                    Path named = source.workingFolder().resolve(word);
                    if (Files.isRegularFile(named)) {
                        files.add(named);
                    }
                }
            }
        }
        for (Path file : files) {
            entries.put("file " + file, content(file));
        }
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

    private static Optional<Path> userConfig(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Optional.of(Path.of(xdg, "quiver", "config.json"));
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, ".config", "quiver", "config.json"));
    }

    private static void list(TreeMap<String, String> entries, Path folder, int depth) throws IOException {
        if (!Files.isDirectory(folder)) {
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

    private static String stat(Path file) {
        try {
            var attributes = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            return attributes.size() + " " + attributes.lastModifiedTime().toMillis();
        } catch (IOException e) {
            return "absent";
        }
    }

    private static String content(Path file) {
        try {
            if (!Files.exists(file)) {
                return "absent";
            }
            if (Files.size(file) > MAX_DIGESTED_BYTES) {
                return "large " + stat(file);
            }
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    sha.update(buffer, 0, n);
                }
            }
            return HexFormat.of().formatHex(sha.digest());
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
