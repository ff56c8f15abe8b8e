package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Component;

/** {@code count_lines}: the lines of one file, or of every file a glob matches with a total. */
@Component(property = {Tool.NAME + "=count_lines", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class CountLinesTool implements Tool {

    /** Files named one by one in the answer; the total counts them all. */
    static final int SHOWN = 200;
    /** Files counted at most for one glob, so one call cannot read a whole disk. */
    static final int MAX_FILES = 20_000;

    private static final ToolSpec SPEC = new ToolSpec("count_lines",
            "Count lines of one file (path), or of each file a glob matches with a total (*.java, src/**). "
                    + "Honours .gitignore; skips binary files.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"One file"},\
            "glob":{"type":"string","description":"Or files matching this"}}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return arguments.has("path") ? List.of(Subject.path(arguments.string("path"))) : List.of();
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        if (arguments.has("path") == arguments.has("glob")) {
            throw new ToolException("Give either path (one file) or glob (many files), not "
                    + (arguments.has("path") ? "both." : "neither."));
        }
        if (arguments.has("path")) {
            Path file = workspace.resolve(arguments.string("path"));
            String name = workspace.relativize(file);
            if (!Files.isRegularFile(file)) {
                throw new ToolException(Files.isDirectory(file) ? name + " is a folder; count its files with glob "
                        + "(for example " + (name.equals(".") ? "" : name + "/") + "**)." : "No such file: " + name + ".");
            }
            FileScan scan = FileScan.of(workspace, file, context::isCancelled);
            if (scan.binary()) {
                throw new ToolException(name + " is a binary file (a NUL byte in its first 8 KB); it has no lines to "
                        + "count. file_info tells its size.");
            }
            return ToolResult.of(name + ": " + LineFile.lines((int) Math.min(Integer.MAX_VALUE, scan.lines())) + ".");
        }
        String glob = arguments.string("glob");
        Predicate<String> matcher = workspace.globMatcher(glob);
        List<String> rows = new ArrayList<>();
        long total = 0;
        int counted = 0;
        int binary = 0;
        int matched = 0;
        for (String file : Listing.files(workspace, workspace.root(), false)) {
            if (!matcher.test(file)) {
                continue;
            }
            matched++;
            if (counted == MAX_FILES) {
                continue;
            }
            FileScan scan = FileScan.of(workspace, workspace.resolve(file), context::isCancelled);
            if (scan.binary()) {
                binary++;
                continue;
            }
            counted++;
            total += scan.lines();
            if (rows.size() < SHOWN) {
                rows.add(scan.lines() + "  " + file);
            }
        }
        if (matched == 0) {
            return ToolResult.of("No files match " + glob + " (ignored files and files holding secrets excluded).");
        }
        StringBuilder out = new StringBuilder(String.join("\n", rows));
        if (counted > rows.size()) {
            out.append("\n... ").append(counted - rows.size()).append(" more files, counted in the total");
        }
        out.append("\n").append(total).append(" lines in ").append(counted).append(counted == 1 ? " file" : " files");
        if (binary > 0) {
            out.append(" (").append(binary).append(" binary ").append(binary == 1 ? "file" : "files").append(" skipped)");
        }
        if (matched - binary > counted) {
            out.append("; stopped at ").append(MAX_FILES).append(" files of ").append(matched)
                    .append(" matching: narrow the glob for a full count");
        }
        return ToolResult.of(out.append('.').toString());
    }
}
