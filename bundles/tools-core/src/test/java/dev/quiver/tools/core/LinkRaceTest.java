package dev.quiver.tools.core;

import dev.quiver.workspace.LinkRace;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jail holds under a race: while a thread swaps {@code victim.txt} and {@code dir} between real
 * entries and links out of the workspace (or to its {@code .env}), hundreds of calls of each file tool
 * neither show what is outside or secret nor change anything outside ({@link LinkRace}).
 */
class LinkRaceTest {

    static final int TRIES = 300;

    @TempDir
    Path base;


    @Test
    void readFileNeverReadsThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "inside\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                race.assertClean(LinkRace.call(new ReadFileTool(), Map.of("path", "victim.txt"), context));
                race.assertClean(LinkRace.call(new ReadFileTool(), Map.of("path", "dir/victim.txt"), context));
            }
        }
    }

    @Test
    void readManyFilesNeverReadsThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "inside\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                race.assertClean(LinkRace.call(new ReadManyFilesTool(), Map.of("files", List.of(Map.of("path", "victim.txt"),
                        Map.of("path", "dir/victim.txt"))), context));
            }
        }
    }

    @Test
    void grepNeverSearchesThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "inside\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                race.assertClean(LinkRace.call(new GrepTool(), Map.of("pattern", "MARKER", "includeIgnored", true), context));
            }
        }
    }

    @Test
    void writeFileNeverWritesOrCreatesThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "same\n" + LinkRace.OUTSIDE_MARKER + "\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                // the victims look alike inside and out, so the read-before-write rule does not stop an escape
                LinkRace.call(new ReadFileTool(), Map.of("path", "dir/victim.txt"), context);
                LinkRace.call(new WriteFileTool(), Map.of("path", "dir/victim.txt", "content", "written " + i + "\n"), context);
                LinkRace.call(new ReadFileTool(), Map.of("path", "victim.txt"), context);
                LinkRace.call(new WriteFileTool(), Map.of("path", "victim.txt", "content", "written " + i + "\n"), context);
                LinkRace.call(new WriteFileTool(), Map.of("path", "dir/new-" + i + ".txt", "content", "new\n"), context);
            }
        }
    }

    @Test
    void editFileNeverEditsThroughASwappedLink() throws Exception {
        try (LinkRace race = new LinkRace(base, "same\n" + LinkRace.OUTSIDE_MARKER + "\n")) {
            ToolTestContext context = new ToolTestContext(race.root);
            for (int i = 0; i < TRIES; i++) {
                for (String path : List.of("dir/victim.txt", "victim.txt")) {
                    LinkRace.call(new ReadFileTool(), Map.of("path", path), context);
                    LinkRace.call(new EditFileTool(), Map.of("path", path, "oldString", "same", "newString", "edited"), context);
                }
            }
        }
    }
}
