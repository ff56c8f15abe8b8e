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
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.osgi.service.component.annotations.Component;

/** {@code recent_files}: the most recently modified files, newest first. */
@Component(property = {Tool.NAME + "=recent_files", Tool.SET + "=extra", Tool.ACCESS + "=read"})
public class RecentFilesTool implements Tool {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 500;

    private static final ToolSpec SPEC = new ToolSpec("recent_files",
            "The most recently modified files, newest first, with their times; to see what was just worked on. "
                    + "Honours .gitignore.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string","description":"Folder, default the root"},\
            "limit":{"type":"integer","description":"Default 20"}}}""");

    private record Dated(String file, FileTime modified) {
    }

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
        int limit = arguments.integer("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        Comparator<Dated> oldestFirst = Comparator.comparing(Dated::modified).thenComparing(Dated::file,
                Comparator.reverseOrder());
        // the newest `limit` files, kept in a heap whose head is the oldest of them
        PriorityQueue<Dated> newest = new PriorityQueue<>(oldestFirst);
        for (String file : Listing.files(workspace, Listing.folder(workspace, arguments), false)) {
            if (context.isCancelled()) {
                throw new ToolException("Cancelled before every file was looked at.");
            }
            FileTime modified;
            try {
                modified = Files.getLastModifiedTime(workspace.root().resolve(file), LinkOption.NOFOLLOW_LINKS);
            } catch (IOException gone) {
                continue; // removed since it was listed
            }
            newest.add(new Dated(file, modified));
            if (newest.size() > limit) {
                newest.poll();
            }
        }
        if (newest.isEmpty()) {
            return ToolResult.of("No files here (ignored files and files holding secrets excluded).");
        }
        List<Dated> shown = new ArrayList<>(newest);
        shown.sort(oldestFirst.reversed());
        StringBuilder out = new StringBuilder();
        for (Dated dated : shown) {
            out.append(FileInfoTool.time(dated.modified())).append("  ").append(dated.file()).append('\n');
        }
        return ToolResult.of(out.toString().stripTrailing());
    }
}
