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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/**
 * {@code tree}: a folder as an indented tree, folders before files, honouring the ignore files. Taken
 * level by level, so when the entry cap is reached the upper levels are whole and only deeper ones are
 * cut. Files holding secrets by their name are left out and counted.
 */
@Component(property = {Tool.NAME + "=tree", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class TreeTool implements Tool {

    static final int DEFAULT_DEPTH = 3;
    static final int MAX_DEPTH = 12;
    static final int DEFAULT_LIMIT = 200;
    static final int MAX_LIMIT = 2000;

    private static final ToolSpec SPEC = new ToolSpec("tree",
            "A folder's layout as an indented tree, folders first, honouring .gitignore; for a project's shape "
                    + "at a glance. Cut at depth and entry limits, which it says.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"Default: the root"},\
            "depth":{"type":"integer","description":"Default 3"},\
            "limit":{"type":"integer","description":"Max entries, default 200"}}}""");

    private static final Comparator<Workspace.Entry> FOLDERS_FIRST = Comparator
            .comparing((Workspace.Entry entry) -> entry.kind() != Workspace.Entry.Kind.DIRECTORY
                    && entry.kind() != Workspace.Entry.Kind.LINKED_DIRECTORY)
            .thenComparing(entry -> entry.path().getFileName().toString());

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return Listing.folderSubject(arguments);
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path top = Listing.folder(workspace, arguments);
        int depth = arguments.integer("depth", DEFAULT_DEPTH, 1, MAX_DEPTH);
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        Map<Path, List<Workspace.Entry>> children = new HashMap<>();
        int taken = 0;
        int secrets = 0;
        boolean cut = false;
        boolean unopened = false;
        List<Path> level = List.of(top);
        for (int d = 1; d <= depth && !level.isEmpty() && !cut; d++) {
            List<Path> next = new ArrayList<>();
            for (Path folder : level) {
                if (context.isCancelled()) {
                    throw new ToolException("Cancelled before the tree was complete.");
                }
                List<Workspace.Entry> entries = new ArrayList<>();
                try {
                    workspace.walk(folder, false, 1, entries::add);
                } catch (IOException e) {
                    throw new ToolException("Cannot list " + workspace.relativize(folder) + ": " + e.getMessage(), e);
                }
                int before = entries.size();
                entries.removeIf(entry -> entry.kind() != Workspace.Entry.Kind.DIRECTORY
                        && workspace.isSecret(entry.path()));
                secrets += before - entries.size();
                entries.sort(FOLDERS_FIRST);
                if (entries.size() > limit - taken) {
                    entries = new ArrayList<>(entries.subList(0, limit - taken));
                    cut = true;
                }
                children.put(folder, entries);
                taken += entries.size();
                for (Workspace.Entry entry : entries) {
                    if (entry.kind() == Workspace.Entry.Kind.DIRECTORY) {
                        if (d < depth) {
                            next.add(entry.path());
                        } else {
                            unopened = true;
                        }
                    }
                }
                if (cut) {
                    break;
                }
            }
            level = next;
        }
        String name = workspace.relativize(top);
        StringBuilder out = new StringBuilder(name.equals(".") ? "./" : name + "/").append('\n');
        render(children, top, 1, out);
        if (children.getOrDefault(top, List.of()).isEmpty()) {
            out.append("  (empty)\n");
        }
        if (cut) {
            out.append("[cut at ").append(limit).append(" entries, upper levels first: tree a subfolder, or raise "
                    + "limit (at most ").append(MAX_LIMIT).append(")]\n");
        } else if (unopened) {
            out.append("[folders at depth ").append(depth).append(" not opened: tree one of them, or raise depth "
                    + "(at most ").append(MAX_DEPTH).append(")]\n");
        }
        if (secrets > 0) {
            out.append("[").append(secrets).append(secrets == 1 ? " file" : " files")
                    .append(" holding secrets by name (such as .env) not shown]\n");
        }
        return ToolResult.of(out.substring(0, out.length() - 1));
    }

    private static void render(Map<Path, List<Workspace.Entry>> children, Path folder, int indent, StringBuilder out) {
        for (Workspace.Entry entry : children.getOrDefault(folder, List.of())) {
            out.append("  ".repeat(indent)).append(entry.path().getFileName());
            switch (entry.kind()) {
                case DIRECTORY -> out.append('/');
                case LINKED_DIRECTORY -> out.append("/ (link, not followed)");
                case OTHER -> out.append(" (link or special file)");
                default -> {
                }
            }
            out.append('\n');
            if (entry.kind() == Workspace.Entry.Kind.DIRECTORY) {
                render(children, entry.path(), indent + 1, out);
            }
        }
    }
}
