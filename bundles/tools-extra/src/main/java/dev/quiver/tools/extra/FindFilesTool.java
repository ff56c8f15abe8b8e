package dev.quiver.tools.extra;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Component;

/** {@code find_files}: files whose name contains a text, ignoring case. */
@Component(property = {Tool.NAME + "=find_files", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class FindFilesTool implements Tool {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 5000;

    private static final ToolSpec SPEC = new ToolSpec("find_files",
            "Find files whose name contains a text, ignoring case (user finds UserService.java); when the exact "
                    + "name or pattern is unknown. Honours .gitignore.",
            """
            {"type":"object","properties":{\
            "name":{"type":"string","description":"Part of the file name"},\
            "path":{"type":"string","description":"Folder, default the root"},\
            "limit":{"type":"integer","description":"Default 100"}},\
            "required":["name"]}""");

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
        String wanted = arguments.string("name").strip().toLowerCase(Locale.ROOT);
        if (wanted.isEmpty()) {
            throw new ToolException("name is empty: give part of a file name, such as \"config\" or \".test.ts\".");
        }
        if (wanted.indexOf('/') >= 0) {
            throw new ToolException("name is matched against file names, which hold no '/'. To match paths, use glob "
                    + "(for example **/" + arguments.string("name").strip() + "*).");
        }
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        List<String> found = new ArrayList<>();
        int total = 0;
        for (String file : Listing.files(workspace, Listing.folder(workspace, arguments), false)) {
            if (Listing.name(file).toLowerCase(Locale.ROOT).contains(wanted)) {
                total++;
                if (found.size() < limit) {
                    found.add(file);
                }
            }
        }
        if (found.isEmpty()) {
            return ToolResult.of("No file name contains \"" + arguments.string("name").strip() + "\" (ignored files and "
                    + "files holding secrets excluded). Try a shorter part of the name.");
        }
        StringBuilder out = new StringBuilder(String.join("\n", found));
        if (total > found.size()) {
            out.append("\n... ").append(total - found.size()).append(" more of ").append(total)
                    .append("; give a longer part of the name, a path, or raise limit.");
        }
        return ToolResult.of(out.toString());
    }
}
