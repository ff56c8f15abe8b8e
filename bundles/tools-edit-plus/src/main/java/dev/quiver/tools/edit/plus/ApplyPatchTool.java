package dev.quiver.tools.edit.plus;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * {@code apply_patch}: adds, deletes, updates and moves files from one envelope in the format Codex uses
 * (see {@link Patch}). Unlike Codex it is atomic: every hunk of every file is validated before anything
 * is written, and any failure leaves every file as it was, with an error naming the file and the hunk.
 */
@Component(property = {Tool.NAME + "=apply_patch", Tool.SET + "=edit-plus", Tool.ACCESS + "=write", Tool.PREVIEW + "=true"})
public class ApplyPatchTool implements Tool {

    private static final ToolSpec SPEC = new ToolSpec("apply_patch",
            """
            Change several files at once; all or nothing. Files to update must have been read. Format:
            *** Begin Patch
            *** Add File: path
            +line
            *** Delete File: path
            *** Update File: path
            *** Move to: new/path (optional)
            @@ line to find first (optional, repeatable)
             context line
            -removed line
            +added line
            *** End of File (optional: hunk ends the file)
            *** End Patch
            Paths are relative to the workspace root.""",
            """
            {"type":"object","properties":{"patch":{"type":"string"}},"required":["patch"]}""");

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    /** Every file the envelope names: each Add, Delete and Update path and each Move to target. */
    @Override
    public List<Subject> subjects(Arguments arguments) throws ToolException {
        List<Subject> subjects = new ArrayList<>();
        for (String path : Patch.parse(arguments.string("patch")).paths()) {
            subjects.add(Subject.path(path));
        }
        return subjects;
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        Patch patch = Patch.parse(arguments.string("patch"));
        List<PatchApplier.Done> done = new PatchApplier(context.workspace()).apply(patch);
        StringBuilder out = new StringBuilder("Applied the patch:");
        for (PatchApplier.Done change : done) {
            out.append('\n').append(change.code()).append(' ').append(change.path());
            if (!change.detail().isEmpty()) {
                out.append(" (").append(change.detail()).append(')');
            }
        }
        return ToolResult.of(out.toString());
    }
}
