package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The process {@link KilledStructuralChangeTest} kills while it deletes: writes a large file and deletes
 * it again, each a one-step change ({@code write_file}, then {@code delete_file} comparing what it
 * deletes), again and again. Arguments: the workspace root and its state folder.
 */
public final class DeleteLoop {

    static final String NAME = "big.bin";

    private DeleteLoop() {
    }

    /** Large, so that the comparison before the delete takes a while. */
    static byte[] content() {
        byte[] content = new byte[8 << 20];
        Arrays.fill(content, (byte) 'd');
        return content;
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Workspace workspace = JailedWorkspace.open(root, Path.of(args[1]));
        byte[] content = content();
        System.out.println("started");
        System.out.flush();
        Path file = root.resolve(NAME);
        while (true) {
            if (java.nio.file.Files.exists(file)) {
                workspace.change("delete_file").delete(file, content).commit();
            } else {
                workspace.change("write_file").replace(file, null, content).commit();
            }
        }
    }
}
