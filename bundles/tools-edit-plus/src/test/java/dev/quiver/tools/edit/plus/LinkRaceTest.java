package dev.quiver.tools.edit.plus;

import dev.quiver.api.ToolException;
import dev.quiver.workspace.LinkRace;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jail holds under a race: while a thread swaps {@code victim.txt} and {@code dir} between real
 * entries and links out of the workspace (or to its {@code .env}), hundreds of calls of apply_patch,
 * move_file and copy_path neither show nor take what is outside or secret, nor change or create
 * anything outside ({@link LinkRace}).
 */
class LinkRaceTest {

    static final int TRIES = 300;

    @TempDir
    Path base;


    private static void read(String path, ToolTestContext context) {
        try {
            context.workspace().reads().read(context.workspace().resolve(path));
        } catch (ToolException escapes) {
            // swapped for a link out at that moment
        }
    }

    @Test
    void applyPatchNeverReadsWritesOrCreatesThroughASwappedLink() throws Exception {
        // the victims look alike inside and out, so the read-before-write rule does not stop an escape
        try (LinkRace race = new LinkRace(base, "same\n" + LinkRace.OUTSIDE_MARKER + "\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                read("dir/victim.txt", context);
                read("victim.txt", context);
                race.assertClean(LinkRace.call(new ApplyPatchTool(), Map.of("patch", """
                        *** Begin Patch
                        *** Update File: dir/victim.txt
                        @@
                        -same
                        +patched
                        *** Add File: dir/new-%d.txt
                        +new
                        *** Update File: victim.txt
                        @@
                        -same
                        +patched
                        *** End Patch
                        """.formatted(i)), context).replace(LinkRace.OUTSIDE_MARKER, "(the victim's own line)"));
            }
        }
    }

    @Test
    void moveFileNeverMovesInOrOutThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "inside\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                Files.writeString(race.root.resolve("mine-" + i + ".txt"), "mine\n");
                race.assertClean(LinkRace.call(new MoveFileTool(), Map.of("from", "mine-" + i + ".txt", "to", "dir/moved-" + i
                        + ".txt"), context));
                race.assertClean(LinkRace.call(new MoveFileTool(), Map.of("from", "dir/victim.txt", "to", "taken-" + i
                        + ".txt"), context));
                race.assertClean(LinkRace.call(new MoveFileTool(), Map.of("from", "victim.txt", "to", "taken-file-" + i
                        + ".txt"), context));
            }
        }
    }

    @Test
    void copyPathNeverCopiesInOrOutThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "inside\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            Files.writeString(race.root.resolve("mine.txt"), "mine\n");
            for (int i = 0; i < TRIES; i++) {
                race.assertClean(LinkRace.call(new CopyPathTool(), Map.of("from", "mine.txt", "to", "dir/copy-" + i + ".txt"),
                        context));
                race.assertClean(LinkRace.call(new CopyPathTool(), Map.of("from", "dir/victim.txt", "to", "taken-" + i
                        + ".txt"), context));
                race.assertClean(LinkRace.call(new CopyPathTool(), Map.of("from", "victim.txt", "to", "taken-file-" + i
                        + ".txt"), context));
                race.assertClean(LinkRace.call(new CopyPathTool(), Map.of("from", "dir", "to", "tree-" + i), context));
            }
        }
    }
}
