package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The process {@link ChangeTest} runs under a limit a test process cannot put on itself (a file-size
 * limit, no permission override): one change writing each file given, then prints what it said.
 * Arguments: the workspace root, its state folder, then {@code <path>=<size>} for each file to write.
 */
public final class WriteChild {

    private WriteChild() {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]);
        Workspace workspace = JailedWorkspace.open(root, Path.of(args[1]));
        Workspace.Change change = workspace.change("apply_patch");
        for (int i = 2; i < args.length; i++) {
            String[] pathAndSize = args[i].split("=", 2);
            byte[] content = "x".repeat(Integer.parseInt(pathAndSize[1])).getBytes(StandardCharsets.UTF_8);
            change.write(root.resolve(pathAndSize[0]), content);
        }
        try {
            change.commit();
            System.out.println("written");
        } catch (IOException e) {
            System.out.println("failed: " + e.getMessage());
        }
    }
}
