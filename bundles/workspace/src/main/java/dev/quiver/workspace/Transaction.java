package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A {@link Workspace.Change}: the one place that decides how files change, and how a change a killed
 * process left half done is finished or rolled back.
 *
 * <p>Commit runs in three phases. <b>Stage</b>: every new content is written under a temporary name
 * next to its target and flushed; every temporary and folder is first listed in a pending file,
 * {@code <state>/changes/<id>.pending}, which the process holds locked while it works. <b>Journal</b>
 * (a change of more than one step, or a delete that compares): every step, with the digest each
 * target must hold before and will hold after, is written to {@code <id>.journal.part}, flushed, and
 * renamed to {@code <id>.journal}: a journal that exists is complete. <b>Apply</b>: the renames and
 * deletions, each target compared right before it goes; then the journal and the pending file are
 * removed.
 *
 * <p>{@link #recover} runs where the workspace is opened with its state folder. A pending file nobody
 * holds locked belongs to a dead process: with a complete journal the change is rolled forward (a
 * target that holds neither its before nor its after content was changed by someone else since and is
 * left alone, and named); without one it is rolled back (its temporaries and the folders it made are
 * removed, and since no rename happens before the journal exists, no file was changed).
 */
final class Transaction implements Workspace.Change {

    static final String FOLDER = "changes";
    /** How a failed commit that touched no file of the tree ends its message. */
    static final String NOTHING_CHANGED = "No file was changed.";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** Larger than any record a commit writes (a path a line); a bigger one is not read whole into memory. */
    static final long MAX_RECORD_BYTES = 64L << 20;
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("d MMM HH:mm", Locale.ENGLISH);

    private sealed interface Step permits Write, Delete, Move, Copy {
    }

    private record Write(Path file, byte[] content, Jail.Expect before) implements Step {
    }

    private record Delete(Path file, Jail.Expect before) implements Step {
    }

    private record Move(Path from, Path to) implements Step {
    }

    private record Copy(Path from, Path to) implements Step {
    }

    private final Jail jail;
    private final JailedWorkspace workspace;
    /** Where pending files and journals go; null for a workspace opened without a state folder. */
    private final Path journals;
    private final String tool;
    private final List<Step> steps = new ArrayList<>();
    private final Map<Path, Set<PosixFilePermission>> permissions = new HashMap<>();

    Transaction(JailedWorkspace workspace, Jail jail, Path journals, String tool) {
        this.workspace = workspace;
        this.jail = jail;
        this.journals = journals;
        this.tool = tool.replaceAll("[\\t\\n\\\\]", "_");
    }

    @Override
    public Workspace.Change write(Path file, byte[] content) {
        steps.add(new Write(file, content.clone(), Jail.Expect.ANY));
        return this;
    }

    @Override
    public Workspace.Change replace(Path file, byte[] before, byte[] after) {
        steps.add(new Write(file, after.clone(), before == null ? Jail.Expect.ABSENT : Jail.Expect.of(Jail.digest(before))));
        return this;
    }

    @Override
    public Workspace.Change permissions(Path file, Set<PosixFilePermission> permissions) {
        this.permissions.put(file, Set.copyOf(permissions));
        return this;
    }

    @Override
    public Workspace.Change delete(Path file, byte[] before) {
        // without content to compare, what is there goes as it is: a link itself, or a folder emptied before
        steps.add(new Delete(file, before == null ? Jail.Expect.ANY : Jail.Expect.of(Jail.digest(before))));
        return this;
    }

    @Override
    public Workspace.Change move(Path from, Path to) {
        steps.add(new Move(from, to));
        return this;
    }

    @Override
    public Workspace.Change copy(Path from, Path to) {
        steps.add(new Copy(from, to));
        return this;
    }

    /** A step made ready: its staged content, when it has one. */
    private record Ready(Step step, Jail.Staged staged) {
    }

    @Override
    public void commit() throws IOException {
        if (steps.isEmpty()) {
            return;
        }
        Pending pending;
        try {
            pending = journals == null ? null : Pending.begin(journals, tool);
        } catch (IOException e) {
            throw new IOException("Quiver's state folder cannot hold the change's journal (" + journals + ": "
                    + e.getMessage() + "). " + NOTHING_CHANGED, e);
        }
        List<Path> made = new ArrayList<>();
        Jail.Registry registry = path -> {
            if (pending != null) {
                pending.add(path);
            }
            made.add(path);
        };
        List<Ready> ready = new ArrayList<>();
        boolean journaled = false;
        try {
            for (Step step : steps) {
                ready.add(stage(step, registry));
            }
            if (pending != null && (steps.size() > 1 || setsAside(steps.get(0)))) {
                pending.journal(journal(ready));
                journaled = true;
            }
        } catch (IOException | RuntimeException e) {
            rollBack(ready, made);
            if (pending != null) {
                pending.end();
            }
            if (e instanceof IOException io) {
                throw new IOException(io.getMessage() + ". " + NOTHING_CHANGED, io);
            }
            throw e;
        }
        List<String> failures = new ArrayList<>();
        int applied = 0;
        for (Ready step : ready) {
            try {
                apply(step, registry);
                applied++;
            } catch (IOException e) {
                // a one-step change that failed changed nothing, journaled or not (a delete puts its file back)
                if (applied == 0 && (!journaled || ready.size() == 1)) {
                    rollBack(ready, made);
                    if (pending != null) {
                        pending.end();
                    }
                    throw new IOException(e.getMessage() + ". " + NOTHING_CHANGED, e);
                }
                failures.add(e.getMessage());
                if (step.staged() != null) {
                    jail.discard(step.staged());
                }
            }
        }
        if (pending != null) {
            pending.end();
        }
        if (!failures.isEmpty()) {
            // past the journal the change is made, not taken back: that could drop what others wrote since
            throw new IOException(String.join("; ", failures) + ". Every other file of the change was changed.");
        }
    }

    /**
     * Whether a step moves its file aside under a temporary's name before it is decided: a delete that
     * compares. Without a journal, a kill right then would leave recovery only a temporary, which it
     * removes, saying the change was rolled back while the file is gone; with one, it is finished.
     */
    private static boolean setsAside(Step step) {
        return step instanceof Delete delete && !delete.before().any();
    }

    /** The file a step's failure names: the one it writes, deletes or makes, or a move's source. */
    private static Path fileOf(Step step) {
        if (step instanceof Write write) {
            return write.file();
        } else if (step instanceof Delete delete) {
            return delete.file();
        } else if (step instanceof Copy copy) {
            return copy.to();
        }
        return ((Move) step).from();
    }

    private Ready stage(Step step, Jail.Registry registry) throws IOException {
        try {
            return stageNamed(step, registry);
        } catch (IOException e) {
            throw jail.named(fileOf(step), e);
        }
    }

    private Ready stageNamed(Step step, Jail.Registry registry) throws IOException {
        if (step instanceof Write write) {
            if (!write.before().any()) {
                // an edit; a whole write (undo restoring what a turn changed) puts back what was, whatever the mode
                refuseReadOnly(write.file());
            }
            Jail.Staged staged = jail.stage(write.file(), write.content(), permissions.get(write.file()), registry);
            // compared now as well, so that a file changed since it was read stops the change before any rename
            requireExpected(staged.file(), write.before(), staged);
            return new Ready(step, staged);
        }
        if (step instanceof Delete delete) {
            requireExpected(delete.file(), delete.before(), null);
        } else if (step instanceof Copy copy) {
            return new Ready(step, jail.stageCopy(copy.from(), copy.to(), registry));
        }
        return new Ready(step, null);
    }

    private void requireExpected(Path file, Jail.Expect expect, Jail.Staged staged) throws IOException {
        if (!matches(jail.digest(file), expect)) {
            if (staged != null) {
                jail.discard(staged);
            }
            throw new Jail.ChangedException(workspace.relativize(file));
        }
    }

    private static boolean matches(byte[] digest, Jail.Expect expect) {
        return expect.any() || (expect.digest() == null ? digest == null : Arrays.equals(digest, expect.digest()));
    }

    /** A file without write permission for its owner is not replaced behind that mode's back. */
    private void refuseReadOnly(Path file) throws IOException {
        Path real = file;
        try {
            real = file.toRealPath();
        } catch (IOException missing) {
            return;
        }
        if (!Files.isRegularFile(real)) {
            return;
        }
        Set<PosixFilePermission> mode;
        try {
            mode = Files.getPosixFilePermissions(real);
        } catch (UnsupportedOperationException | IOException noModes) {
            return;
        }
        if (!mode.contains(PosixFilePermission.OWNER_WRITE)) {
            throw new Jail.Said(workspace.relativize(file), "it is read-only (mode "
                    + PosixFilePermissions.toString(mode) + "); it is not replaced. If it "
                    + "should change, make it writable first (chmod u+w), or ask the user");
        }
    }

    private void apply(Ready ready, Jail.Registry registry) throws IOException {
        try {
            applyNamed(ready, registry);
        } catch (IOException e) {
            throw jail.named(fileOf(ready.step()), e);
        }
    }

    private void applyNamed(Ready ready, Jail.Registry registry) throws IOException {
        Step step = ready.step();
        if (step instanceof Write write) {
            jail.swap(ready.staged(), write.before());
        } else if (step instanceof Delete delete) {
            jail.remove(delete.file(), delete.before(), registry);
        } else if (step instanceof Copy) {
            jail.place(ready.staged());
        } else if (step instanceof Move move) {
            jail.move(move.from(), move.to(), registry);
        }
    }

    /** Removes what was staged and the folders made for it, deepest first; no file of the tree was touched. */
    private void rollBack(List<Ready> ready, List<Path> made) {
        for (Ready step : ready) {
            if (step.staged() != null) {
                jail.discard(step.staged());
            }
        }
        for (int i = made.size() - 1; i >= 0; i--) {
            Path path = made.get(i);
            if (!Temporaries.isTemporary(path.getFileName().toString())) {
                try {
                    jail.deleteEmptyFolder(path);
                } catch (IOException unreachable) {
                    // its folder above is gone or changed
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ journal

    private static String journal(List<Ready> ready) {
        StringBuilder out = new StringBuilder();
        for (Ready step : ready) {
            if (step.step() instanceof Write write) {
                line(out, "write", journaled(step.staged().file()), step.staged().temporary(),
                        expectText(write.before()), HexFormat.of().formatHex(Jail.digest(write.content())));
            } else if (step.step() instanceof Delete delete) {
                line(out, "delete", journaled(delete.file()), expectText(delete.before()));
            } else if (step.step() instanceof Copy) {
                line(out, "copy", journaled(step.staged().file()), step.staged().temporary());
            } else if (step.step() instanceof Move move) {
                line(out, "move", journaled(move.from()), journaled(move.to()));
            }
        }
        out.append("end\n");
        return out.toString();
    }

    /**
     * A path as a journal holds it: its text, or, when a name's bytes are not UTF-8 (its text would name
     * another file), its {@code file:} URI, which keeps every byte. An absolute path never starts so.
     */
    static String journaled(Path path) {
        String text = path.toString();
        return text.indexOf('\uFFFD') < 0 ? text : path.toUri().toString();
    }

    /** The path a journal's text names ({@link #journaled(Path)}). */
    static Path journaled(String text) {
        return text.startsWith("file:") ? Path.of(java.net.URI.create(text)) : Path.of(text);
    }

    private static String expectText(Jail.Expect expect) {
        return expect.any() ? "any" : expect.digest() == null ? "absent" : HexFormat.of().formatHex(expect.digest());
    }

    private static Jail.Expect expect(String text) {
        return switch (text) {
            case "any" -> Jail.Expect.ANY;
            case "absent" -> Jail.Expect.ABSENT;
            default -> Jail.Expect.of(HexFormat.of().parseHex(text));
        };
    }

    private static void line(StringBuilder out, String... fields) {
        for (int i = 0; i < fields.length; i++) {
            out.append(i == 0 ? "" : "\t").append(escape(fields[i]));
        }
        out.append('\n');
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    private static String[] fields(String line) {
        String[] parts = line.split("\t", -1);
        for (int i = 0; i < parts.length; i++) {
            StringBuilder out = new StringBuilder();
            String part = parts[i];
            for (int k = 0; k < part.length(); k++) {
                char c = part.charAt(k);
                if (c == '\\' && k + 1 < part.length()) {
                    char next = part.charAt(++k);
                    out.append(next == 't' ? '\t' : next == 'n' ? '\n' : next == 'r' ? '\r' : next);
                } else {
                    out.append(c);
                }
            }
            parts[i] = out.toString();
        }
        return parts;
    }

    /**
     * The pending file of one commit, held locked while it runs: its first line names the tool and the
     * time, each further line a temporary or folder about to be made.
     */
    private static final class Pending {
        private final Path file;
        private final FileChannel channel;
        private final FileLock lock;

        private Pending(Path file, FileChannel channel, FileLock lock) {
            this.file = file;
            this.channel = channel;
            this.lock = lock;
        }

        static Pending begin(Path journals, String tool) throws IOException {
            if (!Files.isDirectory(journals)) {
                // owner only: the journals name the workspace's files and say what is done to them
                Files.createDirectories(journals.getParent());
                try {
                    Files.createDirectory(journals, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                } catch (java.nio.file.FileAlreadyExistsException madeMeanwhile) {
                    // by another commit of this workspace
                }
            }
            String id = System.currentTimeMillis() + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
            Path file = journals.resolve(id + ".pending");
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try {
                Pending pending = new Pending(file, channel, channel.lock());
                pending.append(tool + "\t" + System.currentTimeMillis());
                return pending;
            } catch (IOException | RuntimeException e) {
                channel.close();
                Files.deleteIfExists(file);
                throw e;
            }
        }

        /** Listed before it is made; a write that returned is seen by the next process even after a kill. */
        void add(Path path) throws IOException {
            append(escape(journaled(path)));
        }

        private void append(String line) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }

        /** Writes the journal whole, then gives it its name: the moment from which the change is finished, not undone. */
        void journal(String text) throws IOException {
            Path part = sibling(".journal.part");
            try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(true);
            }
            Files.move(part, sibling(".journal"), StandardCopyOption.ATOMIC_MOVE);
            Jail.forceFolder(file.getParent());
        }

        private Path sibling(String suffix) {
            String name = file.getFileName().toString();
            return file.resolveSibling(name.substring(0, name.length() - ".pending".length()) + suffix);
        }

        /** Removes the journal, then the pending file, and lets go of the lock. */
        void end() {
            try {
                Files.deleteIfExists(sibling(".journal"));
                Files.deleteIfExists(sibling(".journal.part"));
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // left for the next start, which finds it unlocked and finishes it again (every step checks first)
            } finally {
                try {
                    lock.release();
                    channel.close();
                } catch (IOException ignored) {
                    // closing releases the lock in any case
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ recovery

    /**
     * Finishes or rolls back every change a dead process left in {@code journals}, and removes the
     * temporaries it registered; returns one sentence for each change that had started to touch the tree.
     * Each one's journal and pending file are removed whatever came of it: one left would be found, and
     * told of, again at every start.
     */
    static List<String> recover(JailedWorkspace workspace, Jail jail, Path journals) {
        List<String> said = new ArrayList<>();
        if (!Files.isDirectory(journals)) {
            return said;
        }
        List<Path> pendings = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(journals, "*.pending")) {
            stream.forEach(pendings::add);
        } catch (IOException unreadable) {
            return List.of("Interrupted changes could not be looked for in " + journals + ": " + unreadable.getMessage());
        }
        pendings.sort(null);
        for (Path file : pendings) {
            String notOurs = notOurs(file);
            if (notOurs != null) {
                // a pipe would hang every start, a link to a device or a huge file would fill the heap
                try {
                    Files.deleteIfExists(file);
                    said.add("A change record (" + file.getFileName() + ") was removed unread: it " + notOurs + ".");
                } catch (IOException e) {
                    said.add("A change record (" + file.getFileName() + ") " + notOurs + " and could not be removed: "
                            + e.getMessage());
                }
                continue;
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException ownedHere) {
                    continue; // a commit of this process is running
                }
                if (lock == null) {
                    continue; // a live process holds it
                }
                Pending pending = new Pending(file, channel, lock);
                try {
                    recoverOne(workspace, jail, pending).ifPresent(said::add);
                } finally {
                    pending.end();
                }
            } catch (IOException | RuntimeException e) {
                said.add("An interrupted change (" + file.getFileName() + ") could not be recovered: " + e.getMessage());
            }
        }
        return said;
    }

    /** A line of a pending file or journal that this version would not have written: nothing of its change is done. */
    private static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String why) {
            super(why);
        }
    }

    private static java.util.Optional<String> recoverOne(JailedWorkspace workspace, Jail jail, Pending pending)
            throws IOException {
        List<String> lines = completeLines(Files.readString(pending.file, StandardCharsets.UTF_8));
        if (lines.isEmpty()) {
            return java.util.Optional.empty(); // killed as it was made: nothing was registered, nothing made
        }
        String what = "An interrupted change (" + pending.file.getFileName() + ")";
        List<Path> made = new ArrayList<>();
        List<String[]> steps = null;
        try {
            what = header(lines.get(0));
            for (int i = 1; i < lines.size(); i++) {
                String[] f = fields(lines.get(i));
                if (f.length != 1) {
                    throw new Malformed("line " + (i + 1) + " of its pending file is not one path");
                }
                made.add(inside(workspace, f[0], "line " + (i + 1) + " of its pending file"));
            }
            Path journal = pending.sibling(".journal");
            if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
                String notOurs = notOurs(journal);
                if (notOurs != null) {
                    throw new Malformed("its journal " + notOurs);
                }
                steps = steps(workspace, Files.readString(journal, StandardCharsets.UTF_8));
            }
        } catch (Malformed e) {
            return java.util.Optional.of(what + " was not recovered, and nothing of it was done: " + e.getMessage() + ".");
        }
        if (steps != null) {
            String result = rollForward(workspace, jail, steps);
            removeTemporaries(jail, made);
            return java.util.Optional.of(what + " was finished: " + result);
        }
        boolean touched = removeTemporaries(jail, made);
        List<String> leftAlone = new ArrayList<>();
        for (int i = made.size() - 1; i >= 0; i--) {
            Path path = made.get(i);
            if (!Temporaries.isTemporary(path.getFileName().toString())) {
                try {
                    // registered as a folder it made; what is there now may be another program's file
                    if (!jail.deleteEmptyFolder(path)) {
                        leftAlone.add(workspace.relativize(path));
                    }
                } catch (IOException e) {
                    leftAlone.add(jail.named(path, e).getMessage());
                }
            }
        }
        if (!leftAlone.isEmpty()) {
            return java.util.Optional.of(what + " was rolled back: no file changed; left alone, as they are not "
                    + "folders it made: " + String.join(", ", leftAlone) + ".");
        }
        return touched ? java.util.Optional.of(what + " was rolled back: no file changed.") : java.util.Optional.empty();
    }

    /** Why a change record is not one a commit wrote, or null: it is not a regular file, or it is too large. */
    private static String notOurs(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                return attributes.isSymbolicLink() ? "is a symbolic link" : "is not a regular file";
            }
            return attributes.size() > MAX_RECORD_BYTES ? "is " + attributes.size() + " bytes, more than a commit writes" : null;
        } catch (IOException e) {
            return "cannot be looked at (" + e.getMessage() + ")";
        }
    }

    /** The lines a file holds whole: a last line without its end of line was being written when the process died. */
    private static List<String> completeLines(String text) {
        int end = text.lastIndexOf('\n');
        return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n", -1));
    }

    /** What a pending file's first line says: the tool and when. */
    private static String header(String line) throws Malformed {
        String[] f = fields(line);
        try {
            if (f.length == 2) {
                String when = WHEN.format(Instant.ofEpochMilli(Long.parseLong(f[1])).atZone(ZoneId.systemDefault()));
                return "An interrupted " + f[0] + " (" + when + ")";
            }
        } catch (RuntimeException notATime) {
            // said below
        }
        throw new Malformed("the first line of its pending file is not a tool and a time");
    }

    /** A path a journal or pending file names, refused unless it is below the workspace's root, as written. */
    private static Path inside(JailedWorkspace workspace, String text, String where) throws Malformed {
        Path path;
        try {
            path = journaled(text);
        } catch (RuntimeException notAPath) {
            throw new Malformed(where + " is not a path");
        }
        Path root = workspace.root();
        if (!path.isAbsolute() || !path.equals(path.normalize()) || !path.startsWith(root) || path.equals(root)) {
            throw new Malformed(where + " names a path outside the workspace: " + text);
        }
        return path;
    }

    /** A temporary's name as a journal holds it: one name of the temporaries' pattern, in the target's folder. */
    private static String temporary(String text, String where) throws Malformed {
        if (text.indexOf('/') >= 0 || text.indexOf('\0') >= 0 || !Temporaries.isTemporary(text)) {
            throw new Malformed(where + " names a temporary that is not one: " + text);
        }
        return text;
    }

    /** A SHA-256 in hex, or, where {@code expect}, also {@code any} or {@code absent}. */
    private static void digestText(String text, boolean expect, String where) throws Malformed {
        if (!(expect && (text.equals("any") || text.equals("absent"))) && !text.matches("[0-9a-f]{64}")) {
            throw new Malformed(where + " has no digest where one belongs: " + text);
        }
    }

    /** A journal's steps, each checked whole before any is made: one malformed line and none is. */
    private static List<String[]> steps(JailedWorkspace workspace, String text) throws Malformed {
        List<String> lines = completeLines(text);
        if (lines.isEmpty() || !lines.get(lines.size() - 1).equals("end")) {
            throw new Malformed("its journal does not end with its end line");
        }
        List<String[]> steps = new ArrayList<>();
        for (int i = 0; i < lines.size() - 1; i++) {
            String where = "line " + (i + 1) + " of its journal";
            String[] f = fields(lines.get(i));
            int count = switch (f[0]) {
                case "write" -> 5;
                case "delete", "copy", "move" -> 3;
                default -> throw new Malformed(where + " has a step this version does not know: " + f[0]);
            };
            if (f.length != count) {
                throw new Malformed(where + " has " + f.length + " fields, not " + count);
            }
            inside(workspace, f[1], where);
            switch (f[0]) {
                case "write" -> {
                    temporary(f[2], where);
                    digestText(f[3], true, where);
                    digestText(f[4], false, where);
                }
                case "delete" -> digestText(f[2], true, where);
                case "copy" -> temporary(f[2], where);
                default -> inside(workspace, f[2], where);
            }
            steps.add(f);
        }
        return steps;
    }

    /** Removes the registered temporaries still there; whether there was any. */
    private static boolean removeTemporaries(Jail jail, List<Path> made) {
        boolean any = false;
        for (Path path : made) {
            if (Temporaries.isTemporary(path.getFileName().toString())) {
                try {
                    if (jail.exists(path)) {
                        any = true;
                        jail.discard(path);
                    }
                } catch (IOException unreachable) {
                    // its folder is gone or changed
                }
            }
        }
        return any;
    }

    /** Makes each step of a checked journal on its own: one that fails is left as it is, and named, and the rest go on. */
    private static String rollForward(JailedWorkspace workspace, Jail jail, List<String[]> steps) {
        int done = 0;
        List<String> changedSince = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (String[] f : steps) {
            Path file = journaled(f[1]);
            try {
                if (rollForward(jail, f)) {
                    done++;
                } else {
                    changedSince.add(workspace.relativize(file));
                }
            } catch (IOException e) {
                failed.add(jail.named(file, e).getMessage());
            }
        }
        String result = done + (done == 1 ? " file" : " files");
        if (!changedSince.isEmpty()) {
            result += "; left as another program changed them since: " + String.join(", ", changedSince);
        }
        if (!failed.isEmpty()) {
            result += "; left as they could not be changed: " + String.join("; ", failed);
        }
        return result + ".";
    }

    /** One step of a journal, made unless done already; false when its target was changed by someone since. */
    private static boolean rollForward(Jail jail, String[] f) throws IOException {
        switch (f[0]) {
            case "write" -> {
                Jail.Staged staged = new Jail.Staged(journaled(f[1]), f[2]);
                Jail.Expect before = expect(f[3]);
                byte[] now = jail.digest(staged.file());
                if (now != null && Arrays.equals(now, HexFormat.of().parseHex(f[4]))) {
                    return true;
                }
                if (jail.exists(staged.file().resolveSibling(staged.temporary())) && matches(now, before)) {
                    jail.swap(staged, before);
                    return true;
                }
                return false;
            }
            case "delete" -> {
                Path file = journaled(f[1]);
                byte[] now = jail.digest(file);
                if (now != null && !matches(now, expect(f[2]))) {
                    return false;
                }
                if (now != null) {
                    jail.remove(file, expect(f[2]), Jail.Registry.NONE);
                }
                return true;
            }
            case "copy" -> {
                Jail.Staged staged = new Jail.Staged(journaled(f[1]), f[2]);
                if (jail.exists(staged.file().resolveSibling(staged.temporary())) && !jail.exists(staged.file())) {
                    jail.place(staged);
                }
                return true;
            }
            default -> {
                Path from = journaled(f[1]);
                Path to = journaled(f[2]);
                if (jail.exists(from) && !jail.exists(to)) {
                    jail.move(from, to, Jail.Registry.NONE);
                }
                return true;
            }
        }
    }
}
