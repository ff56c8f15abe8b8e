package dev.quiver.workspace;

import dev.quiver.api.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process {@link KilledChangeTest} kills: turns every file of a workspace from one version to the
 * other, again and again, each turn one change of all of them through the real transaction.
 * Arguments: the workspace root, its state folder, how many files.
 */
public final class ChangeLoop {

    private ChangeLoop() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        Path state = Path.of(args[1]);
        int files = Integer.parseInt(args[2]);
        Workspace workspace = JailedWorkspace.open(root, state);
        System.out.println("started");
        System.out.flush();
        while (true) {
            Workspace.Change change = workspace.change("apply_patch");
            for (int i = 0; i < files; i++) {
                Path file = root.resolve(KilledChangeTest.name(i));
                byte[] before = Files.readAllBytes(file);
                char version = KilledChangeTest.versionOf(before);
                change.replace(file, before, KilledChangeTest.content(i, version == 'A' ? 'B' : 'A'));
            }
            change.commit();
        }
    }
}
