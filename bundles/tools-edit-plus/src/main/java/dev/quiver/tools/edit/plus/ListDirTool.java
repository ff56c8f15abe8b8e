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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/**
 * {@code list_dir}: a directory as an indented tree, honouring the ignore files. Entries are taken level
 * by level, so when the 300-entry cap is reached the upper levels are complete and only deeper ones are
 * cut. Directories at the depth limit are shown but not opened, so the tree's shape stays visible.
 */
@Component(property = {Tool.NAME + "=list_dir", Tool.SET + "=edit-plus", Tool.ACCESS + "=read"})
public class ListDirTool implements Tool {

    static final int DEFAULT_DEPTH = 2;
    static final int MAX_DEPTH = 6;
    static final int MAX_ENTRIES = 300;

    private static final ToolSpec SPEC = new ToolSpec("list_dir",
            "Show a directory as an indented tree: directories end with /, files show their size. Honours "
                    + ".gitignore. Directories at the depth limit are listed but not opened; at most 300 entries.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"Default: the workspace root"},\
            "depth":{"type":"integer","description":"1-6, default 2"},\
            "includeIgnored":{"type":"boolean"}}}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path", ".")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        String asked = arguments.string("path", ".");
        Path directory = workspace.resolve(asked.isBlank() ? "." : asked);
        int depth = arguments.integer("depth", DEFAULT_DEPTH, 1, MAX_DEPTH);
        boolean includeIgnored = arguments.bool("includeIgnored", false);
        String name = workspace.relativize(directory);
        if (!Files.isDirectory(directory)) {
            throw new ToolException(Files.exists(directory) ? name + " is a file, not a directory. Read it with "
                    + "read_file." : "No such directory: " + name);
        }
        Map<Path, List<Workspace.Entry>> children = new HashMap<>();
        int taken = 0;
        boolean cut = false;
        boolean unopened = false;
        Deque<Workspace.Entry> level = new ArrayDeque<>();
        level.add(new Workspace.Entry(directory, name, Workspace.Entry.Kind.DIRECTORY, 0, 0));
        // breadth first: every entry of one level before any of the next
        while (!level.isEmpty() && !cut) {
            Deque<Workspace.Entry> next = new ArrayDeque<>();
            for (Workspace.Entry parent : level) {
                if (context.isCancelled()) {
                    throw new ToolException("The call was cancelled before the listing was complete.");
                }
                List<Workspace.Entry> entries = list(workspace, parent.path(), includeIgnored);
                int room = MAX_ENTRIES - taken;
                if (entries.size() > room) {
                    entries = entries.subList(0, room);
                    cut = true;
                }
                children.put(parent.path(), entries);
                taken += entries.size();
                for (Workspace.Entry entry : entries) {
                    if (entry.kind() == Workspace.Entry.Kind.DIRECTORY) {
                        if (parent.depth() + 1 < depth) {
                            next.add(new Workspace.Entry(entry.path(), entry.relativePath(), entry.kind(), 0,
                                    parent.depth() + 1));
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
        StringBuilder out = new StringBuilder(name.equals(".") ? "./" : name + "/").append('\n');
        List<Workspace.Entry> top = children.getOrDefault(directory, List.of());
        if (top.isEmpty()) {
            out.append("  (empty)\n");
        }
        render(children, directory, 1, out);
        if (cut) {
            out.append("[stopped at ").append(MAX_ENTRIES).append(" entries, upper levels first; list a subdirectory "
                    + "or lower depth to see the rest]\n");
        } else if (unopened) {
            out.append("[directories at depth ").append(depth).append(" are not opened; list one, or raise depth "
                    + "(at most ").append(MAX_DEPTH).append(")]\n");
        }
        return ToolResult.of(out.substring(0, out.length() - 1));
    }

    private static List<Workspace.Entry> list(Workspace workspace, Path directory, boolean includeIgnored)
            throws ToolException {
        List<Workspace.Entry> entries = new ArrayList<>();
        try {
            workspace.walk(directory, includeIgnored, 1, entries::add);
        } catch (IOException e) {
            throw new ToolException("Cannot list " + workspace.relativize(directory) + ": "
                    + Entries.reason(workspace, e), e);
        }
        return entries;
    }

    private static void render(Map<Path, List<Workspace.Entry>> children, Path directory, int indent, StringBuilder out) {
        for (Workspace.Entry entry : children.getOrDefault(directory, List.of())) {
            // the name as the walk shows it: a name whose bytes are not UTF-8 is escaped there (\xFF)
            String relative = entry.relativePath();
            out.append("  ".repeat(indent)).append(relative.substring(relative.lastIndexOf('/') + 1));
            switch (entry.kind()) {
                case DIRECTORY -> out.append('/');
                case LINKED_DIRECTORY -> out.append("/ (link)");
                case FILE -> out.append("  ").append(Entries.size(entry.size()))
                        .append(Files.isSymbolicLink(entry.path()) ? " (link)" : "");
                default -> out.append(Files.isSymbolicLink(entry.path()) ? " (broken link)" : " (special file)");
            }
            out.append('\n');
            if (entry.kind() == Workspace.Entry.Kind.DIRECTORY) {
                render(children, entry.path(), indent + 1, out);
            }
        }
    }
}
