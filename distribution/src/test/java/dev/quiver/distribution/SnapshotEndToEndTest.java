package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.distribution.QuiverProcess.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The framework snapshot (docs/architecture.md, Start-up): a start copies it when it lists the
 * installation exactly, and otherwise starts the ordinary way, with the same result, and records a
 * new one. Each test runs a copy of the built distribution, whose snapshot names the original's
 * folder and is therefore stale.
 */
class SnapshotEndToEndTest {

    /** The start's phases; the framework always starts (tools --json would answer from its record). */
    private static final Map<String, String> TRACE = Map.of("QUIVER_JAVA_OPTS",
            "-Dquiver.startup.trace=true -Dquiver.tools.record=false");

    @TempDir
    Path temp;

    private Path workspace;

    @BeforeEach
    void workspace() throws IOException {
        workspace = Files.createDirectories(temp.resolve("ws"));
        Files.writeString(workspace.resolve("README.md"), "# Demo\n");
    }

    @Test
    void theBuiltDistributionStartsFromItsSnapshot() throws Exception {
        Run run = QuiverProcess.run(workspace, TRACE, "", "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("bundles (snapshot) "), run.stderr());
    }

    @Test
    void aStaleSnapshotIsIgnoredGivesTheSameAnswerAndIsReplaced() throws Exception {
        Path copy = copyOfDistribution();
        String before = Files.readString(copy.resolve("snapshot").resolve("listing"));
        assertFalse(before.contains("home " + copy + "\n"), "the copy's snapshot names the original folder");

        Run first = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertEquals(0, first.exitCode(), first.stderr());
        assertFalse(first.stderr().contains("(snapshot)"), "a stale snapshot is not used:\n" + first.stderr());
        assertTrue(Files.readString(copy.resolve("snapshot").resolve("listing")).contains("home " + copy + "\n"),
                "the run recorded a snapshot of the copy");

        Run second = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertEquals(0, second.exitCode(), second.stderr());
        assertTrue(second.stderr().contains("bundles (snapshot) "), second.stderr());
        assertEquals(first.stdout(), second.stdout(), "the same registry either way");
        Run original = QuiverProcess.run(workspace, "tools", "--json");
        assertEquals(original.stdout(), second.stdout(), "the same registry as the built distribution");
    }

    @Test
    void aChangedBundleFolderMakesTheSnapshotStale() throws Exception {
        Path copy = copyOfDistribution();
        assertEquals(0, QuiverProcess.run(copy, workspace, Map.of(), "", "tools", "--json").exitCode());
        Path jar;
        try (Stream<Path> jars = Files.list(copy.resolve("bundle"))) {
            jar = jars.filter(p -> p.getFileName().toString().startsWith("dev.quiver.tools.agent")).findFirst().orElseThrow();
        }
        Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(jar).toMillis() + 60_000));

        Run run = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        assertFalse(run.stderr().contains("(snapshot)"), "a jar changed since the snapshot:\n" + run.stderr());
        assertTrue(run.stdout().contains("\"todo_write\""), run.stdout());
    }

    @Test
    void aDamagedSnapshotStillStartsEveryBundle() throws Exception {
        Path copy = copyOfDistribution();
        Run recorded = QuiverProcess.run(copy, workspace, Map.of(), "", "tools", "--json");
        assertEquals(0, recorded.exitCode(), recorded.stderr());
        // half of the bundles' archives gone, and SCR's descriptor cache with them
        List<Path> archives = new ArrayList<>();
        try (Stream<Path> entries = Files.list(copy.resolve("snapshot"))) {
            entries.filter(p -> p.getFileName().toString().matches("bundle[0-9]+")).sorted().forEach(archives::add);
        }
        for (int i = 1; i < archives.size(); i += 2) {
            Launcher.deleteTree(archives.get(i));
        }

        Run run = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains(" missing from it)"), run.stderr());
        assertEquals(recorded.stdout(), run.stdout(), "every tool is there");
        Run healed = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertTrue(healed.stderr().contains("bundles (snapshot) "),
                "the damaged snapshot was replaced:\n" + healed.stderr());
        Run call = QuiverProcess.run(copy, workspace, Map.of(), "", "call", "read_file", "{\"path\":\"README.md\"}");
        assertEquals(0, call.exitCode(), call.stderr());
        assertTrue(call.stdout().contains("1: # Demo"), call.stdout());
    }

    @Test
    void processesStartingTogetherFromNoSnapshotAllSucceedAndLeaveOneValidSnapshot() throws Exception {
        Path copy = copyOfDistribution();
        Launcher.deleteTree(copy.resolve("snapshot"));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Run>> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                runs.add(pool.submit(() -> QuiverProcess.run(copy, workspace, Map.of(), "", "tools", "--json")));
            }
            String first = null;
            for (Future<Run> future : runs) {
                Run run = future.get();
                assertEquals(0, run.exitCode(), run.stderr());
                first = first == null ? run.stdout() : first;
                assertEquals(first, run.stdout());
            }
        } finally {
            pool.shutdownNow();
        }
        try (Stream<Path> left = Files.list(copy)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("snapshot.")).toList(),
                    "no half-written snapshot is left beside it");
        }
        Run run = QuiverProcess.run(copy, workspace, TRACE, "", "tools", "--json");
        assertTrue(run.stderr().contains("bundles (snapshot) "), run.stderr());
    }

    private Path copyOfDistribution() throws IOException {
        Path copy = temp.resolve("quiver");
        QuiverProcess.copyTree(QuiverProcess.distribution(), copy, relative -> true);
        return copy;
    }
}
