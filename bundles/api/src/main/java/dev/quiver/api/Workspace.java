package dev.quiver.api;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The folder a session works in, and the only way a tool should reach files.
 *
 * <p>Every path a model sends goes through {@link #resolve(String)}: resolved against the root,
 * then compared, following symbolic links to their real targets, so {@code a/../../x}, absolute
 * paths outside the root and links that point out of the workspace are all refused with
 * {@code Path escapes workspace: <path>}.
 *
 * <p>Walking honours ignore files the way git does: {@code .gitignore} in every directory (nested
 * files apply within their own directory), {@code .git/info/exclude}, and {@code .quiverignore}
 * files, which use the same syntax and win over {@code .gitignore} in the same directory.
 * {@code .git} is never walked; symbolically linked directories are reported but not descended.
 *
 * <p>A tool reads and changes files only through this interface ({@link #readText}, {@link #openRead},
 * {@link #openFolder}, {@link #write}, {@link #createDirectories}, {@link #move}, {@link #copy},
 * {@link #delete}, {@link #setPermissions}, {@link #createLink}), never with {@code java.nio.file.Files}
 * on a resolved path: these walk the path again from the root, one folder at a time without following links, and open
 * what they checked, so a symbolic link swapped in after {@link #resolve} never leads outside the
 * workspace or to a secret file under another name. Every change is refused in the
 * {@link #isProtected protected} folders {@code .git} and {@code .quiver}. An error from any of them
 * names the path relative to the root and what was wrong.
 */
@ProviderType
public interface Workspace {

    /**
     * The session's record of the files the model has read, for the read-before-write rule. A
     * workspace is opened once per session, so this record is the session's.
     */
    FileReads reads();

    /** The workspace root, as a real path. */
    Path root();

    /**
     * Resolves a path the model sent, relative to the root or absolute inside it.
     *
     * @throws ToolException {@code Path escapes workspace: <path>} when it leads outside, including
     *     through a symbolic link, or when it is empty or contains a NUL character
     */
    Path resolve(String path) throws ToolException;

    /** The path relative to the root, with {@code /} separators; {@code .} for the root itself. */
    String relativize(Path path);

    /**
     * Whether a file holds secrets by its name: {@code *.env}, {@code *.env.*} (but not
     * {@code .env.example}, {@code .env.sample}, {@code .env.template}), {@code *.pem}, {@code *.key},
     * {@code *.p12}, {@code *.pfx}, private SSH keys ({@code id_rsa}, {@code id_ed25519},
     * {@code id_ecdsa}, {@code id_dsa}; not their {@code .pub}), {@code .netrc}, {@code .pgpass}.
     * Reading such files is refused, grep skips them, and the sandbox masks them.
     */
    boolean isSecret(Path path);

    /** Whether the ignore files exclude this path (a file or directory inside the workspace). */
    boolean isIgnored(Path path);

    /**
     * Whether git's index lists this file: it is tracked, in the repository the workspace belongs to
     * (the workspace itself or a folder above it). False outside a repository.
     */
    boolean isTracked(Path file);

    /**
     * The git folder of the repository the workspace belonged to when it was opened (for a session:
     * when the session started), as a real path; empty when it was in none. The git tools open only
     * this repository, so a {@code .git} a command makes later, or a link planted in its place, never
     * leads them to another repository on the machine.
     */
    default Optional<Path> gitDir() {
        return Optional.empty();
    }

    /**
     * A tracked file's content as git's index and HEAD record it — one entry when they agree, none
     * outside a repository or for an untracked file — each only when at most {@code maxBytes}. What
     * the working tree no longer shows but {@code git diff} or {@code git log -p} still print: the
     * kernel redacts a secret file's recorded values as well as its current ones. Reads objects only.
     */
    default List<byte[]> recordedContents(Path file, int maxBytes) {
        return List.of();
    }

    /**
     * Whether file tools must not write here: the workspace's {@code .git} folder (the repository's
     * own data, hooks and configuration, which git runs code from) and its {@code .quiver} folder
     * (Quiver's configuration of the workspace), in any spelling — judged on the real path, so a
     * link into either counts, and case-insensitively, for file systems that fold case. Only the
     * git tools write into {@code .git}, through git's own library. Quiver's state folder for the
     * workspace is protected too where it lies inside the root (the home folder as the workspace).
     */
    boolean isProtected(Path path);

    /**
     * Every file of the workspace that holds secrets by its name ({@link #isSecret}), ignored folders
     * included, as absolute paths in walk order. The first call walks the whole tree; later calls list
     * again only the folders that changed, so calling it before every command is cheap.
     */
    List<Path> secretFiles() throws IOException;

    /**
     * Walks a directory depth first, in name order, calling the visitor for every entry below it.
     * The visitor returns {@code false} to stop the walk.
     *
     * @param directory where to start, inside the workspace
     * @param includeIgnored also visit what the ignore files exclude ({@code .git} never)
     * @param maxDepth 1 lists the directory's own entries; {@link Integer#MAX_VALUE} for no limit
     * @param visitor receives each entry; directories are visited before their contents
     */
    void walk(Path directory, boolean includeIgnored, int maxDepth, Predicate<Entry> visitor) throws IOException;

    /**
     * The files a {@link #walk} of this directory would visit (regular files and links to files), as
     * paths relative to the root with {@code /} separators, in walk order. Made for searching large
     * trees many times in a session: directories are read in parallel, and the listing of a directory
     * that has not changed since an earlier call is reused. Ignore files are read again when they
     * change, and links are followed afresh on every call. A link is listed only when it leads to a file
     * inside the workspace that does not hold secrets, so that searching what this lists never reads
     * outside the jail or a secret under another name.
     *
     * @param directory where to start, inside the workspace
     * @param includeIgnored also list what the ignore files exclude ({@code .git} never)
     */
    List<String> files(Path directory, boolean includeIgnored) throws IOException;

    /**
     * The files of {@link #files}, for a caller that may stop before the end, such as a search with a hit
     * cap. The list an earlier call made is handed out at once and checked against the disk only as far
     * as it is read, directory by directory in walk order; the first directory found changed makes a
     * fresh walk. Reading the whole list costs about what {@link #files} costs.
     *
     * @param directory where to start, inside the workspace
     * @param includeIgnored also list what the ignore files exclude ({@code .git} never)
     */
    FileList fileList(Path directory, boolean includeIgnored) throws IOException;

    /**
     * A matcher for a glob in the syntax of ripgrep's {@code --glob} and of {@code .gitignore}:
     * {@code *} and {@code ?} stay within one path segment, {@code **} spans segments, {@code [a-z]}
     * classes and {@code {a,b}} alternatives. A pattern without {@code /} matches a file name at any
     * depth; one with a {@code /} is matched against the whole workspace-relative path.
     *
     * @throws ToolException when the glob is malformed
     */
    Predicate<String> globMatcher(String glob) throws ToolException;

    /**
     * Reads a text file. A NUL byte in the first 8 KB marks it binary and refuses it. Text that is not
     * valid UTF-8 is read as ISO-8859-1, so writing it back with the returned charset keeps every byte.
     *
     * @throws ToolException when the file is missing, a directory, binary or unreadable
     */
    TextFile readText(Path file) throws ToolException;

    /**
     * Reads lines {@code offset} to {@code offset + limit - 1} (1-based) of a text file and counts all of
     * its lines, under {@link #readText}'s rules (binary refused, ISO-8859-1 for text that is not UTF-8).
     * A file too large to read whole is read as a stream that keeps only the window, so any size can
     * be read in parts. An offset past the end gives an empty window.
     *
     * @throws ToolException when the file is missing, a directory, binary or unreadable, or the window's
     *     lines are too long to hold
     * @since 1.5
     */
    TextWindow readLines(Path file, int offset, int limit) throws ToolException;

    /**
     * Replaces a file's content atomically (a temporary file in the same directory, then a rename), so
     * a failed write leaves the file byte for byte as it was; keeps the permissions of the file it
     * replaces and creates missing parent directories, and removes them again when the write fails. A
     * link inside the workspace is written through to its target. A one-step {@link #change}; an edit
     * that must not drop another program's bytes uses {@link Change#replace} instead.
     *
     * @throws IOException also when the file is {@link #isProtected protected}
     */
    void write(Path file, byte[] content) throws IOException;

    /**
     * Begins a change of one or more files that lands whole or not at all, also when the process is
     * killed half way. Each new content is staged as a temporary file next to its target and flushed to
     * disk; a change of more than one step then records every step in a journal in Quiver's state
     * folder for the workspace (never in the working tree) before it renames anything, and removes the
     * journal when done. The next open of the workspace with that state folder
     * ({@link WorkspaceFactory#open(Path, Path)}) finishes a change whose journal was complete and
     * rolls back one whose journal was not, and says which in {@link #recovered()}.
     *
     * <p>Before each file is replaced or deleted its content is compared with what the change was
     * made from ({@link Change#replace}, {@link Change#delete}); a file another program changed
     * meanwhile is refused ({@code <path> changed while it was being edited; read it again}), and
     * the other program's bytes are kept.
     *
     * @param tool what makes the change, as recovery names it ({@code apply_patch})
     * @throws UnsupportedOperationException from a workspace that makes no changes (a test's stand-in)
     * @since 1.5
     */
    default Change change(String tool) {
        throw new UnsupportedOperationException("this workspace makes no changes");
    }

    /**
     * What opening this workspace found of changes a killed process left half done, one sentence each
     * ({@code an interrupted apply_patch (3 Dec 21:40) was finished: 40 files}); empty when there were
     * none, and always for a workspace opened without a state folder.
     *
     * @since 1.5
     */
    default List<String> recovered() {
        return List.of();
    }

    /**
     * The steps of one {@link #change}, done in the order given when {@link #commit} is called. Nothing
     * touches the working tree before {@code commit}.
     *
     * @since 1.5
     */
    interface Change {

        /** Writes a file whole, whatever it holds now (or creates it, with its missing folders). */
        Change write(Path file, byte[] content);

        /**
         * Replaces a file's content only if it still holds {@code before}, the bytes the new content
         * was made from; {@code before} null means the file must not exist. The file keeps its
         * permissions; a new one gets {@code rw-r--r--}.
         */
        Change replace(Path file, byte[] before, byte[] after);

        /** Sets the permissions a file this change creates gets, instead of {@code rw-r--r--}. */
        Change permissions(Path file, java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions);

        /**
         * Deletes a file only if it still holds {@code before}. With {@code before} null it deletes what is
         * there without comparing: a symbolic link itself (never its target), or a folder, which must be
         * empty by then (its files deleted by earlier steps of the change).
         */
        Change delete(Path file, byte[] before);

        /** As {@link Workspace#move}. */
        Change move(Path from, Path to);

        /** As {@link Workspace#copy}: a folder is copied under a temporary name and renamed into place. */
        Change copy(Path from, Path to);

        /**
         * Does every step. A failure before the first rename leaves every file as it was and removes
         * what was staged and the folders made for it. A file {@link #replace replaced} whose mode has no
         * write bit for its owner is refused, naming the mode; {@link #write} replaces it whatever the mode.
         *
         * @throws IOException whose message is the sentence to show, naming the file relative to the
         *     root and what was wrong, never a temporary's path ({@code src/A.java: permission denied.
         *     No file was changed.}); it ends {@code No file was changed.} when no file changed, and
         *     {@code Every other file of the change was changed.} when a step failed after the journal
         */
        void commit() throws IOException;
    }

    /**
     * Opens a regular file for reading, following links only while they stay inside the workspace and
     * never to a file holding secrets under a name that does not.
     *
     * @since 1.3
     */
    java.nio.channels.SeekableByteChannel openRead(Path file) throws IOException;

    /**
     * Holds a folder open to read many of its files by name, as a search does: cheaper than
     * {@link #openRead} for each, and as safe. Close it when done.
     *
     * @since 1.3
     */
    Folder openFolder(Path directory) throws IOException;

    /**
     * Creates a folder and the missing folders above it.
     *
     * @throws IOException also when the path is {@link #isProtected protected} or exists as a file
     * @since 1.3
     */
    void createDirectories(Path directory) throws IOException;

    /**
     * Renames a file, folder or link (the link itself) to a path that does not exist yet, creating its
     * missing folders.
     *
     * @throws IOException also when either end is {@link #isProtected protected}
     * @since 1.3
     */
    void move(Path from, Path to) throws IOException;

    /**
     * Copies a file, or a folder with all it holds, to a path that does not exist yet, keeping
     * permissions and creating missing folders. Links inside a folder are copied as links; pipes,
     * sockets and devices are left out. A copy that fails removes what it made.
     *
     * @throws IOException also when the target is {@link #isProtected protected}
     * @since 1.3
     */
    void copy(Path from, Path to) throws IOException;

    /**
     * Deletes a file, a link (not what it points to) or an empty folder.
     *
     * @throws IOException also when the path is {@link #isProtected protected}
     * @since 1.3
     */
    void delete(Path path) throws IOException;

    /**
     * Sets a file's POSIX permissions.
     *
     * @throws IOException also when the file is {@link #isProtected protected}, or the file system
     *     has no POSIX permissions
     * @since 1.3
     */
    void setPermissions(Path file, java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions)
            throws IOException;

    /**
     * Makes a symbolic link holding {@code target} as its text, at a path that does not exist yet,
     * creating its missing folders. The link is made in its held folder, never through another link.
     *
     * @throws IOException also when the path is {@link #isProtected protected}, when the target would
     *     lead out of the workspace, or when it names a file holding secrets and the link's name does not
     * @since 1.4
     */
    void createLink(Path link, Path target) throws IOException;

    /**
     * A folder held open by {@link #openFolder}: its files are opened relative to it, so a link swapped
     * in for a folder on its path afterwards changes nothing.
     *
     * <p>Only the workspace makes folders (a provider type since 1.9, which it always was in fact): a
     * bundle uses them and never implements one, so methods can be added to it in a minor version.
     *
     * @since 1.3
     */
    @ProviderType
    interface Folder extends java.io.Closeable {

        /** Opens a file of this folder by name for reading, as {@link Workspace#openRead} would. */
        java.nio.channels.SeekableByteChannel openRead(String name) throws IOException;

        /**
         * Opens a folder of this folder by name, relative to it and without following a link: a
         * search that holds the folders of its path one below the other opens each folder once, where
         * {@link Workspace#openFolder} walks the path again from the root. The two folders are closed
         * apart; closing this one leaves the other open.
         *
         * <p>A name holding {@code \xHH} escapes names the folder with those bytes, as
         * {@link Workspace#resolve} reads it. A symbolic link in the folder's place is walked from the
         * root as {@link Workspace#openFolder} walks it, never opened relative to this folder: a link to
         * a folder inside the workspace opens that folder, one that leads out is refused. So what is
         * opened is what {@code openFolder} of the same path would open, and a search reads the same
         * files either way.
         *
         * @param name one name: not empty, without {@code /}, not {@code .} or {@code ..}
         * @throws IOException when the name is not one name, when there is no such folder or it is
         *     not a folder, or when a link in its place leads out of the workspace
         * @since 1.9
         */
        Folder openFolder(String name) throws IOException;
    }

    /** The files of {@link #fileList}, read by index; one list may be read from several threads at once. */
    interface FileList {

        /**
         * The file at an index, relative to the root with {@code /} separators, or null when the list
         * is shorter. A file once read keeps its index unless the tree changes while the list is read,
         * when, as for any search of a changing tree, a file may be missed or met twice.
         *
         * @param index from 0
         * @throws IOException when the tree has changed and can no longer be walked
         */
        String get(int index) throws IOException;
    }

    /**
     * One entry of a walk.
     *
     * @param path the absolute path
     * @param relativePath relative to the root, POSIX separators
     * @param kind what the entry is
     * @param size the size in bytes of a file, 0 otherwise
     * @param depth 1 for entries directly in the walked directory
     */
    record Entry(Path path, String relativePath, Kind kind, long size, int depth) {

        /** What a walk entry is. */
        public enum Kind {
            /** A regular file, or a symbolic link to one. */
            FILE,
            /** A directory. */
            DIRECTORY,
            /** A symbolic link to a directory: listed, never descended. */
            LINKED_DIRECTORY,
            /** Anything else: a dangling link, a device, a socket. */
            OTHER
        }
    }

    /**
     * A text file's content and how to write it back unchanged.
     *
     * @param text the decoded content
     * @param charset UTF-8, or ISO-8859-1 for bytes that are not valid UTF-8
     * @param bytes the size in bytes on disk
     */
    record TextFile(String text, Charset charset, long bytes) {
    }

    /**
     * Some of a text file's lines.
     *
     * @param lines the lines asked for that the file has, without their terminators
     * @param total how many lines the file has (a final terminator starts no extra line)
     * @param charset UTF-8, or ISO-8859-1 for bytes that are not valid UTF-8
     * @since 1.5
     */
    record TextWindow(List<String> lines, int total, Charset charset) {
        public TextWindow {
            lines = List.copyOf(lines);
        }
    }
}
