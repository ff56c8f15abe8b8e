package dev.quiver.tools.edit.plus;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The process {@link ApplyPatchToolTest} runs under a limit a test process cannot put on itself (a
 * file-size limit, as a full disk fails a write): apply_patch with a patch read from a file, after the
 * model read the files named, then prints what the tool said. Arguments: the workspace root, the patch
 * file, then the paths read.
 */
public final class ApplyPatchChild {

    private ApplyPatchChild() {
    }

    public static void main(String[] args) throws Exception {
        ToolTestContext context = new ToolTestContext(Path.of(args[0]));
        for (int i = 2; i < args.length; i++) {
            context.read(args[i]);
        }
        String patch = Files.readString(Path.of(args[1]));
        try {
            System.out.println("applied: " + new ApplyPatchTool().call(Arguments.of(Map.of("patch", patch)), context).text());
        } catch (ToolException e) {
            System.out.println("failed: " + e.getMessage());
        }
    }
}
