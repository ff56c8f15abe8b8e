package dev.quiver.kernel;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.tools.git.repository.NoProcessFS;
import dev.quiver.tools.git.repository.SessionRepository;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.ResetCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.UserConfig;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.io.DisabledOutputStream;

/**
 * The checkouts {@code spawn_subagent}'s workers work in. JGit has no {@code git worktree add}, so each is
 * the equivalent made by hand: a repository of its own in Quiver's state folder for the workspace
 * ({@code <state>/worktrees/<label>-<n>}, outside the user's working tree), reading the user's objects
 * through {@code objects/info/alternates}, with HEAD's files checked out on a branch
 * {@code quiver/<label>-<n>}. The user's repository gets only that branch (made at HEAD when the worker
 * starts, moved to the worker's commit when it ends) and the objects the commit needs: its HEAD, index
 * and working tree are never touched. JGit runs on {@link NoProcessFS}: no hook, filter or signing
 * program of the repository runs.
 */
final class Worktrees {

    /** The prefix of every branch a worker gets. */
    static final String BRANCH_PREFIX = "quiver/";
    /** Characters of a label kept in a branch and folder name. */
    private static final int LABEL_CHARS = 40;
    /** Files a report lists one by one. */
    private static final int LISTED_FILES = 50;

    private final Workspace workspace;
    private final Path folder;
    private final List<Checkout> open = new ArrayList<>();

    /**
     * @param workspace the session's workspace, whose repository (as recorded when it opened) gets the branches
     * @param stateFolder Quiver's state folder for it; the checkouts go in its {@code worktrees} folder
     */
    Worktrees(Workspace workspace, Path stateFolder) {
        this.workspace = workspace;
        this.folder = stateFolder.resolve("worktrees");
    }

    /**
     * One worker's checkout.
     *
     * @param root the folder the worker works in: the checkout, or the folder in it that the session's
     *     workspace root is in the user's tree
     */
    record Checkout(String branch, Path folder, Path root, ObjectId base, boolean keep) {
    }

    /** What a worker's checkout holds when it ended, against where it started. */
    record Outcome(String branch, String base, String summary, boolean changed) {
    }

    /**
     * A branch name's label part: lower-case letters, digits and single dashes, so a label can name no
     * other folder ({@code ../}), no ref syntax ({@code ..}, {@code @{}, {@code ~}) and nothing a shell
     * reads.
     */
    static String slug(String label) {
        String slug = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (slug.length() > LABEL_CHARS) {
            slug = slug.substring(0, LABEL_CHARS).replaceAll("-+$", "");
        }
        return slug.isEmpty() ? "worker" : slug;
    }

    /** Makes a checkout of HEAD on a new branch for the worker {@code label}. */
    synchronized Checkout create(String label, boolean keep) throws ToolException {
        try (SessionRepository session = SessionRepository.open(workspace, "spawn_subagent cannot give a worker a "
                + "branch of its own. Use task with kind worker to work in this folder directly, or run git init "
                + "and commit first.")) {
            Repository user = session.repository();
            ObjectId head = user.resolve(Constants.HEAD + "^{commit}");
            if (head == null) {
                throw new ToolException("The repository has no commit yet, so there is nothing for a worker to "
                        + "start from. Commit first, or use task with kind worker.");
            }
            String prefixBranch = BRANCH_PREFIX.substring(0, BRANCH_PREFIX.length() - 1);
            if (user.exactRef(Constants.R_HEADS + prefixBranch) != null) {
                // git keeps refs/heads/quiver as a file, where refs/heads/quiver/... needs a folder
                throw new ToolException("The repository has a branch named " + prefixBranch + ", so git cannot hold "
                        + "the branches " + BRANCH_PREFIX + "... that workers get beside it. Rename it (git branch -m "
                        + prefixBranch + " NEW-NAME) to start workers, or use task with kind worker.");
            }
            Files.createDirectories(folder);
            String name = slug(label);
            int n = 1;
            // a user's branch quiver/<name>-<n>/... takes the name as a folder: that number is skipped too
            while (user.exactRef(Constants.R_HEADS + BRANCH_PREFIX + name + "-" + n) != null
                    || user.getRefDatabase().isNameConflicting(Constants.R_HEADS + BRANCH_PREFIX + name + "-" + n)
                    || Files.exists(folder.resolve(name + "-" + n), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                n++;
            }
            String branch = BRANCH_PREFIX + name + "-" + n;
            Path checkout = folder.resolve(name + "-" + n);
            if (!checkout.normalize().getParent().equals(folder.normalize())) {
                throw new IllegalStateException("a worker's folder left the worktrees folder: " + checkout);
            }
            RefUpdate made = user.updateRef(Constants.R_HEADS + branch);
            made.setNewObjectId(head);
            made.setExpectedOldObjectId(ObjectId.zeroId());
            made.setRefLogMessage("spawn_subagent: worker '" + name + "' starts from HEAD", false);
            RefUpdate.Result result = made.update();
            if (result != RefUpdate.Result.NEW) {
                throw new ToolException("Could not make the branch " + branch + " (" + result + "). Try again.");
            }
            Path root = session.prefix().isEmpty() ? checkout : checkout.resolve(session.prefix());
            try {
                checkOut(user, checkout, branch, head);
                if (Files.exists(root) && !root.toRealPath().startsWith(checkout.toRealPath())) {
                    // the workspace's folder is a link in HEAD (a folder in the user's tree): the worker's
                    // workspace would be wherever it leads
                    throw new IOException("the workspace's folder " + session.prefix().replaceAll("/$", "")
                            + " is a link in HEAD that leads out of the checkout, so no worker can work in it. "
                            + "Commit the folder as it is in your tree, or use task with kind worker");
                }
            } catch (IOException | GitAPIException | RuntimeException e) {
                // nothing of a worker that never started is left behind
                delete(checkout);
                RefUpdate undo = user.updateRef(Constants.R_HEADS + branch);
                undo.setForceUpdate(true);
                undo.delete();
                throw e;
            }
            Checkout created = new Checkout(branch, checkout, root, head, keep);
            open.add(created);
            return created;
        } catch (IOException | GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException
                | UnsupportedOperationException e) {
            throw new ToolException("Could not make a checkout for the worker: " + AgentLoop.oneLine(e), e);
        }
    }

    /** A repository in {@code checkout} reading the user's objects, with HEAD on {@code branch} at {@code head}, checked out. */
    private static void checkOut(Repository user, Path checkout, String branch, ObjectId head)
            throws IOException, GitAPIException {
        Files.createDirectories(checkout);
        try (Repository child = new FileRepositoryBuilder().setGitDir(checkout.resolve(".git").toFile())
                .setFS(NoProcessFS.INSTANCE).build()) {
            child.create();
            // the user's objects are read where they are, never copied
            // the common folder: a linked worktree's own git folder holds no objects
            Path objects = user.getCommonDirectory().toPath().resolve("objects").toRealPath();
            Files.writeString(checkout.resolve(".git/objects/info/alternates"), objects + "\n");
            RefUpdate start = child.updateRef(Constants.R_HEADS + branch);
            start.setNewObjectId(head);
            start.forceUpdate();
            child.updateRef(Constants.HEAD).link(Constants.R_HEADS + branch);
        }
        try (Repository child = open(checkout); Git git = Git.wrap(child)) {
            git.reset().setMode(ResetCommand.ResetType.HARD).setRef(head.name()).call();
        }
    }

    /**
     * Commits what the worker left in its checkout, puts the commit and its objects into the user's
     * repository as the worker's branch, and says what changed.
     */
    synchronized Outcome finish(Checkout checkout, String label) throws ToolException {
        try (SessionRepository session = SessionRepository.open(workspace, "the worker's branch cannot be kept.");
                Repository child = open(checkout.folder()); Git git = Git.wrap(child)) {
            Repository user = session.repository();
            removeSpecialFiles(checkout.folder());
            git.add().addFilepattern(".").call();
            git.add().setUpdate(true).addFilepattern(".").call();
            ObjectId top = child.resolve(Constants.HEAD + "^{commit}");
            if (!git.status().call().isClean() || top == null) {
                PersonIdent who = identity(user);
                top = git.commit().setMessage("Work of the Quiver worker '" + label + "'\n\nMade by spawn_subagent "
                        + "from " + checkout.base().name() + ".\n").setAuthor(who).setCommitter(who).setSign(false)
                        .setNoVerify(true).call().getId();
            }
            copyObjects(child, user, top, checkout.base());
            RefUpdate moved = user.updateRef(Constants.R_HEADS + checkout.branch());
            moved.setNewObjectId(top);
            moved.setExpectedOldObjectId(checkout.base());
            moved.setRefLogMessage("spawn_subagent: worker '" + label + "' ended", false);
            RefUpdate.Result result = moved.update();
            if (result != RefUpdate.Result.FAST_FORWARD && result != RefUpdate.Result.NO_CHANGE
                    && result != RefUpdate.Result.FORCED) {
                keepPastSession(checkout);
                throw new ToolException("The worker's commit " + top.name() + " could not be put on the branch "
                        + checkout.branch() + " (" + result + "; was the branch moved meanwhile?). The commit is in "
                        + checkout.folder() + ", kept after the session ends.");
            }
            return new Outcome(checkout.branch(), checkout.base().abbreviate(10).name(),
                    summary(child, checkout.base(), top), !top.equals(checkout.base()));
        } catch (IOException | GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException
                | UnsupportedOperationException e) {
            // JGit's own failures, and a filter (a .gitattributes the worker wrote) that NoProcessFS refuses to run
            keepPastSession(checkout);
            throw new ToolException("Could not keep the worker's changes on " + checkout.branch() + ": "
                    + AgentLoop.oneLine(e) + ". Its files are in " + checkout.folder() + ", kept after the session "
                    + "ends.", e);
        }
    }

    /** A checkout whose work is on no branch: its files are the only copy, so the session's end leaves them. */
    private void keepPastSession(Checkout checkout) {
        open.replaceAll(held -> held.equals(checkout) ? new Checkout(held.branch(), held.folder(), held.root(),
                held.base(), true) : held);
    }

    /** Removes every checkout not to be kept; their branches stay. */
    synchronized List<String> close() {
        List<String> problems = new ArrayList<>();
        for (Checkout checkout : open) {
            if (!checkout.keep()) {
                try {
                    delete(checkout.folder());
                } catch (IOException e) {
                    problems.add("Could not remove the worker's checkout " + checkout.folder() + ": " + e.getMessage());
                }
            }
        }
        open.clear();
        return problems;
    }

    /**
     * The checkout's own repository, opened so that it starts no process. The worker's commands can write
     * in its {@code .git}; what could lead the kernel's own git calls elsewhere is refused or overridden: a
     * {@code .git} that became a link or a file, a {@code commondir} (a linked worktree's pointer to
     * another repository), and {@code core.worktree} (the work tree is set here, so the config's is not read).
     */
    private static Repository open(Path checkout) throws IOException {
        Path gitDir = checkout.resolve(".git");
        if (!Files.isDirectory(gitDir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                || !gitDir.toRealPath().equals(checkout.toRealPath().resolve(".git"))
                || Files.exists(gitDir.resolve("commondir"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("the checkout's .git was replaced (by a link, a file or a commondir pointing "
                    + "elsewhere), so Quiver does not use it");
        }
        return new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setWorkTree(checkout.toFile())
                .setFS(NoProcessFS.INSTANCE).setMustExist(true).build();
    }

    /** The user's name and e-mail as their git configuration gives them. */
    private static PersonIdent identity(Repository user) {
        UserConfig config = user.getConfig().get(UserConfig.KEY);
        return new PersonIdent(config.getCommitterName(), config.getCommitterEmail());
    }

    /** Every object the worker's commits have that the user's repository lacks, written into it. */
    private static void copyObjects(Repository from, Repository to, ObjectId top, ObjectId base) throws IOException {
        try (ObjectWalk walk = new ObjectWalk(from); ObjectReader reader = from.newObjectReader();
                ObjectInserter inserter = to.newObjectInserter()) {
            walk.markStart(walk.parseAny(top));
            walk.markUninteresting(walk.parseAny(base));
            List<RevObject> objects = new ArrayList<>();
            for (RevCommit commit = walk.next(); commit != null; commit = walk.next()) {
                objects.add(commit);
            }
            for (RevObject object = walk.nextObject(); object != null; object = walk.nextObject()) {
                objects.add(object);
            }
            for (RevObject object : objects) {
                if (!to.getObjectDatabase().has(object)) {
                    // streamed: a file over JGit's in-memory limit (50 MiB) fails getBytes(), losing the branch
                    ObjectLoader loader = reader.open(object);
                    try (java.io.InputStream content = loader.openStream()) {
                        inserter.insert(loader.getType(), loader.getSize(), content);
                    }
                }
            }
            inserter.flush();
        }
    }

    /** {@code N files changed, +A -D} and a line per file, the first {@value #LISTED_FILES}. */
    private static String summary(Repository child, ObjectId base, ObjectId top) throws IOException {
        try (RevWalk walk = new RevWalk(child);
                DiffFormatter diff = new DiffFormatter(DisabledOutputStream.INSTANCE)) {
            diff.setRepository(child);
            List<DiffEntry> entries = diff.scan(walk.parseCommit(base).getTree(), walk.parseCommit(top).getTree());
            int added = 0;
            int deleted = 0;
            StringBuilder files = new StringBuilder();
            for (int i = 0; i < entries.size(); i++) {
                DiffEntry entry = entries.get(i);
                int plus = 0;
                int minus = 0;
                for (Edit edit : diff.toFileHeader(entry).toEditList()) {
                    plus += edit.getLengthB();
                    minus += edit.getLengthA();
                }
                added += plus;
                deleted += minus;
                if (i < LISTED_FILES) {
                    String path = entry.getChangeType() == DiffEntry.ChangeType.DELETE ? entry.getOldPath()
                            : entry.getNewPath();
                    files.append("  ").append(entry.getChangeType().name().toLowerCase(Locale.ROOT)).append(' ')
                            .append(entry.getChangeType() == DiffEntry.ChangeType.RENAME ? entry.getOldPath() + " -> "
                                    : "").append(path).append(" +").append(plus).append(" -").append(minus).append('\n');
                }
            }
            if (entries.size() > LISTED_FILES) {
                files.append("  ... and ").append(entries.size() - LISTED_FILES).append(" more files\n");
            }
            return entries.size() + " file" + (entries.size() == 1 ? "" : "s") + " changed, +" + added + " -" + deleted
                    + (entries.isEmpty() ? "" : "\n" + files.toString().stripTrailing());
        }
    }

    /**
     * Removes the named pipes, sockets and devices the worker left in its checkout. git holds none of them
     * (git add skips them), but JGit's add reads every file that is not a folder or a link: opening a pipe
     * no one writes waits forever, and with it this class's lock, every later worker and the session's close.
     */
    private static void removeSpecialFiles(Path checkout) throws IOException {
        Path gitDir = checkout.resolve(Constants.DOT_GIT);
        Files.walkFileTree(checkout, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                return dir.equals(gitDir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isOther()) {
                    Files.delete(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Deletes a folder and what is in it; a link is removed, never followed. */
    private static void delete(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failed) throws IOException {
                if (failed != null) {
                    throw failed;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
