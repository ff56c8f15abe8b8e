package dev.quiver.workspace;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Where every file operation of the workspace touches the disk, so that what was checked is what is
 * opened. A path is walked from the root one name at a time, each folder opened relative to the one
 * before without following links ({@link SecureDirectoryStream}: openat with O_NOFOLLOW), and the
 * file is then opened, created, renamed or deleted relative to its held folder. A link met on the way
 * is read and its target walked again from the root, re-checked at every hop, so links inside the
 * workspace work while one swapped in to lead outside is never followed out, however the race falls.
 *
 * <p>Writes, creations, moves and deletions are refused in the workspace's {@code .git} and
 * {@code .quiver} folders, judged on the real path the walk arrives at.
 */
final class Jail {

    static final int MAX_LINK_HOPS = 40;
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final Set<PosixFilePermission> FOLDER_PERMISSIONS = Set.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE);
    private static final Set<PosixFilePermission> FILE_PERMISSIONS = Set.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);

    /** A file modified this recently may have a writer at work: it is watched a while after it is replaced. */
    private static final long LIVE_MILLIS = 2_000;
    /** How long a live file must stay unwritten after the rename before an edit of it is done. */
    private static final long QUIET_NANOS = 10_000_000;
    /** The longest a replaced file is watched, for a writer that never stops (it holds the file open). */
    private static final long MAX_WATCH_NANOS = 200_000_000;

    private final Path root;
    private final Path state;

    Jail(Path root) {
        this(root, null);
    }

    /** @param state Quiver's state folder for the workspace relative to the root, where it lies inside; else null */
    Jail(Path root, Path state) {
        this.root = root;
        this.state = state;
    }

    /** What an operation does at the place it reaches: whether it changes anything there. */
    enum Intent { READ, WRITE }

    /**
     * Told of every temporary and folder a change is about to make in the working tree, before it is
     * made, so that what a killed process left can be removed at the next start.
     */
    interface Registry {
        Registry NONE = path -> { };

        void creating(Path path) throws IOException;
    }

    /** What a replaced or deleted file must hold at the moment it goes: anything, nothing (absent), or bytes of a digest. */
    record Expect(boolean any, byte[] digest) {
        static final Expect ANY = new Expect(true, null);
        static final Expect ABSENT = new Expect(false, null);

        static Expect of(byte[] digest) {
            return new Expect(false, digest);
        }
    }

    /** A new content staged under a temporary name in the folder of the file it will become (a real path). */
    record Staged(Path file, String temporary) {
    }

    /**
     * Where a walk ended: the entry's folder, held open, and the entry's name in it. The folder's path
     * is real (no links) as it was walked; the folder handle stays the folder checked even if its path
     * is swapped for a link afterwards.
     */
    final class Spot implements Closeable {
        final SecureDirectoryStream<Path> folder;
        final Path folderPath;
        final Path name;
        /** Whether a link was followed to get here. */
        final boolean throughLink;

        Spot(SecureDirectoryStream<Path> folder, Path folderPath, Path name, boolean throughLink) {
            this.folder = folder;
            this.folderPath = folderPath;
            this.name = name;
            this.throughLink = throughLink;
        }

        Path path() {
            return folderPath.resolve(name);
        }

        /** The entry's own attributes (a link is a link), or null when there is no such entry. */
        BasicFileAttributes attributes() throws IOException {
            return Jail.attributes(folder, name);
        }

        @Override
        public void close() throws IOException {
            folder.close();
        }
    }

    /**
     * Walks to a path inside the workspace.
     *
     * @param path an absolute path, lexically inside the root (as {@code Workspace.resolve} returns)
     * @param followLast whether a link at the last name is followed (to a target inside the workspace)
     * @param createFolders whether missing folders on the way are created
     * @param intent {@link Intent#WRITE} refuses the {@code .git} and {@code .quiver} folders
     * @throws IOException when the path, or a link on the way, leads out of the workspace, when links
     *     loop, or when a folder on the way is missing or not a folder
     */
    Spot locate(Path path, boolean followLast, boolean createFolders, Intent intent) throws IOException {
        return locate(path, followLast, createFolders, intent, Registry.NONE);
    }

    /** As {@link #locate(Path, boolean, boolean, Intent)}, telling the registry of every folder made on the way. */
    Spot locate(Path path, boolean followLast, boolean createFolders, Intent intent, Registry registry)
            throws IOException {
        Path relative = inside(path, path);
        boolean throughLink = false;
        for (int hops = 0; hops <= MAX_LINK_HOPS; hops++) {
            if (relative.toString().isEmpty()) {
                throw new FileSystemException(root.toString(), null, "this is the workspace root itself; "
                        + "give a path inside it");
            }
            Path next = null;
            SecureDirectoryStream<Path> rootFolder = openRoot();
            SecureDirectoryStream<Path> folder = rootFolder;
            SecureDirectoryStream<Path> handedOver = null;
            try {
                int names = relative.getNameCount();
                int made = 0;
                for (int i = 0; i < names - 1 && next == null; i++) {
                    Path name = relative.getName(i);
                    Path folderPath = root.resolve(relative.subpath(0, i + 1)).getParent();
                    SecureDirectoryStream<Path> child = openChild(folder, name);
                    if (child == null) {
                        BasicFileAttributes attributes = attributes(folder, name);
                        if (attributes != null && attributes.isSymbolicLink()) {
                            next = follow(folderPath, name, relative.subpath(i + 1, names), path);
                        } else if (attributes == null && createFolders && made++ < names + MAX_LINK_HOPS) {
                            makeFolder(rootFolder, folder, folderPath.resolve(name), intent, relative,
                                    registry);
                            i--; // open what was just made, as any other folder
                        } else if (attributes == null) {
                            throw new NoSuchFileException(shown(folderPath.resolve(name)), null,
                                    "no such folder");
                        } else {
                            throw new FileSystemException(shown(folderPath.resolve(name)), null,
                                    "not a folder");
                        }
                        continue;
                    }
                    if (folder != rootFolder) {
                        folder.close();
                    }
                    folder = child;
                }
                if (next == null) {
                    Path name = relative.getFileName();
                    Path folderPath = root.resolve(relative).getParent();
                    BasicFileAttributes attributes = attributes(folder, name);
                    if (followLast && attributes != null && attributes.isSymbolicLink()) {
                        next = follow(folderPath, name, Path.of(""), path);
                    } else {
                        if (intent == Intent.WRITE) {
                            refuseProtected(rootFolder, relative, true);
                        }
                        handedOver = folder;
                        return new Spot(folder, folderPath, name, throughLink);
                    }
                }
            } finally {
                if (folder != rootFolder && folder != handedOver) {
                    folder.close();
                }
                if (rootFolder != handedOver) {
                    rootFolder.close();
                }
            }
            relative = next;
            throughLink = true;
        }
        throw new FileSystemException(shown(path), null, "more than " + MAX_LINK_HOPS
                + " symbolic links on the way (they may loop)");
    }

    /** Opens a file to read, following links that stay inside the workspace, never to a secret under a plain name. */
    SeekableByteChannel openRead(Path file) throws IOException {
        for (int attempt = 0; attempt <= MAX_LINK_HOPS; attempt++) {
            try (Spot spot = locate(file, true, false, Intent.READ)) {
                BasicFileAttributes attributes = spot.attributes();
                if (attributes == null) {
                    throw new NoSuchFileException(shown(file));
                }
                if (attributes.isDirectory()) {
                    throw new FileSystemException(shown(file), null, "is a folder, not a file");
                }
                if (attributes.isSymbolicLink()) {
                    continue; // swapped for a link after the walk: walk again
                }
                if (!attributes.isRegularFile()) {
                    // a named pipe or a device would block the read or never end
                    throw new FileSystemException(shown(file), null, "not a regular file (a pipe, socket or device)");
                }
                if (spot.throughLink && Secrets.isSecret(spot.name) && !Secrets.isSecret(file.getFileName())) {
                    throw new FileSystemException(shown(file), null, "a link to " + shown(spot.path())
                            + ", which holds secrets by its name; it is not read");
                }
                try {
                    return spot.folder.newByteChannel(spot.name, Set.of(StandardOpenOption.READ, NOFOLLOW));
                } catch (IOException e) {
                    BasicFileAttributes now = spot.attributes();
                    if (now == null || !now.isSymbolicLink()) {
                        throw e;
                    }
                    // swapped for a link between the check and the open: walk again
                }
            }
        }
        throw new FileSystemException(shown(file), null, "it keeps changing into a symbolic link; try again");
    }

    /** Opens a folder to read its files by name; see {@link #openRead(SecureDirectoryStream, Path, Path)}. */
    SecureDirectoryStream<Path> openFolder(Path directory) throws IOException {
        Path relative = inside(directory, directory);
        if (relative.toString().isEmpty()) {
            return openRoot();
        }
        for (int attempt = 0; attempt <= MAX_LINK_HOPS; attempt++) {
            try (Spot spot = locate(directory, true, false, Intent.READ)) {
                SecureDirectoryStream<Path> folder = openChild(spot.folder, spot.name);
                if (folder != null) {
                    return folder;
                }
                BasicFileAttributes attributes = spot.attributes();
                if (attributes == null) {
                    throw new NoSuchFileException(shown(directory));
                }
                if (!attributes.isSymbolicLink()) {
                    throw new FileSystemException(shown(directory), null, "not a folder");
                }
            }
        }
        throw new FileSystemException(shown(directory), null, "it keeps changing into a symbolic link; try again");
    }

    /**
     * Opens a folder of a held folder by name, the fast way down a tree: relative to the held folder
     * without following a link (openat with O_NOFOLLOW). A link in its place is walked from the root as
     * {@link #openFolder(Path)} walks it, so it opens a folder inside the workspace and never one
     * outside, as a walk of the whole path would.
     *
     * @param name one name, as the file system holds its bytes
     */
    SecureDirectoryStream<Path> openFolder(SecureDirectoryStream<Path> folder, Path folderPath, Path name)
            throws IOException {
        for (int attempt = 0; attempt <= MAX_LINK_HOPS; attempt++) {
            SecureDirectoryStream<Path> child = openChild(folder, name);
            if (child != null) {
                if (stillThere(child, folderPath.resolve(name))) {
                    return child;
                }
                // the held folder was moved since it was opened, perhaps out of the workspace, where its
                // subtree is no longer the workspace's: walk from the root, which finds what is there now
                child.close();
                return openFolder(folderPath.resolve(name));
            }
            BasicFileAttributes attributes = attributes(folder, name);
            if (attributes == null) {
                throw new NoSuchFileException(shown(folderPath.resolve(name)));
            }
            if (attributes.isSymbolicLink()) {
                return openFolder(folderPath.resolve(name));
            }
            if (!attributes.isDirectory()) {
                throw new FileSystemException(shown(folderPath.resolve(name)), null, "not a folder");
            }
            // a link when it was opened, a folder again now: open it again
        }
        throw new FileSystemException(shown(folderPath.resolve(name)), null, "it keeps changing into a symbolic link; try again");
    }

    /**
     * Opens a file of a held folder, the fast way for many files of one folder: a link is not followed
     * there but walked from the root like any path.
     */
    SeekableByteChannel openRead(SecureDirectoryStream<Path> folder, Path folderPath, Path name) throws IOException {
        BasicFileAttributes before = attributes(folder, name);
        if (before != null && before.isSymbolicLink()) {
            return openRead(folderPath.resolve(name));
        }
        if (before != null && !before.isRegularFile()) {
            // a named pipe swapped in since the caller looked would block the open, or the read, for ever
            throw new FileSystemException(shown(folderPath.resolve(name)), null, before.isDirectory()
                    ? "is a folder, not a file" : "not a regular file (a pipe, socket or device)");
        }
        try {
            return folder.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW));
        } catch (IOException e) {
            BasicFileAttributes attributes = attributes(folder, name);
            if (attributes == null || !attributes.isSymbolicLink()) {
                throw e;
            }
            return openRead(folderPath.resolve(name));
        }
    }

    /**
     * Stages a file's new content: a temporary file created in the file's held folder, written and
     * flushed to disk, with the permissions of the file it will replace. A link inside the workspace is
     * written through to its target, as editors do: the staged file's {@link Staged#file} is where the
     * walk really arrived. What fails removes the temporary and names the file, never the temporary.
     *
     * @param permissions the new file's permissions; null keeps those of the file replaced
     */
    Staged stage(Path file, byte[] content, Set<PosixFilePermission> permissions, Registry registry)
            throws IOException {
        try (Spot spot = locate(file, true, true, Intent.WRITE, registry)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes != null && attributes.isDirectory()) {
                throw new FileSystemException(shown(file), null, "is a folder, not a file");
            }
            Set<PosixFilePermission> kept = permissions;
            if (kept == null && attributes != null && attributes.isRegularFile()) {
                PosixFileAttributeView view = posix(spot.folder, spot.name);
                kept = view == null ? null : view.readAttributes().permissions();
            }
            Path temporary = Path.of(Temporaries.name(spot.name.toString()));
            registry.creating(spot.folderPath.resolve(temporary.toString()));
            boolean staged = false;
            try {
                try (SeekableByteChannel channel = spot.folder.newByteChannel(temporary, Set.of(
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW))) {
                    ByteBuffer buffer = ByteBuffer.wrap(content);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                    if (channel instanceof FileChannel fileChannel) {
                        fileChannel.force(true);
                    }
                }
                PosixFileAttributeView view = posix(spot.folder, temporary);
                if (view != null) {
                    view.setPermissions(kept == null ? FILE_PERMISSIONS : kept);
                }
                staged = true;
                return new Staged(spot.path(), temporary.toString());
            } catch (IOException e) {
                throw named(file, e);
            } finally {
                if (!staged) {
                    deleteQuietly(spot.folder, temporary);
                }
            }
        }
    }

    /**
     * Renames a staged content over its file, if the file still holds what is expected. The file is held
     * open from the comparison through the rename, so a write another program makes to it in between is
     * seen afterwards: its content is then put back and the replacement refused. A write made to the
     * old file after that last look is the window left (a program that keeps it open across the rename).
     *
     * @throws ChangedException when the file is not as expected; the staged content is left for the caller
     */
    void swap(Staged staged, Expect expect) throws IOException {
        Path temporary = Path.of(staged.temporary());
        try (Spot spot = locate(staged.file(), false, false, Intent.WRITE)) {
            if (attributes(spot.folder, temporary) == null) {
                throw new Said(shown(staged.file()), "its new content is gone (" + temporary + ")");
            }
            SeekableByteChannel old = null;
            try {
                BasicFileAttributes now = spot.attributes();
                byte[] seen = null;
                long seenSize = 0;
                if (!expect.any()) {
                    if (expect.digest() == null ? now != null : now == null || !now.isRegularFile()) {
                        throw new ChangedException(shown(staged.file()));
                    }
                    if (now != null) {
                        old = spot.folder.newByteChannel(spot.name, Set.of(StandardOpenOption.READ, NOFOLLOW));
                        seen = digest(old);
                        seenSize = old.position();
                        if (!java.util.Arrays.equals(seen, expect.digest())) {
                            throw new ChangedException(shown(staged.file()));
                        }
                    }
                }
                boolean live = now != null && System.currentTimeMillis() - now.lastModifiedTime().toMillis() < LIVE_MILLIS;
                spot.folder.move(temporary, spot.folder, spot.name);
                if (old != null) {
                    keepTheirWrites(spot, old, seen, seenSize, live);
                }
            } catch (IOException e) {
                throw named(staged.file(), e);
            } finally {
                if (old != null) {
                    old.close();
                }
            }
        }
    }

    /**
     * Looks at the replaced file, still held open, after the rename: a program that opened it just
     * before the rename writes there, where no name reaches it any more. Bytes only appended to it (a log
     * line, the common case) are appended to the new file too, so the edit stands and nothing is lost;
     * any other change puts the other program's content back and refuses. A file written to in the last
     * seconds is watched until it has been quiet for {@link #QUIET_NANOS}, since its writer may still be
     * between its open and its write; what a writer writes to it later than that is the window left.
     */
    private void keepTheirWrites(Spot spot, SeekableByteChannel old, byte[] seen, long seenSize, boolean live)
            throws IOException {
        forceFolder(spot.folderPath); // the rename made lasting
        long kept = seenSize;
        long start = System.nanoTime();
        long quietSince = start;
        while (true) {
            long size = old.size();
            if (size < kept || (size > kept && kept == seenSize && !sameHead(old, seen, seenSize))) {
                putBack(spot, old);
                throw new ChangedException(shown(spot.path()));
            }
            if (size > kept) {
                appendRange(spot, old, kept, size);
                kept = size;
                quietSince = System.nanoTime();
            }
            long now = System.nanoTime();
            if (!live || now - quietSince >= QUIET_NANOS || now - start >= MAX_WATCH_NANOS) {
                break;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (kept == seenSize && !java.util.Arrays.equals(digest(old), seen)) {
            // rewritten in place at the same size
            putBack(spot, old);
            throw new ChangedException(shown(spot.path()));
        }
    }

    /** Whether the first {@code size} bytes of a file are those whose digest was {@code seen}. */
    private static boolean sameHead(SeekableByteChannel old, byte[] seen, long size) throws IOException {
        java.security.MessageDigest head = sha256();
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        old.position(0);
        long left = size;
        while (left > 0) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), left));
            int read = old.read(buffer);
            if (read < 0) {
                return false;
            }
            head.update(buffer.array(), 0, read);
            left -= read;
        }
        return java.util.Arrays.equals(head.digest(), seen);
    }

    /** Appends bytes {@code from} to {@code to} of the replaced file to the file now at its name. */
    private static void appendRange(Spot spot, SeekableByteChannel old, long from, long to) throws IOException {
        try (SeekableByteChannel out = spot.folder.newByteChannel(spot.name,
                Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND, NOFOLLOW))) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            old.position(from);
            long left = to - from;
            while (left > 0) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), left));
                int read = old.read(buffer);
                if (read < 0) {
                    break;
                }
                left -= read;
                buffer.flip();
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            }
        }
    }

    private void putBack(Spot spot, SeekableByteChannel old) throws IOException {
        old.position(0);
        byte[] theirs = JailedWorkspace.readAll(old, Long.MAX_VALUE);
        Set<PosixFilePermission> permissions = null;
        PosixFileAttributeView view = posix(spot.folder, spot.name);
        if (view != null) {
            permissions = view.readAttributes().permissions();
        }
        Staged back = stage(spot.path(), theirs, permissions, Registry.NONE);
        try {
            swap(back, Expect.ANY);
        } finally {
            discard(back);
        }
    }

    /**
     * Deletes a file if it holds what is expected: it is first renamed to a temporary name, where no
     * program that opens it by name can reach it, then compared, then deleted; a file found changed is
     * renamed back and refused.
     */
    void remove(Path file, Expect expect, Registry registry) throws IOException {
        try (Spot spot = locate(file, false, false, Intent.WRITE)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes == null) {
                throw new NoSuchFileException(shown(file));
            }
            if (attributes.isDirectory() || expect.any()) {
                delete(file);
                return;
            }
            Path temporary = Path.of(Temporaries.name(spot.name.toString()));
            registry.creating(spot.folderPath.resolve(temporary.toString()));
            spot.folder.move(spot.name, spot.folder, temporary);
            boolean same;
            try (SeekableByteChannel channel = spot.folder.newByteChannel(temporary,
                    Set.of(StandardOpenOption.READ, NOFOLLOW))) {
                same = java.util.Arrays.equals(digest(channel), expect.digest());
            }
            if (same) {
                spot.folder.deleteFile(temporary);
                return;
            }
            if (attributes(spot.folder, spot.name) == null) {
                spot.folder.move(temporary, spot.folder, spot.name);
            }
            throw new ChangedException(shown(file));
        } catch (ChangedException e) {
            throw e;
        } catch (IOException e) {
            throw named(file, e);
        }
    }

    /** Flushes a folder's entries (a rename in it) to disk, where the system lets a folder be opened for that. */
    static void forceFolder(Path folder) {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException notOnThisSystem) {
            // the rename is done; only its survival of a power cut is less certain here
        }
    }

    /** Removes a staged content (a file, or a folder a copy staged) that was not renamed into place. */
    void discard(Staged staged) {
        discard(staged.file().resolveSibling(staged.temporary()));
    }

    /** Removes a temporary file or folder, everything in it included. */
    void discard(Path temporary) {
        try (Spot spot = locate(temporary, false, false, Intent.WRITE)) {
            deleteTree(spot.folder, spot.name);
        } catch (IOException ignored) {
            // its folder is gone or changed: nothing of it can be reached to remove
        }
    }

    /** Whether an entry is there (a link itself counts, followed or not). */
    boolean exists(Path path) throws IOException {
        try (Spot spot = locate(path, false, false, Intent.READ)) {
            return spot.attributes() != null;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** Deletes an entry of a held folder, a folder with everything in it, never following a link. */
    static void deleteTree(SecureDirectoryStream<Path> folder, Path name) throws IOException {
        BasicFileAttributes attributes = attributes(folder, name);
        if (attributes == null) {
            return;
        }
        if (attributes.isDirectory()) {
            try (SecureDirectoryStream<Path> child = openChild(folder, name)) {
                if (child != null) {
                    List<Path> names = new ArrayList<>();
                    child.forEach(entry -> names.add(entry.getFileName()));
                    for (Path entry : names) {
                        deleteTree(child, entry);
                    }
                }
            }
            folder.deleteDirectory(name);
        } else {
            folder.deleteFile(name);
        }
    }

    /** The SHA-256 of a file's content, or null when there is no such file (a link is not followed). */
    byte[] digest(Path file) throws IOException {
        try (Spot spot = locate(file, false, false, Intent.READ)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes == null) {
                return null;
            }
            if (!attributes.isRegularFile()) {
                return new byte[0]; // no content's digest: matches nothing expected
            }
            try (SeekableByteChannel channel = spot.folder.newByteChannel(spot.name,
                    Set.of(StandardOpenOption.READ, NOFOLLOW))) {
                return digest(channel);
            }
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    static byte[] digest(SeekableByteChannel channel) throws IOException {
        java.security.MessageDigest digest = sha256();
        channel.position(0);
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        int read;
        while ((read = channel.read(buffer)) >= 0) {
            digest.update(buffer.array(), 0, read);
            buffer.clear();
        }
        return digest.digest();
    }

    static byte[] digest(byte[] content) {
        return sha256().digest(content);
    }

    private static java.security.MessageDigest sha256() {
        try {
            return java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /**
     * The same failure as the final sentence the tools show: the file as the model knows it (relative to
     * the root), never the temporary or absolute path the system call saw, and why, a missing permission
     * in those words ({@code src/A.java: permission denied}). A failure that already names a path so is
     * kept as it is.
     */
    Said named(Path file, IOException e) {
        if (e instanceof Said said) {
            return said;
        }
        String reason;
        if (e instanceof java.nio.file.AccessDeniedException) {
            reason = "permission denied";
        } else if (e instanceof java.nio.file.DirectoryNotEmptyException) {
            reason = "the folder is not empty"; // its message is only the absolute path
        } else if (e instanceof FileSystemException f && f.getReason() != null) {
            reason = f.getReason();
        } else {
            reason = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        }
        Said named = new Said(shown(file), reason);
        named.initCause(e);
        return named;
    }

    /**
     * A failure already said as the tools show it: {@code <path relative to the root>: <why>}, never a
     * temporary's or an absolute path. Every failure of a {@link Transaction} is one.
     */
    static class Said extends FileSystemException {
        private static final long serialVersionUID = 1L;

        Said(String path, String reason) {
            super(path, null, reason);
        }
    }

    /** A file that is no longer what the change was made from. */
    static final class ChangedException extends Said {
        private static final long serialVersionUID = 1L;

        ChangedException(String path) {
            super(path, "changed while it was being edited; read it again");
        }

        @Override
        public String getMessage() {
            return getFile() + " " + getReason();
        }
    }

    /** Creates a folder and any missing folders above it. */
    void createDirectories(Path directory) throws IOException {
        try (Spot spot = locate(directory, true, true, Intent.WRITE)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes == null) {
                try (SecureDirectoryStream<Path> rootFolder = openRoot()) {
                    makeFolder(rootFolder, spot.folder, spot.path(), Intent.WRITE, inside(directory, directory),
                            Registry.NONE);
                }
            } else if (!attributes.isDirectory()) {
                throw new FileAlreadyExistsException(shown(directory), null, "it exists and is not a folder");
            }
        }
    }

    /** Moves an entry (a link itself, not its target) to a name that does not exist yet, creating its folders. */
    void move(Path from, Path to, Registry registry) throws IOException {
        try (Spot source = locate(from, false, false, Intent.WRITE);
                Spot target = locate(to, false, true, Intent.WRITE, registry)) {
            if (source.attributes() == null) {
                throw new Said(shown(from), "no such file or folder");
            }
            if (target.attributes() != null) {
                throw new Said(shown(to), "it exists already; nothing was overwritten");
            }
            source.folder.move(source.name, target.folder, target.name);
        }
    }

    /** Deletes a file, a link (not its target) or an empty folder. */
    void delete(Path path) throws IOException {
        try (Spot spot = locate(path, false, false, Intent.WRITE)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes == null) {
                throw new NoSuchFileException(shown(path));
            }
            if (attributes.isDirectory()) {
                spot.folder.deleteDirectory(spot.name);
            } else {
                spot.folder.deleteFile(spot.name);
            }
        }
    }

    /**
     * Removes a folder while it is empty, and nothing else: rmdir refuses a file or a link, even one
     * swapped in after the look. False when what is there is not a folder, which is left alone.
     */
    boolean deleteEmptyFolder(Path path) throws IOException {
        try (Spot spot = locate(path, false, false, Intent.WRITE)) {
            BasicFileAttributes attributes = spot.attributes();
            if (attributes == null) {
                return true;
            }
            if (!attributes.isDirectory()) {
                return false;
            }
            try {
                spot.folder.deleteDirectory(spot.name);
            } catch (java.nio.file.DirectoryNotEmptyException kept) {
                // another program put something in it since: it is theirs now
            }
            return true;
        } catch (NoSuchFileException gone) {
            return true;
        }
    }

    /**
     * Makes a link at a name that does not exist yet, creating its folders. Its text is judged as a copy
     * judges a link it copies: it must lead inside the workspace, and not to a secret under a plain name.
     */
    void createLink(Path link, Path target) throws IOException {
        // judged as written first, so that a refused link makes no folders on the way
        judgeLink(link, target, link.toAbsolutePath().normalize().getParent());
        try (Spot spot = locate(link, false, true, Intent.WRITE);
                SecureDirectoryStream<Path> rootFolder = openRoot()) {
            // then from the folder it is really made in: a link on the way (a -> .) would make a/l -> ../x
            // lead elsewhere than its path as written says
            judgeLink(link, target, spot.folderPath);
            if (spot.attributes() != null) {
                throw new FileAlreadyExistsException(shown(link));
            }
            makeInRoot(rootFolder, spot.folder, spot.name, Registry.NONE,
                    temporary -> Files.createSymbolicLink(temporary, target));
        }
    }

    private void judgeLink(Path link, Path target, Path folder) throws IOException {
        Path leadsTo = folder.resolve(target).normalize();
        if (!leadsTo.startsWith(root)) {
            throw new FileSystemException(shown(link), null, "a link to " + target + " would lead out of the workspace");
        }
        if (Secrets.isSecret(leadsTo.getFileName()) && !Secrets.isSecret(link.getFileName())) {
            throw new FileSystemException(shown(link), null, "a link to " + target
                    + ", which holds secrets by its name, is not made under a name that does not");
        }
    }

    /** Sets a file's permissions (a link's target inside the workspace). */
    void setPermissions(Path file, Set<PosixFilePermission> permissions) throws IOException {
        try (Spot spot = locate(file, true, false, Intent.WRITE)) {
            PosixFileAttributeView view = posix(spot.folder, spot.name);
            if (view == null) {
                throw new FileSystemException(shown(file), null, "this file system has no POSIX permissions");
            }
            view.setPermissions(permissions);
        }
    }

    /**
     * Stages a copy of a file, or a folder with everything in it, under a temporary name next to
     * {@code to}, which must not exist yet, keeping permissions. Links inside are copied as links; pipes,
     * sockets and devices are left out. What a failed copy made is removed again; {@link #place} then
     * renames the copy into place in one step.
     */
    Staged stageCopy(Path from, Path to, Registry registry) throws IOException {
        try (Spot source = locate(from, true, false, Intent.READ);
                Spot target = locate(to, false, true, Intent.WRITE, registry)) {
            if (source.attributes() == null) {
                throw new Said(shown(from), "no such file or folder");
            }
            if (target.attributes() != null) {
                throw new Said(shown(to), "it exists already; nothing was overwritten");
            }
            Path temporary = Path.of(Temporaries.name(target.name.toString()));
            registry.creating(target.folderPath.resolve(temporary.toString()));
            try (SecureDirectoryStream<Path> rootFolder = openRoot()) {
                copyEntry(rootFolder, source.folder, source.path(), source.name, target.folder,
                        target.folderPath.resolve(temporary.toString()), temporary, true, registry);
            } catch (IOException | RuntimeException e) {
                deleteTree(target.folder, temporary);
                throw e;
            }
            return new Staged(target.path(), temporary.toString());
        }
    }

    /** Renames a staged copy to its name, which must still be free. */
    void place(Staged staged) throws IOException {
        try (Spot spot = locate(staged.file(), false, false, Intent.WRITE)) {
            if (spot.attributes() != null) {
                throw new Said(shown(staged.file()), "it exists already; nothing was overwritten");
            }
            spot.folder.move(Path.of(staged.temporary()), spot.folder, spot.name);
        }
    }

    private void copyEntry(SecureDirectoryStream<Path> rootFolder, SecureDirectoryStream<Path> sourceFolder,
            Path sourcePath, Path sourceName, SecureDirectoryStream<Path> targetFolder, Path targetPath,
            Path targetName, boolean top, Registry registry) throws IOException {
        BasicFileAttributes attributes = attributes(sourceFolder, sourceName);
        if (attributes == null) {
            throw new Said(shown(sourcePath), "no such file or folder");
        }
        PosixFileAttributeView sourceView = posix(sourceFolder, sourceName);
        Set<PosixFilePermission> permissions = sourceView == null ? null : sourceView.readAttributes().permissions();
        if (attributes.isRegularFile()) {
            try (SeekableByteChannel in = sourceFolder.newByteChannel(sourceName, Set.of(StandardOpenOption.READ, NOFOLLOW));
                    SeekableByteChannel out = targetFolder.newByteChannel(targetName, Set.of(
                            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW))) {
                ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                while (in.read(buffer) >= 0) {
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        out.write(buffer);
                    }
                    buffer.clear();
                }
            }
            setQuietly(targetFolder, targetName, permissions);
        } else if (attributes.isSymbolicLink()) {
            // the target is copied as text; reading it by path cannot read anything else
            Path linkTarget = Files.readSymbolicLink(sourcePath);
            // judged now, not when the caller checked: the source itself was located through its
            // links, so a link here means it was swapped in since; and no copy gives a secret a new name
            if (top) {
                throw new Said(shown(sourcePath), "changed while it was being copied (it is a link now)");
            }
            Path leadsTo = sourcePath.getParent().resolve(linkTarget).normalize();
            if (leadsTo.startsWith(root) && Secrets.isSecret(leadsTo.getFileName())) {
                throw new Said(shown(sourcePath), "a link to " + linkTarget
                        + ", which holds secrets by its name; it is not copied");
            }
            makeInRoot(rootFolder, targetFolder, targetName, registry,
                    temporary -> Files.createSymbolicLink(temporary, linkTarget));
        } else if (attributes.isDirectory()) {
            makeInRoot(rootFolder, targetFolder, targetName, registry, Files::createDirectory);
            try (SecureDirectoryStream<Path> from = openChild(sourceFolder, sourceName);
                    SecureDirectoryStream<Path> to = openChild(targetFolder, targetName)) {
                if (from == null || to == null) {
                    throw new Said(shown(from == null ? sourcePath : targetPath), "changed while it was copied");
                }
                List<Path> names = new ArrayList<>();
                for (Path entry : from) {
                    names.add(entry.getFileName());
                }
                names.sort(null);
                for (Path name : names) {
                    copyEntry(rootFolder, from, sourcePath.resolve(name), name, to,
                            targetPath.resolve(name), name, false, registry);
                }
            }
            setQuietly(targetFolder, targetName, permissions);
        }
    }

    /** A path's place below the root, lexically; refused when it lies outside. */
    private Path inside(Path path, Path asked) throws IOException {
        Path absolute = path.toAbsolutePath().normalize();
        if (!absolute.startsWith(root)) {
            throw new FileSystemException(shown(asked), null, "it leads out of the workspace");
        }
        return root.relativize(absolute);
    }

    /** Where a link leads, with the rest of the path after it, relative to the root; refused when outside. */
    private Path follow(Path folderPath, Path name, Path rest, Path asked) throws IOException {
        // read by path: the target is only text, walked again from the root and checked like any path
        Path target = Files.readSymbolicLink(folderPath.resolve(name));
        Path next = folderPath.resolve(target).resolve(rest).normalize();
        if (!next.startsWith(root)) {
            throw new FileSystemException(shown(asked), null, "the symbolic link " + shown(folderPath.resolve(
                    name.toString())) + " leads out of the workspace; file tools do not follow it");
        }
        return root.relativize(next);
    }

    /**
     * Refuses a change in {@code .git} or {@code .quiver}: by the first name of the real path, in any
     * case, and by identity, for a name a file system folds to one of them in a way no test of the
     * name can foresee; and a change in Quiver's state folder where it lies inside the root.
     *
     * @param changesIt whether the change is made to this very path (written, moved, deleted, made a
     *     link), not a folder made on the way to another: then a folder above the state folder is refused too
     */
    private void refuseProtected(SecureDirectoryStream<Path> rootFolder, Path relative, boolean changesIt)
            throws IOException {
        Path first = relative.getName(0);
        for (String protectedName : List.of(".git", ".quiver")) {
            boolean same = first.toString().equalsIgnoreCase(protectedName);
            if (!same) {
                BasicFileAttributes mine = attributes(rootFolder, first);
                BasicFileAttributes theirs = attributes(rootFolder, Path.of(protectedName));
                same = mine != null && theirs != null && mine.fileKey() != null
                        && Objects.equals(mine.fileKey(), theirs.fileKey());
            }
            if (same) {
                throw new ProtectedPathException(shown(root.resolve(relative)), protectedName);
            }
        }
        // journals written there would be carried out by the next start's recovery, past every rule; a
        // folder above it moved, deleted or replaced by a link would put a tree the model wrote in its place
        if (state != null && (within(relative, state) || changesIt && within(state, relative))) {
            throw new ProtectedPathException(shown(root.resolve(relative)), null);
        }
    }

    /** Whether {@code path} is {@code folder} or lies in it, names compared in any case (file systems that fold it). */
    static boolean within(Path path, Path folder) {
        if (path.getNameCount() < folder.getNameCount()) {
            return false;
        }
        for (int i = 0; i < folder.getNameCount(); i++) {
            if (!path.getName(i).toString().equalsIgnoreCase(folder.getName(i).toString())) {
                return false;
            }
        }
        return true;
    }

    /** A change refused because it lies in {@code .git}, {@code .quiver} or (folder null) Quiver's state folder. */
    static final class ProtectedPathException extends Said {
        private static final long serialVersionUID = 1L;

        ProtectedPathException(String path, String folder) {
            super(path, folder == null
                    ? "it is in Quiver's own state folder for this workspace (journals, checkpoints, sessions), "
                            + "which file tools never change"
                    : "it is in the workspace's " + folder + " folder, which file tools never change ("
                            + (folder.equals(".git") ? "git's own data, hooks and configuration; use the git tools"
                                    : "Quiver's configuration of the workspace; the user edits it") + ")");
        }
    }

    private SecureDirectoryStream<Path> openRoot() throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(root);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new FileSystemException(root.toString(), null, "this platform cannot open files relative to a "
                + "held folder (no SecureDirectoryStream), so the workspace cannot guard against symbolic-link races");
    }

    /**
     * Whether a folder opened relative to a held one is the folder its path names now, with no link on
     * the way: a folder held while it is moved out of the workspace (and perhaps linked back in its
     * place) opens nothing below it. A path through a link inside the workspace fails this too and is
     * walked from the root instead, which follows such links.
     */
    private static boolean stillThere(SecureDirectoryStream<Path> opened, Path path) throws IOException {
        Object key = opened.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
        try {
            Path real = path.toRealPath();
            return key != null && real.equals(path)
                    && key.equals(Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey());
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return false;
        }
    }

    /**
     * A sub-folder opened without following a link, or null when the name is not a folder (or is missing).
     * The stat before the open keeps a named pipe in the folder's place from blocking it for ever (the JDK
     * opens folders without O_NONBLOCK or O_DIRECTORY); it narrows that race without closing it.
     */
    private static SecureDirectoryStream<Path> openChild(SecureDirectoryStream<Path> folder, Path name)
            throws IOException {
        BasicFileAttributes before = attributes(folder, name);
        if (before == null || !before.isDirectory()) {
            return null;
        }
        try {
            return folder.newDirectoryStream(name, NOFOLLOW);
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return null;
        } catch (FileSystemException e) {
            // ELOOP: a link, which O_NOFOLLOW refuses to open
            BasicFileAttributes attributes = attributes(folder, name);
            if (attributes != null && !attributes.isDirectory()) {
                return null;
            }
            throw e;
        }
    }

    static BasicFileAttributes attributes(SecureDirectoryStream<Path> folder, Path name) throws IOException {
        try {
            return folder.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static PosixFileAttributeView posix(SecureDirectoryStream<Path> folder, Path name) {
        return folder.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW);
    }

    /**
     * Creates a folder in a held folder. There is no mkdirat in Java, so it is made in the root, whose
     * path is real and fixed, and renamed into the held folder (renameat): never through a link.
     */
    private void makeFolder(SecureDirectoryStream<Path> rootFolder, SecureDirectoryStream<Path> folder, Path path,
            Intent intent, Path relative, Registry registry) throws IOException {
        if (intent == Intent.WRITE) {
            refuseProtected(rootFolder, relative, false);
        }
        registry.creating(path);
        try {
            makeInRoot(rootFolder, folder, path.getFileName(), registry, temporary -> {
                Files.createDirectory(temporary);
                setQuietly(rootFolder, temporary.getFileName(), FOLDER_PERMISSIONS);
            });
        } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException madeMeanwhile) {
            // another writer made it first; the walk opens it as it is
        }
    }

    private interface Maker {
        void make(Path temporary) throws IOException;
    }

    private void makeInRoot(SecureDirectoryStream<Path> rootFolder, SecureDirectoryStream<Path> folder, Path name,
            Registry registry, Maker maker) throws IOException {
        // made in the root under a temporary's name, which every walk skips; registered first, as a kill
        // between the make and the rename would leave it there for good
        Path temporary = Path.of(Temporaries.name("quiver-new"));
        registry.creating(root.resolve(temporary.toString()));
        maker.make(root.resolve(temporary.toString()));
        try {
            if (attributes(folder, name) != null) {
                throw new FileAlreadyExistsException(name.toString());
            }
            rootFolder.move(temporary, folder, name);
        } finally {
            BasicFileAttributes left = attributes(rootFolder, temporary);
            if (left != null) {
                if (left.isDirectory()) {
                    rootFolder.deleteDirectory(temporary);
                } else {
                    rootFolder.deleteFile(temporary);
                }
            }
        }
    }

    private static void setQuietly(SecureDirectoryStream<Path> folder, Path name, Set<PosixFilePermission> permissions) {
        PosixFileAttributeView view = posix(folder, name);
        if (view != null && permissions != null) {
            try {
                view.setPermissions(permissions);
            } catch (IOException ignored) {
                // the content is what matters; a file system that keeps no modes keeps the default
            }
        }
    }

    private static void deleteQuietly(SecureDirectoryStream<Path> folder, Path name) {
        try {
            folder.deleteFile(name);
        } catch (IOException ignored) {
            // already renamed into place, or never made
        }
    }

    /** A path as the model sees it: relative to the root. */
    private String shown(Path path) {
        Path absolute = path.toAbsolutePath().normalize();
        if (absolute.startsWith(root)) {
            String text = FileNames.shown(root.relativize(absolute));
            return text.isEmpty() ? "." : text;
        }
        return path.toString();
    }
}
