package dev.quiver.workspace;

import dev.quiver.api.FileReads;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/** The {@link Workspace} implementation: a real root, a jail around it, and its ignore rules. */
final class JailedWorkspace implements Workspace {

    /** A NUL byte within this many leading bytes marks a file as binary, as git and grep judge it. */
    static final int BINARY_PROBE_BYTES = 8192;
    /** Whole-file reads stop here, so one call cannot take the host's memory. */
    static final long MAX_TEXT_BYTES = 32L * 1024 * 1024;
    private static final int MAX_LINK_HOPS = 40;

    private final Path root;
    private final IgnoreRules ignoreRules;
    final Walker walker;
    private final ReadLedger reads;
    private final SecretIndex secrets;
    private final Jail jail;
    private final Optional<Path> gitDir;
    /** Where the journals of changes go: the state folder's {@value Transaction#FOLDER}; null without one. */
    private final Path journals;
    /** Quiver's state folder relative to the root where it lies inside (the home as the workspace), else null. */
    private final Path stateInside;
    private final List<String> recovered;

    private JailedWorkspace(Path root, Path stateFolder) {
        this.root = root;
        this.journals = stateFolder == null ? null : stateFolder.resolve(Transaction.FOLDER);
        this.stateInside = inside(root, stateFolder);
        this.jail = new Jail(root, stateInside);
        this.ignoreRules = IgnoreRules.forRoot(root);
        this.gitDir = ignoreRules.gitDir().flatMap(JailedWorkspace::realPath);
        this.walker = new Walker(root, ignoreRules);
        this.reads = new ReadLedger(this);
        this.secrets = new SecretIndex(root, walker);
        this.recovered = journals == null ? List.of() : List.copyOf(Transaction.recover(this, jail, journals));
    }

    @Override
    public FileReads reads() {
        return reads;
    }

    static JailedWorkspace open(Path root) throws IOException {
        return open(root, null);
    }

    /**
     * Opens a workspace; with a state folder, its changes keep journals there, and what a killed
     * process left half done is finished or rolled back now.
     *
     * @param stateFolder Quiver's folder for this workspace, outside the working tree; null for none
     */
    static JailedWorkspace open(Path root, Path stateFolder) throws IOException {
        Path real = root.toAbsolutePath().toRealPath();
        if (!Files.isDirectory(real)) {
            throw new IOException("Workspace is not a directory: " + root);
        }
        return new JailedWorkspace(real, stateFolder);
    }

    @Override
    public List<String> recovered() {
        return recovered;
    }

    @Override
    public Change change(String tool) {
        return new Transaction(this, jail, journals, tool);
    }

    @Override
    public Path root() {
        return root;
    }

    @Override
    public Path resolve(String path) throws ToolException {
        if (path == null || path.isBlank()) {
            throw new ToolException("Path is empty. Give a path relative to the workspace root, such as src/Main.java.");
        }
        if (path.indexOf('\0') >= 0) {
            throw new ToolException("Path contains a NUL character: " + printable(path));
        }
        Path candidate;
        try {
            candidate = named(root, path).normalize();
        } catch (InvalidPathException e) {
            throw new ToolException("Invalid path: " + printable(path) + " (" + e.getReason() + ").");
        }
        Path real = realPath(candidate, 0);
        if (real == null || !real.startsWith(root)) {
            throw new ToolException("Path escapes workspace: " + printable(path));
        }
        if (!real.equals(root) && Secrets.isSecret(real) && !Secrets.isSecret(candidate)) {
            // the name asked for was judged (by the permission rules) as no secret; what it leads to is one
            throw new ToolException(printable(path) + " is a link to " + relativize(real) + ", which holds secrets by "
                    + "its name; it is not followed. Ask the user for the value you need.");
        }
        return real;
    }

    /**
     * Whether a name is one element with no escaped bytes, which a held folder opens as it is: a search
     * opens every file of the tree this way, without a path normalisation per file (nor, in a fresh
     * process, its compilation).
     */
    private static boolean isPlainName(String name) {
        return !name.isEmpty() && name.indexOf('/') < 0 && name.indexOf('\\') < 0 && !name.equals(".")
                && !name.equals("..");
    }

    /**
     * The path a model's text names below a folder. A name shown with {@code \xHH} escapes
     * ({@link FileNames}) names the file with those bytes, unless a file is literally called so.
     */
    private static Path named(Path folder, String path) {
        Path literal = folder.resolve(path);
        if (path.indexOf('\\') < 0 || Files.exists(literal, LinkOption.NOFOLLOW_LINKS)) {
            return literal;
        }
        return FileNames.unescaped(folder, path).orElse(literal);
    }

    /**
     * The real path of a possibly missing path: the real path of its longest existing prefix with
     * the rest appended, following dangling links by hand. Null when the links loop.
     */
    private static Path realPath(Path path, int hops) {
        if (hops > MAX_LINK_HOPS) {
            return null;
        }
        Path existing = path;
        List<Path> rest = new ArrayList<>();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            rest.add(0, existing.getFileName());
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            // a dangling link (or a loop): follow its target by hand so a link out of the workspace is caught
            try {
                Path target = Files.readSymbolicLink(existing);
                Path parent = existing.getParent();
                Path next = (parent == null ? target : parent.resolve(target)).normalize();
                real = realPath(next, hops + 1);
                if (real == null) {
                    return null;
                }
            } catch (IOException | UnsupportedOperationException notALink) {
                return null;
            }
        }
        for (Path part : rest) {
            real = real.resolve(part.toString());
        }
        return real.normalize();
    }

    private static String printable(String path) {
        String shown = path.replace("\0", "\\0");
        return shown.length() > 300 ? shown.substring(0, 300) + "..." : shown;
    }

    @Override
    public String relativize(Path path) {
        Path relative = root.relativize(path.toAbsolutePath().normalize());
        String text = FileNames.shown(relative);
        return text.isEmpty() ? "." : text;
    }

    @Override
    public boolean isSecret(Path path) {
        return Secrets.isSecret(path);
    }

    @Override
    public boolean isIgnored(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        if (isDotGit(absolute)) {
            return true;
        }
        ignoreRules.refresh();
        return ignoreRules.isIgnored(absolute, Files.isDirectory(absolute, LinkOption.NOFOLLOW_LINKS));
    }

    @Override
    public boolean isTracked(Path file) {
        return ignoreRules.isTracked(file.toAbsolutePath().normalize());
    }

    @Override
    public Optional<Path> gitDir() {
        return gitDir;
    }

    private static Optional<Path> realPath(Path path) {
        try {
            return Optional.of(path.toRealPath());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<byte[]> recordedContents(Path file, int maxBytes) {
        return ignoreRules.recorded(file.toAbsolutePath().normalize(), maxBytes);
    }

    @Override
    public boolean isProtected(Path path) {
        Path real = realPath(path.toAbsolutePath().normalize(), 0);
        if (real == null) {
            return true; // links that loop cannot be judged, so they are not written through
        }
        if (!real.startsWith(root) || real.equals(root)) {
            return false;
        }
        Path relative = root.relativize(real);
        String first = relative.getName(0).toString();
        return first.equalsIgnoreCase(".git") || first.equalsIgnoreCase(".quiver")
                || stateInside != null && Jail.within(relative, stateInside);
    }

    /** The state folder relative to the root where it lies inside (the home folder as the workspace), else null. */
    private static Path inside(Path root, Path stateFolder) {
        Path state = stateFolder == null ? null : realPath(stateFolder.toAbsolutePath().normalize(), 0);
        return state != null && state.startsWith(root) && !state.equals(root) ? root.relativize(state) : null;
    }

    @Override
    public List<Path> secretFiles() throws IOException {
        return secrets.secrets();
    }

    private boolean isDotGit(Path absolute) {
        for (Path p = absolute; p != null && p.startsWith(root) && !p.equals(root); p = p.getParent()) {
            if (p.getFileName().toString().equals(".git")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void walk(Path directory, boolean includeIgnored, int maxDepth, Predicate<Entry> visitor) throws IOException {
        walker.walk(directory.toAbsolutePath().normalize(), includeIgnored, maxDepth, visitor);
    }

    @Override
    public List<String> files(Path directory, boolean includeIgnored) throws IOException {
        return walker.files(directory.toAbsolutePath().normalize(), includeIgnored);
    }

    @Override
    public FileList fileList(Path directory, boolean includeIgnored) throws IOException {
        return walker.fileList(directory.toAbsolutePath().normalize(), includeIgnored);
    }

    @Override
    public Predicate<String> globMatcher(String glob) throws ToolException {
        return Globs.matcher(glob);
    }

    @Override
    public TextFile readText(Path file) throws ToolException {
        String shown = relativize(file);
        requireRegularFile(file, shown);
        byte[] bytes;
        try (SeekableByteChannel channel = jail.openRead(file)) {
            long size = channel.size();
            if (size > MAX_TEXT_BYTES) {
                throw new ToolException(shown + " is " + (size / (1024 * 1024)) + " MB, more than the "
                        + (MAX_TEXT_BYTES / (1024 * 1024)) + " MB a whole-file read or edit takes. "
                        + "read_file reads it in parts (offset, limit) and grep searches it; change it with bash "
                        + "(sed -i) or replace it whole with write_file.");
            }
            bytes = readAll(channel, MAX_TEXT_BYTES);
        } catch (FileSystemException e) {
            throw new ToolException("Cannot read " + shown + ": " + reason(e) + ".", e);
        } catch (IOException e) {
            throw new ToolException("Cannot read " + shown + ": " + e.getMessage(), e);
        }
        if (isBinary(bytes)) {
            throw new ToolException(shown + " is a binary file (it has a NUL byte in its first 8 KB); "
                    + "only text files can be read.");
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
            return new TextFile(text, StandardCharsets.UTF_8, bytes.length);
        } catch (CharacterCodingException notUtf8) {
            return new TextFile(new String(bytes, StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1, bytes.length);
        }
    }

    @Override
    public TextWindow readLines(Path file, int offset, int limit) throws ToolException {
        if (offset < 1 || limit < 1) {
            throw new IllegalArgumentException("offset and limit start at 1: " + offset + ", " + limit);
        }
        String shown = relativize(file);
        requireRegularFile(file, shown);
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            size = 0; // readText opens it through the jail and says why it cannot
        }
        if (size > MAX_TEXT_BYTES) {
            return LargeText.window(jail, file, shown, offset, limit, MAX_TEXT_BYTES);
        }
        TextFile text = readText(file);
        List<String> lines = dev.quiver.api.Text.lines(text.text());
        int from = (int) Math.min(offset - 1L, lines.size());
        int to = (int) Math.min((long) from + limit, lines.size());
        return new TextWindow(lines.subList(from, to), lines.size(), text.charset());
    }

    private static void requireRegularFile(Path file, String shown) throws ToolException {
        if (Files.isDirectory(file)) {
            throw new ToolException(shown + " is a directory, not a file. List it with glob or list_dir.");
        }
        if (!Files.exists(file)) {
            throw new ToolException("No such file: " + shown);
        }
        if (!Files.isRegularFile(file)) {
            // a named pipe or a device would block the read or never end (the jail checks again as it opens)
            throw new ToolException(shown + " is not a regular file (a pipe, socket or device); it cannot be read.");
        }
    }

    static boolean isBinary(byte[] bytes) {
        int probe = Math.min(bytes.length, BINARY_PROBE_BYTES);
        for (int i = 0; i < probe; i++) {
            if (bytes[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether a file on disk looks binary, reading only its first 8 KB. */
    boolean isBinary(Path file) throws IOException {
        try (SeekableByteChannel channel = jail.openRead(file)) {
            ByteBuffer probe = ByteBuffer.allocate(BINARY_PROBE_BYTES);
            while (probe.hasRemaining() && channel.read(probe) >= 0) {
                // until the probe is full or the file ends
            }
            return isBinary(java.util.Arrays.copyOf(probe.array(), probe.position()));
        }
    }

    /** All of a channel's bytes, failing past {@code limit}: a file may grow while it is read. */
    static byte[] readAll(SeekableByteChannel channel, long limit) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) Math.min(channel.size(), limit));
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        while (channel.read(buffer) >= 0) {
            out.write(buffer.array(), 0, buffer.position());
            buffer.clear();
            if (out.size() > limit) {
                throw new IOException("it grew past " + (limit / (1024 * 1024)) + " MB while it was read");
            }
        }
        return out.toByteArray();
    }

    /** A jail error's reason alone: the path is named by the caller already. */
    static String reason(FileSystemException e) {
        return e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
    }

    @Override
    public void write(Path file, byte[] content) throws IOException {
        change("write").write(file, content).commit();
    }

    @Override
    public SeekableByteChannel openRead(Path file) throws IOException {
        return jail.openRead(file);
    }

    @Override
    public Folder openFolder(Path directory) throws IOException {
        return new HeldFolder(jail.openFolder(directory), directory.toAbsolutePath().normalize());
    }

    /** A folder held open by the jail, and its path as it was asked for (a link on it kept as it is). */
    private final class HeldFolder implements Folder {
        private final SecureDirectoryStream<Path> folder;
        private final Path path;

        HeldFolder(SecureDirectoryStream<Path> folder, Path path) {
            this.folder = folder;
            this.path = path;
        }

        @Override
        public SeekableByteChannel openRead(String name) throws IOException {
            if (isPlainName(name)) {
                return jail.openRead(folder, path, path.getFileSystem().getPath(name));
            }
            // a path of several elements is walked from the root as any path is: opened relative to
            // the held folder, "../x" would lead out of the workspace
            return jail.openRead(named(path, name));
        }

        @Override
        public Folder openFolder(String name) throws IOException {
            if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || name.equals(".")
                    || name.equals("..")) {
                throw new FileSystemException(relativize(path) + "/" + printable(name), null,
                        "not one folder name; give the name of a folder of this folder");
            }
            Path child = isPlainName(name) ? path.getFileSystem().getPath(name) : escapedName(name);
            return new HeldFolder(jail.openFolder(folder, path, child), path.resolve(child));
        }

        /** A name shown with {@code \xHH} escapes, as bytes, unless this folder holds one literally so called. */
        private Path escapedName(String name) throws IOException {
            Path literal = path.getFileSystem().getPath(name);
            if (Jail.attributes(folder, literal) != null) {
                return literal;
            }
            return FileNames.unescaped(path, name).map(Path::getFileName).orElse(literal);
        }

        @Override
        public void close() throws IOException {
            folder.close();
        }
    }

    @Override
    public void createDirectories(Path directory) throws IOException {
        jail.createDirectories(directory);
    }

    @Override
    public void move(Path from, Path to) throws IOException {
        change("move").move(from, to).commit();
    }

    @Override
    public void copy(Path from, Path to) throws IOException {
        change("copy").copy(from, to).commit();
    }

    @Override
    public void delete(Path path) throws IOException {
        jail.delete(path);
    }

    @Override
    public void createLink(Path link, Path target) throws IOException {
        jail.createLink(link, target);
    }

    @Override
    public void setPermissions(Path file, Set<PosixFilePermission> permissions) throws IOException {
        jail.setPermissions(file, permissions);
    }
}
