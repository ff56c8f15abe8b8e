package dev.quiver.tools.edit.plus;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** Paths as the moving, copying and deleting tools take them, and the rules they share. */
final class Entries {

    private Entries() {
    }

    /** The parameters of a tool from one path to another ({@code move_file}, {@code copy_path}). */
    static final String FROM_TO_SCHEMA = """
            {"type":"object","properties":{\
            "from":{"type":"string"},\
            "to":{"type":"string"}},\
            "required":["from","to"]}""";

    /** Both ends are permission subjects. */
    static java.util.List<dev.quiver.api.Subject> fromTo(dev.quiver.api.Arguments arguments) throws ToolException {
        return java.util.List.of(dev.quiver.api.Subject.path(arguments.string("from")),
                dev.quiver.api.Subject.path(arguments.string("to")));
    }

    /**
     * The entry a path names, for tools that act on the entry itself: a symbolic link is the link, not
     * what it points to (its folder still goes through the jail), anything else is resolved by the jail.
     */
    static Path entry(Workspace workspace, String raw) throws ToolException {
        Optional<Path> link = linkItself(workspace, raw);
        if (link.isPresent()) {
            return link.get();
        }
        Path resolved = workspace.resolve(raw);
        if (resolved.equals(workspace.root())) {
            throw new ToolException("That is the workspace root; give a path inside it.");
        }
        return resolved;
    }

    private static Optional<Path> linkItself(Workspace workspace, String raw) {
        if (raw == null || raw.isBlank() || raw.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        try {
            Path lexical = Path.of(raw).normalize();
            Path name = lexical.getFileName();
            if (name == null || name.toString().isEmpty() || name.toString().equals("..")) {
                return Optional.empty();
            }
            Path parent = lexical.getParent();
            Path realParent = workspace.resolve(parent == null ? "." : parent.toString());
            Path entry = realParent.resolve(name.toString());
            if (!exists(entry) && name.toString().indexOf('\\') >= 0) {
                entry = listedAs(workspace, realParent, name.toString()).orElse(entry);
            }
            return Files.isSymbolicLink(entry) ? Optional.of(entry) : Optional.empty();
        } catch (InvalidPathException | ToolException | IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The entry of a folder that walks show under a name with {@code \xHH} escapes (its bytes are not
     * UTF-8): found by listing the folder, since resolving the name would follow a link it names.
     */
    private static Optional<Path> listedAs(Workspace workspace, Path folder, String shown) throws IOException {
        try (java.nio.file.DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                String relative = workspace.relativize(entry);
                if (relative.substring(relative.lastIndexOf('/') + 1).equals(shown)) {
                    return Optional.of(entry);
                }
            }
        }
        return Optional.empty();
    }

    /** All of a channel's bytes. */
    static byte[] readAll(java.nio.channels.SeekableByteChannel channel) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(64 * 1024);
        while (channel.read(buffer) >= 0) {
            out.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        }
        return out.toByteArray();
    }

    static boolean exists(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Refuses to give a file holding secrets a name that does not, since a later read under the new
     * name would show them.
     */
    static void refuseExposingSecrets(Workspace workspace, Path source, Path target, String verb) throws ToolException {
        Path real = source;
        try {
            if (Files.isSymbolicLink(source)) {
                real = source.toRealPath();
            }
        } catch (IOException dangling) {
            real = source;
        }
        if ((workspace.isSecret(source) || workspace.isSecret(real)) && !workspace.isSecret(target)) {
            throw new ToolException(workspace.relativize(source) + " holds secrets by its name; " + verb + " it to "
                    + workspace.relativize(target) + ", a name that does not, would let it be read. Keep a secret "
                    + "name (such as .env or *.pem) for it.");
        }
    }

    /**
     * An I/O error's message for the model: the JDK puts absolute paths in its messages, which are shown
     * relative to the workspace root here, as every other path is.
     */
    static String reason(Workspace workspace, IOException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String root = workspace.root().toString() + "/";
        return message.replace(root, "");
    }

    /** A size as a person reads it: {@code 120 B}, {@code 2.1 KB}, {@code 3.4 MB}. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
    }

    /** {@code 1 line} or {@code 3 lines}. */
    static String count(long n, String singular, String plural) {
        return n + " " + (n == 1 ? singular : plural);
    }
}
