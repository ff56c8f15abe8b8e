package dev.quiver.kernel.preview;

import dev.quiver.api.FileReads;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The workspace of a call's dry run: everything it reads is the session's workspace as it is, and
 * every change it makes is recorded in order instead of made, so the user can see it before approving
 * and, once approved, exactly it is made ({@link Preview#apply}). What the model is told it wrote
 * ({@link FileReads#wrote}) is kept back until then.
 */
public final class RecordingWorkspace implements Workspace {

    private final Workspace real;
    private final String tool;
    private final List<Effect> effects = new ArrayList<>();
    private final List<Path> wrote = new ArrayList<>();

    public RecordingWorkspace(Workspace real) {
        this(real, "preview");
    }

    /** @param tool the tool whose call is recorded: the name its direct operations are made under */
    public RecordingWorkspace(Workspace real, String tool) {
        this.real = real;
        this.tool = tool;
    }

    String tool() {
        return tool;
    }

    /** One thing the call would have done to the tree, in order. */
    sealed interface Effect permits Committed, Direct {
    }

    /** A {@link Workspace.Change} the call committed, with its steps in order. */
    record Committed(String tool, List<Step> steps) implements Effect {
    }

    /** One of the workspace's own operations: {@code delete}, {@code createDirectories}, a whole write. */
    record Direct(Step step) implements Effect {
    }

    /** A step of a change, or a direct operation, as it was asked for. */
    sealed interface Step permits Replace, Permissions, Delete, Move, Copy, MakeFolders, MakeLink {
    }

    record Replace(Path file, byte[] before, byte[] after) implements Step {
    }

    record Permissions(Path file, Set<PosixFilePermission> permissions) implements Step {
    }

    record Delete(Path file, byte[] before) implements Step {
    }

    record Move(Path from, Path to) implements Step {
    }

    record Copy(Path from, Path to) implements Step {
    }

    record MakeFolders(Path folder) implements Step {
    }

    record MakeLink(Path link, Path target) implements Step {
    }

    List<Effect> effects() {
        synchronized (effects) {
            return List.copyOf(effects);
        }
    }

    List<Path> wrote() {
        synchronized (effects) {
            return List.copyOf(wrote);
        }
    }

    Workspace real() {
        return real;
    }

    private void record(Effect effect) {
        synchronized (effects) {
            effects.add(effect);
        }
    }

    // ---- changes: recorded ----

    @Override
    public Change change(String tool) {
        List<Step> steps = new ArrayList<>();
        return new Change() {
            @Override
            public Change write(Path file, byte[] content) {
                // made as a replace of what is there now: what the question shows is what it replaces
                steps.add(new Replace(file, current(file), content.clone()));
                return this;
            }

            @Override
            public Change replace(Path file, byte[] before, byte[] after) {
                steps.add(new Replace(file, before == null ? null : before.clone(), after.clone()));
                return this;
            }

            @Override
            public Change permissions(Path file, Set<PosixFilePermission> permissions) {
                steps.add(new Permissions(file, Set.copyOf(permissions)));
                return this;
            }

            @Override
            public Change delete(Path file, byte[] before) {
                steps.add(new Delete(file, before == null ? null : before.clone()));
                return this;
            }

            @Override
            public Change move(Path from, Path to) {
                steps.add(new Move(from, to));
                return this;
            }

            @Override
            public Change copy(Path from, Path to) {
                steps.add(new Copy(from, to));
                return this;
            }

            @Override
            public void commit() {
                if (!steps.isEmpty()) {
                    record(new Committed(tool, List.copyOf(steps)));
                }
            }
        };
    }

    @Override
    public void write(Path file, byte[] content) {
        // made as a replace of what is there now, so a file changed while the question waits is refused
        record(new Direct(new Replace(file, current(file), content.clone())));
    }

    @Override
    public void createDirectories(Path directory) {
        record(new Direct(new MakeFolders(directory)));
    }

    @Override
    public void move(Path from, Path to) {
        record(new Direct(new Move(from, to)));
    }

    @Override
    public void copy(Path from, Path to) {
        record(new Direct(new Copy(from, to)));
    }

    @Override
    public void delete(Path path) {
        // a file is deleted only if it still holds what it held now; a link or a folder goes as it is
        record(new Direct(new Delete(path, current(path))));
    }

    /**
     * A regular file's bytes as they are now, null when there is none there (or a link, a folder); a
     * file too large to hold makes the dry run's changes unknowable, so none is shown.
     */
    private byte[] current(Path file) {
        try {
            if (java.nio.file.Files.isSymbolicLink(file)) {
                unknowable = true; // written through to its target: compared there, not shown here
                return null;
            }
            if (!java.nio.file.Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            try (java.io.InputStream in = java.nio.channels.Channels.newInputStream(real.openRead(file))) {
                byte[] bytes = in.readNBytes(MAX_HELD_BYTES + 1);
                if (bytes.length > MAX_HELD_BYTES) {
                    unknowable = true;
                }
                return bytes;
            }
        } catch (IOException | RuntimeException unreadable) {
            unknowable = true;
            return null;
        }
    }

    /** The largest file whose bytes a dry run keeps to compare before deleting or replacing it. */
    static final int MAX_HELD_BYTES = 16 << 20;

    private volatile boolean unknowable;

    /** Whether a change could not be recorded exactly: the call is then asked about without a preview. */
    boolean unknowable() {
        return unknowable;
    }

    @Override
    public void setPermissions(Path path, Set<PosixFilePermission> permissions) {
        record(new Direct(new Permissions(path, Set.copyOf(permissions))));
    }

    @Override
    public void createLink(Path link, Path target) {
        record(new Direct(new MakeLink(link, target)));
    }

    @Override
    public FileReads reads() {
        FileReads reads = real.reads();
        return new FileReads() {
            @Override
            public void read(Path file) {
                reads.read(file);
            }

            @Override
            public void wrote(Path file) {
                // the file is not written yet: the model is told it holds the new content once it does
                synchronized (effects) {
                    wrote.add(file);
                }
            }

            @Override
            public void requireFresh(Path file) throws ToolException {
                reads.requireFresh(file);
            }
        };
    }

    // ---- everything else: the session's workspace as it is ----

    @Override
    public Path root() {
        return real.root();
    }

    @Override
    public Path resolve(String path) throws ToolException {
        return real.resolve(path);
    }

    @Override
    public String relativize(Path path) {
        return real.relativize(path);
    }

    @Override
    public boolean isSecret(Path path) {
        return real.isSecret(path);
    }

    @Override
    public boolean isIgnored(Path path) {
        return real.isIgnored(path);
    }

    @Override
    public boolean isTracked(Path file) {
        return real.isTracked(file);
    }

    @Override
    public Optional<Path> gitDir() {
        return real.gitDir();
    }

    @Override
    public List<byte[]> recordedContents(Path file, int maxBytes) {
        return real.recordedContents(file, maxBytes);
    }

    @Override
    public boolean isProtected(Path path) {
        return real.isProtected(path);
    }

    @Override
    public List<Path> secretFiles() throws IOException {
        return real.secretFiles();
    }

    @Override
    public void walk(Path directory, boolean includeIgnored, int maxDepth, Predicate<Entry> visitor) throws IOException {
        real.walk(directory, includeIgnored, maxDepth, visitor);
    }

    @Override
    public List<String> files(Path directory, boolean includeIgnored) throws IOException {
        return real.files(directory, includeIgnored);
    }

    @Override
    public FileList fileList(Path directory, boolean includeIgnored) throws IOException {
        return real.fileList(directory, includeIgnored);
    }

    @Override
    public Predicate<String> globMatcher(String glob) throws ToolException {
        return real.globMatcher(glob);
    }

    @Override
    public TextFile readText(Path file) throws ToolException {
        return real.readText(file);
    }

    @Override
    public TextWindow readLines(Path file, int offset, int limit) throws ToolException {
        return real.readLines(file, offset, limit);
    }

    @Override
    public List<String> recovered() {
        return real.recovered();
    }

    @Override
    public java.nio.channels.SeekableByteChannel openRead(Path file) throws IOException {
        return real.openRead(file);
    }

    @Override
    public Folder openFolder(Path directory) throws IOException {
        return real.openFolder(directory);
    }
}
