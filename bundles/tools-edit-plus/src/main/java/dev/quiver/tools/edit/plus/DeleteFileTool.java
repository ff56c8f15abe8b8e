package dev.quiver.tools.edit.plus;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code delete_file}: deletes one file (or one symbolic link, never what it points to), or with
 * {@code recursive} a folder and everything in it, as one crash-safe change of the workspace.
 */
@Component(property = {Tool.NAME + "=delete_file", Tool.SET + "=edit-plus", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class DeleteFileTool implements Tool {

    /** A folder delete holding more entries than this is refused: a task that large is one to confirm by hand. */
    static final int MAX_ENTRIES = 10_000;
    /**
     * Every file is read and held to compare it right before it goes; past this many bytes the delete is
     * refused, so a folder delete never holds more than this much of the heap.
     */
    static final long MAX_BYTES = 64L * 1024 * 1024;

    private static final ToolSpec SPEC = new ToolSpec("delete_file",
            "Delete one file and report its size; a link is removed, not its target. "
                    + "A folder only with recursive: true.",
            """
            {"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},\
            "required":["path"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    /**
     * A folder delete names every path it would remove, so a rule on any of them (a deny on
     * {@code build/keep/**}) holds for the folder above it as if that path were named. Past the entry
     * cap only the folder is named: the call refuses such a folder anyway.
     */
    @Override
    public List<Subject> subjects(Arguments arguments, Workspace workspace) throws ToolException {
        List<Subject> subjects = new ArrayList<>(subjects(arguments));
        if (!arguments.bool("recursive", false)) {
            return subjects;
        }
        Path folder = Entries.entry(workspace, arguments.string("path"));
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            return subjects;
        }
        List<Subject> inside = new ArrayList<>();
        try {
            workspace.walk(folder, true, Integer.MAX_VALUE, entry -> {
                inside.add(Subject.path(entry.relativePath()));
                return inside.size() <= MAX_ENTRIES;
            });
        } catch (IOException e) {
            return subjects; // the call reports why the folder cannot be read
        }
        if (inside.size() <= MAX_ENTRIES) {
            subjects.addAll(inside);
        }
        return subjects;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = Entries.entry(workspace, arguments.string("path"));
        String name = workspace.relativize(file);
        if (!Entries.exists(file)) {
            throw new ToolException("No such file: " + name);
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            if (!arguments.bool("recursive", false)) {
                throw new ToolException(name + " is a directory; delete_file removes a folder and everything in it "
                        + "only with recursive: true. Call it again with that if the whole folder should go.");
            }
            return ToolResult.of(deleteFolder(context, file, name));
        }
        try {
            if (Files.isSymbolicLink(file)) {
                Path target = Files.readSymbolicLink(file);
                workspace.delete(file);
                return ToolResult.of("Deleted the link " + name + " (it pointed to " + target + "; that is untouched).");
            }
            long size = Files.size(file);
            workspace.delete(file);
            return ToolResult.of("Deleted " + name + " (" + Entries.count(size, "byte", "bytes") + ").");
        } catch (IOException e) {
            throw new ToolException("Cannot delete " + name + ": " + Entries.reason(workspace, e), e);
        }
    }

    /**
     * Deletes a folder as one change of the workspace: each file only if it still holds the bytes read
     * here, each link as the link, then the folders deepest first. The walk never enters a linked folder,
     * so nothing outside the folder is reached. Files holding secrets by name go only where the session
     * would let delete_file remove them without asking anyone (an allow rule naming them).
     */
    private static String deleteFolder(ToolContext context, Path folder, String name) throws ToolException {
        Workspace workspace = context.workspace();
        if (workspace.isProtected(folder) || hasGitName(workspace, folder)) {
            throw new ToolException(name + " is or lies inside a .git or .quiver folder, which file tools never "
                    + "change.");
        }
        List<Workspace.Entry> entries = new ArrayList<>();
        try {
            refuseNestedRepository(folder, name);
            workspace.walk(folder, true, Integer.MAX_VALUE, entry -> {
                entries.add(entry);
                return entries.size() <= MAX_ENTRIES;
            });
        } catch (IOException e) {
            throw new ToolException("Cannot delete " + name + ": " + Entries.reason(workspace, e), e);
        }
        if (entries.size() > MAX_ENTRIES) {
            throw new ToolException(name + " holds more than " + MAX_ENTRIES + " files and folders; delete_file "
                    + "does not delete that many at once. Delete its subfolders one by one, or ask the user.");
        }
        refuseSecrets(context, name, entries.stream().filter(entry -> workspace.isSecret(entry.path()))
                .map(Workspace.Entry::relativePath).toList());
        Workspace.Change change = workspace.change("delete_file");
        List<Path> folders = new ArrayList<>();
        folders.add(folder);
        long bytes = 0;
        int files = 0;
        for (Workspace.Entry entry : entries) {
            Path path = entry.path();
            try {
                if (entry.kind() == Workspace.Entry.Kind.DIRECTORY) {
                    refuseNestedRepository(path, entry.relativePath());
                    folders.add(path);
                    continue;
                }
                files++;
                if (entry.kind() == Workspace.Entry.Kind.FILE && !Files.isSymbolicLink(path)) {
                    bytes += entry.size();
                    if (bytes > MAX_BYTES) {
                        throw new ToolException(name + " holds more than " + Entries.size(MAX_BYTES) + "; delete_file "
                                + "does not delete that much at once. Delete its subfolders one by one, or ask the user.");
                    }
                    change.delete(path, read(workspace, path));
                } else {
                    change.delete(path, null); // a link (never followed), a pipe or a socket: removed as it is
                }
            } catch (IOException e) {
                throw new ToolException("Cannot delete " + name + ": " + Entries.reason(workspace, e)
                        + ". No file was changed.", e);
            }
        }
        refuseUnlisted(workspace, folder, name, entries);
        for (int i = folders.size() - 1; i >= 0; i--) {
            change.delete(folders.get(i), null); // deepest first: each is empty by its turn
        }
        try {
            change.commit();
        } catch (IOException e) {
            throw new ToolException("Cannot delete " + name + ": " + Entries.reason(workspace, e), e);
        }
        return "Deleted the folder " + name + ": " + Entries.count(files, "file", "files") + " and "
                + Entries.count(folders.size(), "folder", "folders") + " (" + Entries.size(bytes) + ").";
    }

    /**
     * Refuses a folder holding files with secrets by name unless the session would let delete_file remove
     * every one of them without asking (asked once for all, so one decision is recorded). Approving the
     * folder's call is not enough: the approval question shows only its first paths, and a secret may be
     * the only copy of a key; an allow rule naming the secrets is a decision about them.
     */
    private static void refuseSecrets(ToolContext context, String name, List<String> secrets) throws ToolException {
        if (secrets.isEmpty()
                || context.permission(secrets.stream().map(Subject::path).toList()) == ToolContext.Permission.ALLOWED) {
            return;
        }
        throw new ToolException(name + " holds files with secrets by their name (" + String.join(", ",
                secrets.subList(0, Math.min(5, secrets.size()))) + (secrets.size() > 5 ? ", ..." : "")
                + "); delete_file deletes a folder holding one only where the permission rules allow delete_file "
                + "on them without asking. Delete each of them with delete_file first, or ask the user. No file was "
                + "changed.");
    }

    /**
     * Refuses, before anything changes, a folder holding entries the walk does not show (a Quiver temporary
     * of a change in progress, a folder it cannot read): the folders could not be removed after the files,
     * and the delete would stop half done. A folder whose entries cannot be removed (no write permission
     * for this user, nor for the folder above the one deleted) stops it for the same reason.
     */
    private static void refuseUnlisted(Workspace workspace, Path folder, String name, List<Workspace.Entry> entries)
            throws ToolException {
        java.util.Map<Path, Integer> walked = new java.util.HashMap<>();
        walked.put(folder, 0);
        for (Workspace.Entry entry : entries) {
            walked.merge(entry.path().getParent(), 1, Integer::sum);
            if (entry.kind() == Workspace.Entry.Kind.DIRECTORY && !Files.isSymbolicLink(entry.path())) {
                walked.putIfAbsent(entry.path(), 0);
            }
        }
        for (Path holder : walked.keySet()) {
            Path writable = holder.equals(folder) ? folder.getParent() : holder;
            if (!Files.isWritable(writable) || !Files.isWritable(holder)) {
                Path shown = Files.isWritable(writable) ? holder : writable;
                throw new ToolException("Cannot delete " + name + ": " + (shown.equals(workspace.root())
                        ? "the workspace's root folder" : workspace.relativize(shown)) + " is not writable, so what it holds cannot be removed. No file was changed; ask the user.");
            }
        }
        for (java.util.Map.Entry<Path, Integer> listed : walked.entrySet()) {
            int present = 0;
            try (java.nio.file.DirectoryStream<Path> children = Files.newDirectoryStream(listed.getKey())) {
                for (Path ignored : children) {
                    present++;
                }
            } catch (IOException e) {
                throw new ToolException("Cannot delete " + name + ": " + workspace.relativize(listed.getKey())
                        + " cannot be listed (" + Entries.reason(workspace, e) + "). No file was changed.", e);
            }
            if (present != listed.getValue()) {
                throw new ToolException("Cannot delete " + name + ": " + workspace.relativize(listed.getKey())
                        + " holds entries delete_file does not list (a temporary of a change in progress, or one "
                        + "it cannot read), so the folder cannot be deleted whole. No file was changed; ask the user.");
            }
        }
    }

    /** Whether the path names a {@code .git} at any depth: a nested repository's own data. */
    private static boolean hasGitName(Workspace workspace, Path path) {
        for (Path part : workspace.root().relativize(path)) {
            if (part.toString().equalsIgnoreCase(".git")) {
                return true;
            }
        }
        return false;
    }

    /** A folder holding a {@code .git} is a repository of its own, whose history would go with it. */
    private static void refuseNestedRepository(Path folder, String shown) throws ToolException {
        if (Files.exists(folder.resolve(".git"), LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException(shown + " holds a .git folder: it is a repository of its own, with its history. "
                    + "delete_file does not delete it; ask the user.");
        }
    }

    private static byte[] read(Workspace workspace, Path file) throws IOException {
        try (SeekableByteChannel channel = workspace.openRead(file)) {
            return Entries.readAll(channel);
        }
    }
}
