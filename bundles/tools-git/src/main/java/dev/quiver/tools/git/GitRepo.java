package dev.quiver.tools.git;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.tools.git.repository.SessionRepository;
import dev.quiver.tools.git.repository.UnfilteredWorkTree;
import java.io.IOException;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.errors.AmbiguousObjectException;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.errors.RevisionSyntaxException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The repository that holds the workspace root, opened for one call. Paths the model sends go through
 * the workspace jail and are turned into repository paths here; repository paths are turned back into
 * workspace-relative ones, and those outside the workspace (when the workspace is a sub-folder of the
 * work tree) are left out. Nothing here starts a process: arguments are values, never shell words, and
 * the repository is opened by {@link SessionRepository}, so its hooks and filter drivers never run.
 */
final class GitRepo implements AutoCloseable {

    /** Output is cut here, below the kernel's own 30,000-character cap, so the note saying so survives. */
    static final int MAX_CHARS = 28_000;

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xx");

    final Workspace workspace;
    final Repository repository;
    /** The workspace root relative to the work tree, with a trailing slash; empty when they are the same. */
    final String prefix;

    private GitRepo(Workspace workspace, Repository repository, String prefix) {
        this.workspace = workspace;
        this.repository = repository;
        this.prefix = prefix;
    }

    /** The subjects of a tool whose only path is the optional {@code path} argument. */
    static java.util.List<dev.quiver.api.Subject> pathSubject(dev.quiver.api.Arguments arguments) throws ToolException {
        return arguments.optionalString("path").map(p -> java.util.List.of(dev.quiver.api.Subject.path(p)))
                .orElse(java.util.List.of());
    }

    static GitRepo open(Workspace workspace) throws ToolException {
        SessionRepository opened = SessionRepository.open(workspace,
                "the git tools have nothing to read here. A repository made since is used from Quiver's next start.");
        return new GitRepo(workspace, opened.repository(), opened.prefix());
    }

    /**
     * The repository path of a path the model sent, jailed by the workspace: empty for the work tree's
     * root, a folder or file path otherwise.
     */
    String repoPath(String path) throws ToolException {
        String relative = workspace.relativize(workspace.resolve(path));
        if (relative.equals(".")) {
            return prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
        }
        return prefix + relative;
    }

    /**
     * The repository path of a path the model sent, as written, for looking a name up in commits: the jail
     * still refuses a path that leads outside, but a symbolic link in today's working tree is not followed,
     * since the file at an old commit is the one that had this name then.
     */
    String historyPath(String path) throws ToolException {
        workspace.resolve(path);
        Path root = workspace.root();
        Path lexical = root.resolve(path).normalize();
        if (!lexical.startsWith(root)) {
            throw new ToolException("Path escapes workspace: " + path);
        }
        String relative = root.relativize(lexical).toString().replace(java.io.File.separatorChar, '/');
        return relative.isEmpty() ? defaultScope() : prefix + relative;
    }

    /** The repository path the calls are limited to when the model names none: the workspace's own folder. */
    String defaultScope() {
        return prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
    }

    /** A filter for a repository path from {@link #repoPath} or {@link #defaultScope}. */
    static TreeFilter filter(String repoPath) {
        return repoPath.isEmpty() ? TreeFilter.ALL : PathFilter.create(repoPath);
    }

    /** The workspace-relative form of a repository path, or null when it lies outside the workspace. */
    String shown(String repoPath) {
        if (repoPath == null) {
            return null;
        }
        return repoPath.startsWith(prefix) ? repoPath.substring(prefix.length()) : null;
    }

    /** Whether the file at this repository path holds secrets by its name. */
    boolean isSecret(String repoPath) {
        return repoPath != null && !repoPath.equals("/dev/null") && workspace.isSecret(Path.of(repoPath));
    }

    /** The working tree, read without running the repository's clean filters ({@link UnfilteredWorkTree}). */
    UnfilteredWorkTree workTree() {
        return new UnfilteredWorkTree(repository);
    }

    DirCache index() throws ToolException {
        try {
            return repository.readDirCache();
        } catch (IOException e) {
            throw new ToolException("Could not read the git index: " + e.getMessage(), e);
        }
    }

    /** HEAD's commit, or null on a branch with no commits yet. */
    RevCommit head(RevWalk walk) throws ToolException {
        try {
            ObjectId id = repository.resolve(Constants.HEAD);
            return id == null ? null : walk.parseCommit(id);
        } catch (IOException e) {
            throw new ToolException("Could not read HEAD: " + e.getMessage(), e);
        }
    }

    /** The commit a revision names ({@code HEAD~2}, a branch, a tag, a hash), with errors a model can act on. */
    RevCommit commit(RevWalk walk, String ref) throws ToolException {
        String shownRef = ref.length() > 80 ? ref.substring(0, 80) + "..." : ref;
        if (ref.isBlank()) {
            throw new ToolException("The ref is empty. Give a branch, tag, commit hash or an expression such as HEAD~1.");
        }
        ObjectId id;
        try {
            id = repository.resolve(ref);
        } catch (AmbiguousObjectException e) {
            throw new ToolException("'" + shownRef + "' is an ambiguous abbreviated hash; give more of it.", e);
        } catch (RevisionSyntaxException e) {
            throw new ToolException("'" + shownRef + "' is not a valid revision: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new ToolException("Could not resolve '" + shownRef + "': " + e.getMessage(), e);
        }
        if (id == null) {
            throw new ToolException("Unknown revision '" + shownRef + "': no branch, tag or commit by that name"
                    + (ref.equals(Constants.HEAD) ? " (the branch has no commits yet)" : "")
                    + ". git_log lists commits.");
        }
        try {
            return walk.parseCommit(id);
        } catch (IncorrectObjectTypeException e) {
            throw new ToolException("'" + shownRef + "' names a " + typeOf(walk, id) + ", not a commit.", e);
        } catch (MissingObjectException e) {
            throw new ToolException("Unknown revision '" + shownRef + "': the object is not in this repository.", e);
        } catch (IOException e) {
            throw new ToolException("Could not read '" + shownRef + "': " + e.getMessage(), e);
        }
    }

    private static String typeOf(RevWalk walk, ObjectId id) {
        try {
            return Constants.typeString(walk.getObjectReader().open(id).getType());
        } catch (IOException e) {
            return "non-commit object";
        }
    }

    static String shortId(ObjectId id) {
        return id.abbreviate(7).name();
    }

    static String day(PersonIdent person) {
        return ZonedDateTime.ofInstant(person.getWhenAsInstant(), person.getZoneId()).format(DAY);
    }

    /** A commit as one line: short hash, author date, author name, subject (cut at 200 characters). */
    static String oneLine(RevCommit commit) {
        String subject = commit.getShortMessage();
        if (subject.length() > 200) {
            subject = subject.substring(0, 200) + "...";
        }
        return shortId(commit) + "  " + day(commit.getAuthorIdent()) + "  " + commit.getAuthorIdent().getName() + "  "
                + subject;
    }

    static String time(PersonIdent person) {
        return ZonedDateTime.ofInstant(person.getWhenAsInstant(), person.getZoneId()).format(TIME);
    }

    /** The branch line: {@code On branch main}, or the detached commit. */
    String branchLine() throws ToolException {
        try {
            String full = repository.getFullBranch();
            if (full == null) {
                return "No HEAD";
            }
            if (full.startsWith(Constants.R_HEADS)) {
                String branch = Repository.shortenRefName(full);
                StringBuilder line = new StringBuilder("On branch ").append(branch).append(tracking(branch));
                if (repository.resolve(Constants.HEAD) == null) {
                    line.append(", no commits yet");
                }
                return line.toString();
            }
            return "HEAD detached at " + shortId(ObjectId.fromString(full));
        } catch (IOException | IllegalArgumentException e) {
            throw new ToolException("Could not read the current branch: " + e.getMessage(), e);
        }
    }

    /**
     * The current branch and how it stands against its upstream, for a sentence: {@code main},
     * {@code main (ahead 1, behind 1 of origin/main)}; null on a detached HEAD.
     */
    String branchWithTracking() throws ToolException {
        try {
            String full = repository.getFullBranch();
            if (full == null || !full.startsWith(Constants.R_HEADS)) {
                return null;
            }
            String branch = Repository.shortenRefName(full);
            return branch + tracking(branch);
        } catch (IOException e) {
            throw new ToolException("Could not read the current branch: " + e.getMessage(), e);
        }
    }

    /**
     * {@code  (up to date with origin/main)}, {@code  (ahead 1, behind 1 of origin/main)}, or empty when the
     * branch has no upstream (or its remote-tracking ref is missing).
     */
    String tracking(String branch) throws IOException {
        org.eclipse.jgit.lib.BranchTrackingStatus tracking =
                org.eclipse.jgit.lib.BranchTrackingStatus.of(repository, branch);
        if (tracking == null) {
            return "";
        }
        String upstream = Repository.shortenRefName(tracking.getRemoteTrackingBranch());
        int ahead = tracking.getAheadCount();
        int behind = tracking.getBehindCount();
        return ahead == 0 && behind == 0 ? " (up to date with " + upstream + ")"
                : " (" + (ahead > 0 ? "ahead " + ahead : "") + (ahead > 0 && behind > 0 ? ", " : "")
                        + (behind > 0 ? "behind " + behind : "") + " of " + upstream + ")";
    }

    @Override
    public void close() {
        repository.close();
    }
}
