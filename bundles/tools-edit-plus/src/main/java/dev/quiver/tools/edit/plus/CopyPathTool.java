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
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code copy_path}: copies a file, or a directory with everything in it, to a path that does not exist
 * yet. A file is copied through a link to it; inside a copied directory links stay links and are never
 * followed, so a copy cannot pull anything in from outside the workspace. Permissions are kept.
 */
@Component(property = {Tool.NAME + "=copy_path", Tool.SET + "=edit-plus", Tool.ACCESS + "=write"})
public class CopyPathTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("copy_path",
            "Copy a file, or a directory with its contents, to a new path. Refuses an existing target; creates "
                    + "missing parents.",
            Entries.FROM_TO_SCHEMA);

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return Entries.fromTo(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path source = workspace.resolve(arguments.string("from"));
        String from = workspace.relativize(source);
        if (!Files.exists(source)) {
            throw new ToolException("No such file or directory: " + from);
        }
        if (source.equals(workspace.root())) {
            throw new ToolException("That is the workspace root; copy a directory inside it.");
        }
        Path target = workspace.resolve(arguments.string("to"));
        String to = workspace.relativize(target);
        if (Entries.exists(target)) {
            throw new ToolException(to + " already exists. Delete it first or choose another target; copy_path "
                    + "never overwrites.");
        }
        if (Files.isDirectory(source) && target.startsWith(source)) {
            throw new ToolException("Cannot copy " + from + " into itself (" + to + ").");
        }
        if (!Files.isDirectory(source) && !Files.isRegularFile(source)) {
            throw new ToolException(from + " is not a regular file or directory (a pipe, socket or device).");
        }
        Entries.refuseExposingSecrets(workspace, source, target, "copying");
        List<Path> madeFolders = Entries.missingFolders(target);
        try {
            Files.createDirectories(target.getParent());
        } catch (IOException e) {
            Entries.deleteQuietly(madeFolders);
            throw new ToolException("Cannot create the folder of " + to + ": " + Entries.reason(workspace, e), e);
        }
        if (Files.isRegularFile(source)) {
            try {
                Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                return ToolResult.of("Copied " + from + " to " + to + " (" + Entries.count(Files.size(target), "byte",
                        "bytes") + ").");
            } catch (IOException e) {
                Entries.deleteQuietly(List.of(target));
                Entries.deleteQuietly(madeFolders);
                throw new ToolException("Cannot copy " + from + " to " + to + ": " + Entries.reason(workspace, e)
                        + ". Nothing was copied.", e);
            }
        }
        return copyTree(workspace, source, target, from, to, madeFolders);
    }

    private static ToolResult copyTree(Workspace workspace, Path source, Path target, String from, String to,
            List<Path> madeFolders) throws ToolException {
        List<Path> created = new ArrayList<>();
        int[] counts = new int[2]; // files, directories
        try {
            Files.walkFileTree(source, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                    Path copy = target.resolve(source.relativize(dir).toString());
                    Files.copy(dir, copy, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    created.add(copy);
                    counts[1]++;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Path copy = target.resolve(source.relativize(file).toString());
                    if (attributes.isSymbolicLink()) {
                        Files.createSymbolicLink(copy, Files.readSymbolicLink(file));
                    } else if (attributes.isRegularFile()) {
                        Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    } else {
                        return FileVisitResult.CONTINUE; // pipes, sockets and devices are not copied
                    }
                    created.add(copy);
                    counts[0]++;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    throw e;
                }
            });
        } catch (IOException e) {
            Collections.reverse(created);
            Entries.deleteQuietly(created);
            Entries.deleteQuietly(madeFolders);
            throw new ToolException("Cannot copy " + from + " to " + to + ": " + Entries.reason(workspace, e)
                    + ". Nothing was copied.", e);
        }
        return ToolResult.of("Copied directory " + from + " to " + to + " (" + Entries.count(counts[0], "file", "files")
                + ", " + Entries.count(counts[1] - 1, "subdirectory", "subdirectories") + ").");
    }
}
