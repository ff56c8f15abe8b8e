package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/** {@code file_info}: what a file is without reading it into the conversation. */
@Component(property = {Tool.NAME + "=file_info", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class FileInfoTool implements Tool {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx", Locale.ROOT);

    private static final ToolSpec SPEC = new ToolSpec("file_info",
            "A file's size, line count, modified time, text or binary, encoding and line endings, without reading "
                    + "it into the conversation. Use before opening a large or unknown file.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"}},\
            "required":["path"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return LineFile.pathSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(file);
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            throw new ToolException("No such file or folder: " + name + ". find_files or glob finds it by name.", e);
        }
        StringBuilder out = new StringBuilder(name).append('\n');
        String modified = "modified: " + time(attributes.lastModifiedTime()) + "\n";
        if (attributes.isDirectory()) {
            long entries;
            try (var list = Files.list(file)) {
                entries = list.count();
            } catch (IOException e) {
                throw new ToolException("Cannot list " + name + ": " + e.getMessage(), e);
            }
            return ToolResult.of(out.append("kind: folder, ").append(entries).append(entries == 1 ? " entry" : " entries")
                    .append(" (tree lists them)\n").append(modified).toString().stripTrailing());
        }
        if (!attributes.isRegularFile()) {
            throw new ToolException(name + " is not a regular file (a device, pipe or socket); it has no content to describe.");
        }
        FileScan scan = FileScan.of(workspace, file, context::isCancelled);
        out.append("kind: ").append(scan.binary() ? "binary file" : "text file").append('\n');
        out.append("size: ").append(size(scan.bytes())).append('\n');
        if (!scan.binary()) {
            out.append("lines: ").append(scan.lines()).append('\n');
        }
        out.append(modified);
        out.append("encoding: ").append(scan.encoding()).append('\n');
        if (!scan.binary()) {
            out.append("line endings: ").append(scan.lineEndings()).append('\n');
        }
        try {
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
            out.append("permissions: ").append(mode).append(mode.indexOf('x') >= 0 ? " (executable)" : "").append('\n');
        } catch (IOException | UnsupportedOperationException e) {
            // a file system without POSIX permissions: nothing to say
        }
        if (workspace.isIgnored(file)) {
            out.append("ignored by .gitignore\n");
        }
        return ToolResult.of(out.toString().stripTrailing());
    }

    static String time(FileTime time) {
        Instant instant = time.toInstant();
        Duration age = Duration.between(instant, Instant.now());
        String ago = age.isNegative() ? "in the future" : age.toSeconds() < 120 ? age.toSeconds() + " s ago"
                : age.toMinutes() < 120 ? age.toMinutes() + " min ago" : age.toHours() < 48 ? age.toHours() + " h ago"
                : age.toDays() + " days ago";
        return instant.atZone(ZoneId.systemDefault()).format(TIME) + " (" + ago + ")";
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s (%d bytes)", value, units[unit], bytes);
    }
}
