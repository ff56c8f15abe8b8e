package dev.quiver.tools.edit.plus;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Text;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code multi_edit}: several replacements in one file, applied in order in memory, each on the result of
 * the one before and each matched as edit_file matches ({@link Text#replace}); the file is written once,
 * only when every edit succeeded.
 */
@Component(property = {Tool.NAME + "=multi_edit", Tool.SET + "=edit-plus", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class MultiEditTool implements Tool {

    static final int MAX_EDITS = 100;

    private static final ToolSpec SPEC = new ToolSpec("multi_edit",
            "Make several exact-text edits to one file read earlier, in order, each applied to the result of the "
                    + "one before. Each oldString should match exactly and occur once unless replaceAll; a unique "
                    + "near match is taken and reported. All or nothing: if one edit fails, the file is left as it was.",
            """
            {"type":"object","properties":{\
            "path":{"type":"string"},\
            "edits":{"type":"array","items":{"type":"object","properties":{\
            "oldString":{"type":"string"},\
            "newString":{"type":"string"},\
            "replaceAll":{"type":"boolean"}},\
            "required":["oldString","newString"]}}},\
            "required":["path","edits"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        return List.of(Subject.path(arguments.string("path")));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Workspace workspace = context.workspace();
        Path file = workspace.resolve(arguments.string("path"));
        String name = workspace.relativize(file);
        List<Arguments> edits = arguments.objects("edits");
        if (edits.isEmpty()) {
            throw new ToolException("edits is empty. Give at least one {\"oldString\": ..., \"newString\": ...}.");
        }
        if (edits.size() > MAX_EDITS) {
            throw new ToolException("edits holds " + edits.size() + " entries; at most " + MAX_EDITS + " per call.");
        }
        workspace.reads().requireFresh(file);
        Workspace.TextFile current = workspace.readText(file);
        String text = current.text();
        int replaced = 0;
        List<Integer> lines = new ArrayList<>();
        StringBuilder tolerated = new StringBuilder();
        for (int i = 0; i < edits.size(); i++) {
            int number = i + 1;
            try {
                Arguments edit = edits.get(i);
                String oldString = edit.string("oldString");
                String newString = edit.string("newString");
                if (oldString.isEmpty()) {
                    throw new ToolException("oldString is empty. Give the exact text to replace; to write a whole "
                            + "file use write_file.");
                }
                if (oldString.equals(newString)) {
                    throw new ToolException("oldString and newString are the same; there is nothing to change.");
                }
                Text.Replacement replacement = Text.replace(text, oldString, newString, edit.bool("replaceAll", false),
                        name);
                text = replacement.text();
                replaced += replacement.count();
                lines.add(replacement.firstLine());
                if (!replacement.tolerated().isEmpty()) {
                    tolerated.append(" Edit ").append(number).append(" matched with ").append(replacement.tolerated())
                            .append('.');
                }
            } catch (ToolException failed) {
                String message = failed.getMessage();
                throw new ToolException("edit " + number + ": " + message + (message.endsWith(".") ? "" : ".")
                        + " No edits were applied.");
            }
        }
        byte[] bytes = Text.encode(text, current.charset(), name);
        try {
            // compared with what the edits were made from right before the rename: another writer's bytes stay
            workspace.change("multi_edit").replace(file, Text.encode(current.text(), current.charset(), name), bytes)
                    .commit();
        } catch (IOException e) {
            throw new ToolException(e.getMessage(), e); // the workspace names the file and what went wrong
        }
        workspace.reads().wrote(file);
        return ToolResult.of("Edited " + name + ": " + Entries.count(edits.size(), "edit", "edits") + ", "
                + Entries.count(replaced, "replacement", "replacements") + " (at lines "
                + lines.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("") + ")." + tolerated);
    }
}
