package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files the listing tools look at: what {@code glob} lists ({@link Workspace#files}: ignore-aware,
 * never {@code .git}, links only to files inside the workspace), less the files that hold secrets by
 * their name, which these tools neither name nor read.
 */
final class Listing {

    private Listing() {
    }

    /** The subject of a tool whose only path is the optional folder {@code path}. */
    static List<Subject> folderSubject(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path", ".")));
    }

    /** The folder {@code path} names (the root by default), which must exist. */
    static Path folder(Workspace workspace, Arguments arguments) throws ToolException {
        String asked = arguments.string("path", ".");
        Path folder = workspace.resolve(asked.isBlank() ? "." : asked);
        if (!Files.isDirectory(folder)) {
            String name = workspace.relativize(folder);
            throw new ToolException(Files.exists(folder) ? name + " is a file, not a folder; give its folder."
                    : "No such folder: " + name + ". list_dir or tree shows what there is.");
        }
        return folder;
    }

    /** The files below a folder, relative to the workspace root, in walk order, secrets left out. */
    static List<String> files(Workspace workspace, Path folder, boolean includeIgnored) throws ToolException {
        List<String> all;
        try {
            all = workspace.files(folder, includeIgnored);
        } catch (IOException e) {
            throw new ToolException("Cannot list " + workspace.relativize(folder) + ": " + e.getMessage(), e);
        }
        List<String> shown = new ArrayList<>(all.size());
        for (String file : all) {
            if (!workspace.isSecret(Path.of(file))) {
                shown.add(file);
            }
        }
        return shown;
    }

    /** The file name of a workspace-relative path. */
    static String name(String relative) {
        return relative.substring(relative.lastIndexOf('/') + 1);
    }
}
