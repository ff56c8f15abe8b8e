package dev.quiver.tools.git;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import dev.quiver.tools.git.repository.UnfilteredWorkTree;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.dircache.DirCacheIterator;
import org.eclipse.jgit.errors.LockFailedException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.IndexDiff;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryState;
import org.eclipse.jgit.lib.UserConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.osgi.service.component.annotations.Component;

/**
 * {@code git_commit}: commits every change in the workspace (as {@code git add -A && git commit}) or only
 * the given paths (as {@code git commit -- paths}, other staged changes stay staged). It is built from
 * JGit's object layer rather than its porcelain, so no hook, filter driver, signing program or automatic
 * gc ever runs, and nothing is written outside {@code .git}: only objects, the index and the ref.
 *
 * <p>Every file the commit would take is a {@link Subject.Kind#PATH} subject, so the kernel judges it as
 * a read (secret files are refused unless the user allows exactly that path). The call then commits only
 * files the kernel judged for this very call; a file that joined the changes in between is refused.
 *
 * <p>{@code amend} rewrites a commit, so it is refused where that would hurt someone else: when HEAD is
 * already on a remote-tracking branch (published: amending it makes the branch diverge and calls for a
 * force push), and when HEAD's author email is not the email this commit would be made with (someone
 * else's work). An amend also names the {@link Subject.Kind#NAME} subject {@value #AMEND}, so a rule such
 * as {@code {"git_commit": {"--amend": "deny"}}} can refuse, or ask for, amends alone.
 */
@Component(property = {Tool.NAME + "=git_commit", Tool.SET + "=git", Tool.ACCESS + "=write"})
public class GitCommitTool implements Tool {

    static final int MAX_FILES = 300;

    /** The subject an amend names besides its files, for rules to match. */
    static final String AMEND = "--amend";

    private static final ToolSpec SPEC = new ToolSpec("git_commit",
            "Commit all changes (new, modified, deleted files) or only paths. Runs no git hooks.",
            """
            {"type":"object","properties":{\
            "message":{"type":"string","description":"Commit message"},\
            "paths":{"type":"array","items":{"type":"string"},"description":"Only these files or folders"},\
            "amend":{"type":"boolean","description":"Replace the last commit (yours, not pushed)"}},\
            "required":["message"]}""");

    /** The paths subjects() named, per call, held by the identity of the call's arguments. */
    private final List<Judged> judged = new ArrayList<>();

    private record Judged(WeakReference<Arguments> arguments, Set<String> paths) {
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments, Workspace workspace) throws ToolException {
        boolean amend = arguments.bool("amend", false);
        try (GitRepo git = GitRepo.open(workspace)) {
            List<Subject> subjects = new ArrayList<>();
            if (amend) {
                // refused before anyone is asked to approve it; call() checks again, under the index lock
                try (RevWalk walk = new RevWalk(git.repository)) {
                    RevCommit head = git.head(walk);
                    if (head != null) {
                        refuseAmend(git, head, identity(git));
                    }
                } catch (IOException e) {
                    throw new ToolException("Could not check the commit to amend: " + e.getMessage()
                            + ". Nothing was committed.", e);
                }
                subjects.add(Subject.name(AMEND));
            }
            Set<String> changes = changes(git, arguments.strings("paths"));
            remember(arguments, changes);
            for (String path : changes) {
                subjects.add(Subject.path(git.shown(path)));
            }
            return subjects;
        }
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String message = cleanMessage(arguments.optionalString("message").orElse(""));
        if (message.isEmpty()) {
            throw new ToolException("The commit message is empty. Give a message that says what changed and why.");
        }
        boolean amend = arguments.bool("amend", false);
        List<String> paths = arguments.strings("paths");
        Set<String> judgedPaths = take(arguments);
        try (GitRepo git = GitRepo.open(context.workspace())) {
            checkState(git.repository.getRepositoryState());
            PersonIdent committer = identity(git);
            DirCache index = lockIndex(git);
            try (RevWalk walk = new RevWalk(git.repository); ObjectInserter inserter = git.repository.newObjectInserter()) {
                RevCommit head = git.head(walk);
                if (amend && head == null) {
                    throw new ToolException("There is no commit to amend: the branch has no commits yet. Commit without amend.");
                }
                if (amend) {
                    refuseAmend(git, head, committer);
                }
                Set<String> changes = changes(git, paths);
                String where = paths.isEmpty() ? "" : " in " + String.join(", ", paths);
                if (changes.isEmpty() && !amend) {
                    throw new ToolException("Nothing to commit" + where + ": the working tree matches HEAD. git_status "
                            + "shows what changed.");
                }
                refuseUnjudged(git, changes, judgedPaths);
                Map<String, String> committed = new LinkedHashMap<>();
                ObjectId tree = buildTrees(git, head, index, changes, inserter, committed);
                if (!amend && head != null && tree.equals(head.getTree())) {
                    throw new ToolException("Nothing to commit" + where + ": the changes undo each other, so the tree "
                            + "would be the same as HEAD's. Nothing was changed.");
                }
                CommitBuilder commit = new CommitBuilder();
                commit.setTreeId(tree);
                if (amend) {
                    commit.setParentIds(head.getParents());
                    commit.setAuthor(head.getAuthorIdent());
                } else {
                    if (head != null) {
                        commit.setParentId(head);
                    }
                    commit.setAuthor(committer);
                }
                commit.setCommitter(committer);
                commit.setMessage(message);
                ObjectId id = inserter.insert(commit);
                inserter.flush();
                index.write();
                moveHead(git, head, id, amend, committer, message);
                if (!index.commit()) {
                    throw new ToolException("Committed " + GitRepo.shortId(id) + ", but could not write the git index; "
                            + "git_status may show the committed files as changed until git rewrites the index.");
                }
                return ToolResult.of(report(git, id, head, amend, committed));
            } finally {
                index.unlock();
            }
        } catch (IOException e) {
            throw new ToolException("git commit failed: " + e.getMessage() + ". Nothing was committed.", e);
        }
    }

    /** Strips what git's default clean-up strips from a {@code -m} message: trailing spaces, blank edges. */
    static String cleanMessage(String message) {
        StringBuilder out = new StringBuilder();
        for (String line : message.split("\r?\n", -1)) {
            out.append(line.stripTrailing()).append('\n');
        }
        String text = out.toString().strip();
        return text.isEmpty() ? "" : text + "\n";
    }

    /**
     * The repository paths a commit would take, inside the workspace: every difference between HEAD, the
     * index and the working tree (untracked files too, ignored ones not), limited to {@code paths}.
     */
    static Set<String> changes(GitRepo git, List<String> paths) throws ToolException {
        List<String> scopes = new ArrayList<>();
        if (paths.isEmpty()) {
            scopes.add(git.defaultScope());
        } else {
            for (String path : paths) {
                scopes.add(git.repoPath(path));
            }
        }
        try {
            IndexDiff diff = new IndexDiff(git.repository, Constants.HEAD, git.workTree());
            if (!scopes.contains("")) {
                diff.setFilter(PathFilterGroup.createFromStrings(scopes));
            }
            diff.diff();
            if (!diff.getConflicting().isEmpty()) {
                throw new ToolException("These files have merge conflicts: " + shownList(git, diff.getConflicting())
                        + ". Resolve them and finish the merge with git yourself; git_commit makes ordinary commits only.");
            }
            Set<String> changes = new TreeSet<>();
            for (Set<String> set : List.of(diff.getAdded(), diff.getChanged(), diff.getRemoved(), diff.getMissing(),
                    diff.getModified(), diff.getUntracked())) {
                for (String path : set) {
                    if (git.shown(path) != null) {
                        changes.add(path);
                    }
                }
            }
            return changes;
        } catch (IOException e) {
            throw new ToolException("Could not compare the working tree with HEAD: " + e.getMessage(), e);
        }
    }

    private static String shownList(GitRepo git, Set<String> paths) {
        List<String> shown = new ArrayList<>();
        for (String path : new TreeSet<>(paths)) {
            shown.add(git.shown(path) == null ? path : git.shown(path));
        }
        return String.join(", ", shown);
    }

    private static void checkState(RepositoryState state) throws ToolException {
        switch (state) {
            case SAFE, BISECTING -> {
            }
            case MERGING, MERGING_RESOLVED -> throw new ToolException("A merge is in progress (.git/MERGE_HEAD exists). "
                    + "git_commit makes ordinary commits only: conclude the merge with git commit, or abort it with "
                    + "git merge --abort, yourself.");
            default -> throw new ToolException("The repository is in the middle of an operation (" + state.getDescription()
                    + "). git_commit makes ordinary commits only: finish or abort that operation with git yourself first.");
        }
    }

    /** Author and committer from git's configuration (repository, then user, then system), never guessed. */
    private static PersonIdent identity(GitRepo git) throws ToolException {
        UserConfig user = git.repository.getConfig().get(UserConfig.KEY);
        if (user.isCommitterNameImplicit() || user.isCommitterEmailImplicit()) {
            throw new ToolException("git has no identity to commit with: set it with git config user.email "
                    + "\"you@example.com\" and git config user.name \"Your Name\" (add --global for every repository), "
                    + "then commit again.");
        }
        return new PersonIdent(user.getCommitterName(), user.getCommitterEmail());
    }

    /**
     * Refuses to amend HEAD when it is published (reachable from a remote-tracking ref) or when its author
     * email is not the committer's: rewriting either changes history someone else has or wrote.
     */
    private static void refuseAmend(GitRepo git, RevCommit head, PersonIdent committer) throws IOException,
            ToolException {
        String subject = head.getShortMessage();
        String commit = GitRepo.shortId(head) + " \"" + (subject.length() > 72 ? subject.substring(0, 72) + "..." : subject)
                + "\"";
        String instead = " Make a new commit instead: call git_commit again without amend. Nothing was changed.";
        List<String> remotes = remotesHolding(git, head);
        if (!remotes.isEmpty()) {
            String where = String.join(", ", remotes);
            throw new ToolException("HEAD (" + commit + ") is already pushed: it is on " + where + ". Amending it "
                    + "would rewrite published history, so the branch would diverge from " + remotes.get(0)
                    + " and need a force push that replaces the commit for everyone. git_commit does not amend a "
                    + "pushed commit." + instead);
        }
        PersonIdent author = head.getAuthorIdent();
        String email = committer.getEmailAddress();
        if (!author.getEmailAddress().equalsIgnoreCase(email)) {
            throw new ToolException("HEAD (" + commit + ") was written by " + author.getName() + " <"
                    + author.getEmailAddress() + ">, and this repository commits as <" + email + "> (git's user.email). "
                    + "Amending it would rewrite someone else's commit under their name, so git_commit does not amend "
                    + "it." + instead);
        }
    }

    /** The remote-tracking refs (refs/remotes/**) HEAD is reachable from, shortened; empty when none. */
    private static List<String> remotesHolding(GitRepo git, RevCommit head) throws IOException {
        List<Ref> remotes = git.repository.getRefDatabase().getRefsByPrefix(Constants.R_REMOTES);
        if (remotes.isEmpty()) {
            return List.of();
        }
        try (RevWalk walk = new RevWalk(git.repository)) {
            RevCommit target = walk.parseCommit(head);
            for (Ref ref : remotes) {
                if (ref.getObjectId() != null && walk.peel(walk.parseAny(ref.getObjectId())) instanceof RevCommit tip) {
                    walk.markStart(tip);
                }
            }
            // what HEAD's parents reach cannot hold HEAD, so the walk stops there instead of reading all history
            for (RevCommit parent : target.getParents()) {
                walk.markUninteresting(walk.parseCommit(parent));
            }
            boolean reachable = false;
            for (RevCommit commit : walk) {
                if (commit.equals(target)) {
                    reachable = true;
                    break;
                }
            }
            if (!reachable) {
                return List.of();
            }
        }
        // which of them hold it, for the message: only once it is known to be published
        List<String> names = new ArrayList<>();
        List<String> symbolic = new ArrayList<>();
        try (RevWalk walk = new RevWalk(git.repository)) {
            RevCommit target = walk.parseCommit(head);
            for (Ref ref : remotes) {
                if (ref.getObjectId() != null && walk.peel(walk.parseAny(ref.getObjectId())) instanceof RevCommit tip
                        && walk.isMergedInto(target, tip)) {
                    (ref.isSymbolic() ? symbolic : names).add(Repository.shortenRefName(ref.getName()));
                }
            }
        }
        names = names.isEmpty() ? symbolic : names;
        if (names.size() > 3) {
            int more = names.size() - 3;
            names = new ArrayList<>(names.subList(0, 3));
            names.add("and " + more + " more");
        }
        return names.isEmpty() ? List.of("a remote-tracking branch") : names;
    }

    private static DirCache lockIndex(GitRepo git) throws ToolException {
        try {
            return git.repository.lockDirCache();
        } catch (LockFailedException e) {
            throw new ToolException("The git index is locked (" + e.getFile() + " exists): another git process is "
                    + "running, or one crashed. Wait and retry; if no git is running, the user can delete that file.", e);
        } catch (IOException e) {
            throw new ToolException("Could not read the git index: " + e.getMessage(), e);
        }
    }

    /** Secret files the kernel did not judge are refused, and so is anything that changed after the judgment. */
    private static void refuseUnjudged(GitRepo git, Set<String> changes, Set<String> judgedPaths) throws ToolException {
        List<String> secrets = new ArrayList<>();
        List<String> late = new ArrayList<>();
        for (String path : changes) {
            if (judgedPaths != null && judgedPaths.contains(path)) {
                continue;
            }
            if (git.isSecret(path)) {
                secrets.add(git.shown(path));
            } else if (judgedPaths != null) {
                late.add(git.shown(path));
            }
        }
        if (!secrets.isEmpty()) {
            String names = String.join(", ", secrets);
            throw new ToolException(names + (secrets.size() == 1 ? " holds" : " hold") + " secrets by name, so git_commit "
                    + "does not commit " + (secrets.size() == 1 ? "it" : "them") + ": a commit keeps the content in history "
                    + "for good. Commit the other files with paths, and add " + names + " to .gitignore. If " + names
                    + " must be committed, only the user can allow it, with a rule of their own naming exactly that path: "
                    + "{\"permission\": {\"git_commit\": {\"" + secrets.get(0) + "\": \"allow\"}}}. Nothing was committed.");
        }
        if (!late.isEmpty()) {
            throw new ToolException(String.join(", ", late) + " changed after this commit was approved, so "
                    + (late.size() == 1 ? "it was" : "they were") + " not judged with it. Nothing was committed; call "
                    + "git_commit again to commit the current changes.");
        }
    }

    /**
     * Builds the commit's tree (HEAD's entries, with the changed paths taken from the working tree) and the
     * new index (the old one, with the changed paths updated) in {@code index}. Fills {@code committed}
     * with each changed path and what happened to it.
     */
    private static ObjectId buildTrees(GitRepo git, RevCommit head, DirCache index, Set<String> changes,
            ObjectInserter inserter, Map<String, String> committed) throws IOException, ToolException {
        DirCache tree = DirCache.newInCore();
        DirCacheBuilder treeBuilder = tree.builder();
        DirCacheBuilder indexBuilder = index.builder();
        Map<String, DirCacheEntry> inHead = new LinkedHashMap<>();
        try (TreeWalk walk = new TreeWalk(git.repository)) {
            walk.addTree(head == null ? new EmptyTreeIterator() : new CanonicalTreeParser(null, walk.getObjectReader(),
                    head.getTree()));
            walk.addTree(new DirCacheIterator(index));
            walk.setRecursive(true);
            while (walk.next()) {
                String path = walk.getPathString();
                DirCacheEntry headEntry = null;
                if (walk.getRawMode(0) != 0) {
                    headEntry = new DirCacheEntry(path);
                    headEntry.setFileMode(walk.getFileMode(0));
                    headEntry.setObjectId(walk.getObjectId(0));
                }
                if (changes.contains(path)) {
                    if (headEntry != null) {
                        inHead.put(path, headEntry);
                    }
                    continue;
                }
                if (headEntry != null) {
                    treeBuilder.add(headEntry);
                }
                DirCacheIterator staged = walk.getTree(1, DirCacheIterator.class);
                if (staged != null) {
                    indexBuilder.add(staged.getDirCacheEntry());
                }
            }
        }
        Set<String> present = new HashSet<>();
        List<String> required = new ArrayList<>();
        Config config = git.repository.getConfig();
        if (!changes.isEmpty()) {
            try (TreeWalk walk = new TreeWalk(git.repository)) {
                walk.addTree(new DirCacheIterator(index));
                UnfilteredWorkTree work = git.workTree();
                walk.addTree(work);
                work.setDirCacheIterator(walk, 0);
                walk.setFilter(PathFilterGroup.createFromStrings(changes));
                walk.setRecursive(true);
                while (walk.next()) {
                    String path = walk.getPathString();
                    UnfilteredWorkTree file = walk.getTree(1, UnfilteredWorkTree.class);
                    if (file == null || !changes.contains(path)) {
                        continue;
                    }
                    String driver = walk.getAttributes().getValue("filter");
                    if (driver != null && config.getBoolean("filter", driver, "required", false)) {
                        required.add(git.shown(path) + " (filter " + driver + ")");
                        continue;
                    }
                    FileMode mode = file.getIndexFileMode(walk.getTree(0, DirCacheIterator.class));
                    ObjectId id;
                    if (mode == FileMode.GITLINK) {
                        id = file.getEntryObjectId();
                    } else {
                        long length = file.getEntryContentLength();
                        try (InputStream in = file.openEntryStream()) {
                            id = inserter.insert(Constants.OBJ_BLOB, length, in);
                        }
                    }
                    DirCacheEntry entry = new DirCacheEntry(path);
                    entry.setFileMode(mode);
                    entry.setObjectId(id);
                    entry.setLength(file.getEntryLength());
                    entry.setLastModified(file.getEntryLastModifiedInstant());
                    indexBuilder.add(entry);
                    treeBuilder.add(new DirCacheEntry(entry));
                    present.add(path);
                    DirCacheEntry before = inHead.get(path);
                    if (before == null) {
                        committed.put(path, "added");
                    } else if (!before.getObjectId().equals(id) || before.getFileMode() != mode) {
                        committed.put(path, "modified");
                    }
                }
            }
        }
        if (!required.isEmpty()) {
            throw new ToolException("The repository requires a filter program for " + String.join(", ", required)
                    + " (filter.<name>.required), and git_commit runs no programs from the repository. Commit "
                    + (required.size() == 1 ? "that file" : "those files") + " with git yourself, or leave "
                    + (required.size() == 1 ? "it" : "them") + " out with paths. Nothing was committed.");
        }
        for (String path : inHead.keySet()) {
            if (!present.contains(path)) {
                committed.put(path, "deleted");
            }
        }
        treeBuilder.finish();
        indexBuilder.finish();
        return tree.writeTree(inserter);
    }

    private static void moveHead(GitRepo git, RevCommit head, ObjectId id, boolean amend, PersonIdent committer,
            String message) throws IOException, ToolException {
        RefUpdate update = git.repository.updateRef(Constants.HEAD);
        update.setNewObjectId(id);
        update.setExpectedOldObjectId(head == null ? ObjectId.zeroId() : head);
        update.setRefLogIdent(committer);
        String subject = message.lines().findFirst().orElse("");
        update.setRefLogMessage((amend ? "commit (amend): " : head == null ? "commit (initial): " : "commit: ") + subject,
                false);
        RefUpdate.Result result = amend ? update.forceUpdate() : update.update();
        switch (result) {
            case NEW, FORCED, FAST_FORWARD -> {
            }
            default -> throw new ToolException("Could not move HEAD to the new commit (" + result + "); another git "
                    + "process may have changed it. Nothing was committed: HEAD and the index are as they were.");
        }
    }

    private static String report(GitRepo git, ObjectId id, RevCommit head, boolean amend, Map<String, String> committed)
            throws ToolException {
        String branch = git.branchWithTracking();
        String on = branch != null ? " on " + branch
                : " on a detached HEAD (no branch: create one, or the commit is only reachable from HEAD)";
        StringBuilder out = new StringBuilder(amend ? "Amended " + GitRepo.shortId(head) + " into " : "Committed ")
                .append(GitRepo.shortId(id)).append(on);
        if (committed.isEmpty()) {
            return out.append(", same files, new message.").toString();
        }
        out.append(", ").append(committed.size()).append(committed.size() == 1 ? " file:\n" : " files:\n");
        int shown = 0;
        for (Map.Entry<String, String> file : new java.util.TreeMap<>(committed).entrySet()) {
            if (shown == MAX_FILES) {
                out.append("... and ").append(committed.size() - shown).append(" more\n");
                break;
            }
            out.append(git.shown(file.getKey())).append("  (").append(file.getValue()).append(")\n");
            shown++;
        }
        return out.toString().stripTrailing();
    }

    private void remember(Arguments arguments, Set<String> paths) {
        synchronized (judged) {
            judged.removeIf(j -> j.arguments().get() == null || j.arguments().get() == arguments);
            judged.add(new Judged(new WeakReference<>(arguments), Set.copyOf(paths)));
        }
    }

    /** The paths judged for this call, or null when subjects() never named them (no kernel in between). */
    private Set<String> take(Arguments arguments) {
        synchronized (judged) {
            for (Judged j : judged) {
                if (j.arguments().get() == arguments) {
                    judged.remove(j);
                    return j.paths();
                }
            }
            return null;
        }
    }
}
