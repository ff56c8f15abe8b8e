package dev.quiver.workspace;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.ignore.IgnoreNode;

/**
 * The ignore files that apply inside a workspace, evaluated as git evaluates them: the deepest
 * directory's rules first, the last matching line of a file winning, {@code .git/info/exclude}
 * after every {@code .gitignore}, and the user's global excludes file ({@code core.excludesFile},
 * by default {@code $XDG_CONFIG_HOME/git/ignore}) last. The matching itself is JGit's.
 *
 * <p>When the workspace is a folder inside a repository, the ignore files between the repository's
 * top and the workspace apply too, as they do for {@code git ls-files} run there. As in git, the rules
 * apply to untracked files only: what the index tracks ({@link TrackedFiles}) is never ignored.
 */
final class IgnoreRules {

    static final String GITIGNORE = ".gitignore";
    static final String QUIVERIGNORE = ".quiverignore";
    private static final int MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

    private final Path base;
    /** {@code .git/info/exclude}, then the global excludes file: the first with an opinion decides. */
    private final List<IgnoreNode> excludes;
    private final TrackedFiles tracked;
    private final Optional<Path> gitDir;
    private final Map<Path, Cached> byDirectory = new ConcurrentHashMap<>();
    /** Bumped by every walk and standalone check, so ignore files are re-read when they changed since. */
    private final AtomicLong generation = new AtomicLong();

    /** A folder's parsed ignore files, with what they looked like on disk when parsed. */
    private record Cached(List<IgnoreNode> nodes, String stamp, long checked) {
    }

    private IgnoreRules(Path base, List<IgnoreNode> excludes, TrackedFiles tracked, Optional<Path> gitDir) {
        this.base = base;
        this.excludes = excludes;
        this.tracked = tracked;
        this.gitDir = gitDir;
    }

    /** The git folder of the repository found when the rules were made; empty outside one. */
    Optional<Path> gitDir() {
        return gitDir;
    }

    /** The rules for a workspace root, looking upwards for the repository it belongs to. */
    static IgnoreRules forRoot(Path root) {
        return forRoot(root, GlobalExcludes.fromEnvironment());
    }

    /** As {@link #forRoot(Path)}, with the user's git configuration found by {@code global}. */
    static IgnoreRules forRoot(Path root, GlobalExcludes global) {
        for (Path dir = root; dir != null; dir = dir.getParent()) {
            Path dotGit = dir.resolve(".git");
            Optional<Path> gitDir = Files.isDirectory(dotGit) ? Optional.of(dotGit)
                    : Files.isRegularFile(dotGit) ? gitDirOfWorktree(dir, dotGit) : null;
            if (gitDir != null) {
                List<IgnoreNode> excludes = new ArrayList<>(2);
                gitDir.flatMap(git -> parse(git.resolve("info").resolve("exclude"))).ifPresent(excludes::add);
                global.file(gitDir.orElse(null)).flatMap(IgnoreRules::parse).ifPresent(excludes::add);
                return new IgnoreRules(dir, List.copyOf(excludes),
                        new TrackedFiles(gitDir.map(git -> git.resolve("index")).orElse(null)), gitDir);
            }
        }
        // outside a repository git applies no exclude file, global or not
        return new IgnoreRules(root, List.of(), new TrackedFiles(null), Optional.empty());
    }

    /**
     * Whether git would ignore this path: an ignore file matches it or one of its folders, and it is
     * not tracked (for a directory: it holds nothing tracked). Anything inside an ignored directory
     * is ignored unless tracked.
     */
    boolean isIgnored(Path path, boolean directory) {
        if (!path.startsWith(base) || path.equals(base) || !matchedOrInsideMatched(path, directory)) {
            return false;
        }
        return !tracked.current().tracks(FileNames.shown(base.relativize(path)), directory);
    }

    /** Whether an ignore rule matches this path or a folder above it (below the base), tracked or not. */
    boolean matchedOrInsideMatched(Path path, boolean directory) {
        if (!path.startsWith(base) || path.equals(base)) {
            return false;
        }
        for (Path ancestor = path.getParent(); ancestor != null && ancestor.startsWith(base) && !ancestor.equals(base);
                ancestor = ancestor.getParent()) {
            if (matches(ancestor, true)) {
                return true;
            }
        }
        return matches(path, directory);
    }

    /** Whether the repository's index lists this file. */
    boolean isTracked(Path path) {
        return path.startsWith(base) && !path.equals(base)
                && tracked.current().tracks(FileNames.shown(base.relativize(path)), false);
    }

    /** A tracked file's content as the index and HEAD record it ({@link TrackedFiles#recorded}). */
    List<byte[]> recorded(Path path, int maxBytes) {
        return path.startsWith(base) && !path.equals(base) && isTracked(path)
                ? tracked.recorded(FileNames.shown(base.relativize(path)), maxBytes) : List.of();
    }

    /** What the repository's index tracks, which no ignore rule hides. */
    TrackedFiles tracked() {
        return tracked;
    }

    /** Only this entry's own rules, for a walk that already pruned ignored directories. */
    boolean matches(Path path, boolean directory) {
        for (Path dir = path.getParent(); dir != null && dir.startsWith(base); dir = dir.getParent()) {
            String relative = FileNames.shown(dir.relativize(path));
            for (IgnoreNode node : nodes(dir)) {
                Boolean ignored = node.checkIgnored(relative, directory);
                if (ignored != null) {
                    return ignored;
                }
            }
        }
        return excluded(FileNames.shown(base.relativize(path)), directory);
    }

    /** The directory the rules are relative to: the repository's top, or the workspace root outside one. */
    Path base() {
        return base;
    }

    /**
     * The ignore files in force in a directory during a walk, deepest first: each link holds one
     * directory's parsed files and that directory's path below {@link #base()} with a trailing slash.
     * Directories without ignore files are left out, so checking an entry costs nothing for them.
     */
    record Chain(String prefix, List<IgnoreNode> nodes, Chain parent) {
    }

    /**
     * The chain a walk starting in a directory begins with: the ignore files of every directory above
     * it up to the base. The walk adds the directory's own from its listing.
     */
    Chain chainAbove(Path directory) {
        List<Path> dirs = new ArrayList<>();
        for (Path dir = directory.getParent(); dir != null && dir.startsWith(base); dir = dir.getParent()) {
            dirs.add(0, dir);
        }
        Chain chain = null;
        for (Path dir : dirs) {
            List<IgnoreNode> nodes = nodes(dir);
            if (!nodes.isEmpty()) {
                String relative = slashes(base.relativize(dir));
                chain = new Chain(relative.isEmpty() ? "" : relative + "/", nodes, chain);
            }
        }
        return chain == null ? new Chain("", List.of(), null) : chain;
    }

    /**
     * The chain inside a directory of a walk, given the directory's own ignore files ({@link #nodes}).
     *
     * @param prefix the directory's path below the base with a trailing slash ("" for the base)
     */
    Chain extend(Chain chain, String prefix, List<IgnoreNode> nodes) {
        return nodes.isEmpty() ? chain : new Chain(prefix, nodes, chain);
    }

    /**
     * Whether an entry of a walk is ignored by its own rules (its ignored ancestors were pruned).
     *
     * @param fromBase the entry's path below the base
     */
    boolean ignored(Chain chain, String fromBase, boolean directory) {
        for (Chain link = chain; link != null; link = link.parent()) {
            if (link.nodes().isEmpty()) {
                continue;
            }
            String relative = fromBase.substring(link.prefix().length());
            for (IgnoreNode node : link.nodes()) {
                Boolean ignored = node.checkIgnored(relative, directory);
                if (ignored != null) {
                    return ignored;
                }
            }
        }
        return excluded(fromBase, directory);
    }

    private boolean excluded(String fromBase, boolean directory) {
        for (IgnoreNode node : excludes) {
            Boolean ignored = node.checkIgnored(fromBase, directory);
            if (ignored != null) {
                return ignored;
            }
        }
        return false;
    }

    /** Starts a new walk or check: ignore files edited since the last one are read again. */
    void refresh() {
        generation.incrementAndGet();
    }

    private List<IgnoreNode> nodes(Path dir) {
        return nodes(dir, true, true);
    }

    /**
     * A folder's ignore files; one a listing showed to be absent is not looked for. While the files'
     * contents stay the same, every call after a {@link #refresh} returns the same list instance.
     */
    List<IgnoreNode> nodes(Path dir, boolean mayHaveQuiverignore, boolean mayHaveGitignore) {
        if (!mayHaveQuiverignore && !mayHaveGitignore) {
            return List.of();
        }
        long now = generation.get();
        Cached cached = byDirectory.get(dir);
        if (cached != null && cached.checked() == now) {
            return cached.nodes();
        }
        // the content itself is the stamp: an edit within one timestamp tick keeps size and time alike
        byte[] quiver = mayHaveQuiverignore ? content(dir.resolve(QUIVERIGNORE)) : null;
        byte[] git = mayHaveGitignore ? content(dir.resolve(GITIGNORE)) : null;
        String stamp = stamp(quiver) + "|" + stamp(git);
        if (cached != null && cached.stamp().equals(stamp)) {
            byDirectory.put(dir, new Cached(cached.nodes(), stamp, now));
            return cached.nodes();
        }
        List<IgnoreNode> nodes = new ArrayList<>(2);
        // .quiverignore is consulted first so that it wins over .gitignore in the same folder
        parse(quiver).ifPresent(nodes::add);
        parse(git).ifPresent(nodes::add);
        List<IgnoreNode> parsed = List.copyOf(nodes);
        byDirectory.put(dir, new Cached(parsed, stamp, now));
        return parsed;
    }

    /**
     * An ignore file's bytes; null when it is missing, not a regular file, unreadable or absurdly large.
     * A symbolic link is not followed, as git (since 2.32) does not follow a {@code .gitignore} that is
     * one: a repository's link could otherwise pull rules from anywhere on the machine.
     */
    private static byte[] content(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            // NOFOLLOW_LINKS opens with O_NOFOLLOW: a link swapped in since the check fails to open
            try (SeekableByteChannel channel = Files.newByteChannel(file, LinkOption.NOFOLLOW_LINKS)) {
                if (channel.size() > MAX_IGNORE_FILE_BYTES) {
                    return null;
                }
                return Channels.newInputStream(channel).readNBytes(MAX_IGNORE_FILE_BYTES);
            }
        } catch (IOException e) {
            return null;
        }
    }

    private static String stamp(byte[] content) {
        return content == null ? "-" : content.length + ":" + new String(content, StandardCharsets.ISO_8859_1);
    }

    private static Optional<IgnoreNode> parse(byte[] content) {
        if (content == null) {
            return Optional.empty();
        }
        IgnoreNode node = new IgnoreNode();
        try {
            node.parse(new ByteArrayInputStream(content));
        } catch (IOException e) {
            return Optional.empty();
        }
        return node.getRules().isEmpty() ? Optional.empty() : Optional.of(node);
    }

    private static Optional<IgnoreNode> parse(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        IgnoreNode node = new IgnoreNode();
        try (InputStream in = Files.newInputStream(file)) {
            node.parse(in);
        } catch (IOException e) {
            return Optional.empty();
        }
        return node.getRules().isEmpty() ? Optional.empty() : Optional.of(node);
    }

    private static Optional<Path> gitDirOfWorktree(Path dir, Path dotGitFile) {
        try {
            String line = Files.readString(dotGitFile).trim();
            if (line.startsWith("gitdir:")) {
                return Optional.of(dir.resolve(line.substring("gitdir:".length()).trim()).normalize());
            }
        } catch (IOException e) {
            // an unreadable .git file means no exclude file; the .gitignore files still apply
        }
        return Optional.empty();
    }

    static String slashes(Path relative) {
        String s = relative.toString();
        return relative.getFileSystem().getSeparator().equals("/") ? s : s.replace(relative.getFileSystem().getSeparator(), "/");
    }
}
