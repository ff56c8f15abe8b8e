package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobToolTest {

    @TempDir
    Path root;

    final GlobTool tool = new GlobTool();

    private void files(String... paths) throws IOException {
        for (String path : paths) {
            Path file = root.resolve(path);
            Files.createDirectories(file.getParent());
            Files.writeString(file, path + "\n");
        }
    }

    private String glob(Map<String, ?> arguments) throws ToolException, IOException {
        return tool.call(Arguments.of(arguments), new TestContext(root)).text();
    }

    @Test
    void matchingFilesAreListedAsRelativePathsInWalkOrder() throws Exception {
        files("src/b/B.java", "src/A.java", "App.java", "README.md", "src/a.kt");
        assertEquals("App.java\nsrc/A.java\nsrc/b/B.java", glob(Map.of("pattern", "**/*.java")));
    }

    @Test
    void limitCutsTheListAndSaysHowManyMoreMatched() throws Exception {
        files("a1.txt", "a2.txt", "a3.txt", "d/a4.txt", "d/a5.txt");
        assertEquals("a1.txt\na2.txt\n... 3 more of 5 matching files; narrow the pattern or raise limit.",
                glob(Map.of("pattern", "*.txt", "limit", 2)));
        assertEquals("a1.txt\na2.txt\na3.txt\nd/a4.txt\nd/a5.txt", glob(Map.of("pattern", "*.txt", "limit", 5)));
    }

    @Test
    void ignoredFilesAreExcludedUnlessAskedFor() throws Exception {
        files(".gitignore", "src/App.java", "build/Gen.java", "src/Old.java");
        Files.writeString(root.resolve(".gitignore"), "build/\nOld.java\n");
        assertEquals("src/App.java", glob(Map.of("pattern", "**/*.java")));
        assertEquals("build/Gen.java\nsrc/App.java\nsrc/Old.java",
                glob(Map.of("pattern", "**/*.java", "includeIgnored", true)));
    }

    @Test
    void noMatchSaysSoAndWhetherIgnoredFilesWereLeftOut() throws Exception {
        files("a.txt");
        assertEquals("No files match *.rs (ignored files excluded).", glob(Map.of("pattern", "*.rs")));
        assertEquals("No files match *.rs.", glob(Map.of("pattern", "*.rs", "includeIgnored", true)));
    }

    @Test
    void onlyFilesAreListedNotDirectories() throws Exception {
        files("docs/guide/intro.md");
        assertEquals("docs/guide/intro.md", glob(Map.of("pattern", "docs/**")));
    }

    @Test
    void braceAlternativesWork() throws Exception {
        files("web/a.ts", "web/b.tsx", "web/c.js");
        assertEquals("web/a.ts\nweb/b.tsx", glob(Map.of("pattern", "web/*.{ts,tsx}")));
    }

    @Test
    void malformedGlobIsReported() {
        ToolException error = assertThrows(ToolException.class, () -> glob(Map.of("pattern", "src/{a,b")));
        assertEquals("Glob 'src/{a,b' has an unclosed '{'.", error.getMessage());
    }

    @Test
    void cancelledCallStopsWalking() throws Exception {
        files("a.txt", "b.txt");
        TestContext context = new TestContext(root);
        context.cancelled.set(true);
        Map<String, Object> arguments = new HashMap<>();
        arguments.put("pattern", "*.txt");
        assertEquals("No files match *.txt (ignored files excluded).", tool.call(Arguments.of(arguments), context).text());
    }
}
