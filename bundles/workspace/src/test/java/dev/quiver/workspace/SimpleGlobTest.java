package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.eclipse.jgit.ignore.FastIgnoreRule;
import org.junit.jupiter.api.Test;

/** The direct matcher of simple globs must give JGit's answer for every pattern it takes. */
class SimpleGlobTest {

    private static boolean jgit(String glob, String path) {
        return new FastIgnoreRule(glob).isMatch(path, false, true);
    }

    private static void assertAgrees(String glob, String path) {
        SimpleGlob simple = SimpleGlob.of(glob);
        assertNotNull(simple, glob);
        assertEquals(jgit(glob, path), simple.test(path), () -> glob + " on " + path);
    }

    @Test
    void theCommonShapesAreTakenAndAgreeWithJGit() {
        List<String> paths = List.of("App.java", "src/App.java", "src/main/java/dev/App.java", "App.javax",
                "src/App.kt", "README.md", "docs/a/b/notes.md", "src", "src/a", "src/a/b", "src/test/A.java",
                "src/a/b/test/A.java", "lib/src/test/A.java", ".java", "a/.java", "x.java.txt", "java", "test/A.java");
        for (String glob : List.of("*.java", "**/*.java", "*.md", "src/*", "src/**", "src/**/*.java",
                "src/**/test/*.java", "**/test/*.java", "**/src/**", "a*b*c", "*App*", "src/a/b", "App.java", "*",
                "**/*", "*/*.java", "src/*/*", "**/a/**/b")) {
            for (String path : paths) {
                assertAgrees(glob, path);
            }
        }
    }

    @Test
    void otherShapesAreLeftToJGit() {
        for (String glob : List.of("a?c", "file[0-9].txt", "a\\*b", "/src/*.java", "src/", "a//b", "**", "a**b",
                "src/a**/x", "!x", "#x", "*.java ", "a\t")) {
            assertNull(SimpleGlob.of(glob), glob);
        }
    }

    @Test
    void generatedPatternsAndPathsAgreeWithJGit() {
        String[] names = {"a", "b", "ab", "a.b", ".a", "src", "x.java", "java", "-", "a-b", "main"};
        String[] pieces = {"a", "b", "a.", ".b", "src", "java", ".java", "x", "-", ""};
        Random random = new Random(20261203);
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int depth = 1 + random.nextInt(5);
            StringBuilder path = new StringBuilder();
            for (int d = 0; d < depth; d++) {
                path.append(d == 0 ? "" : "/").append(names[random.nextInt(names.length)]);
            }
            paths.add(path.toString());
        }
        int compared = 0;
        for (int i = 0; i < 1500; i++) {
            int count = 1 + random.nextInt(4);
            StringBuilder glob = new StringBuilder();
            for (int s = 0; s < count; s++) {
                if (s > 0) {
                    glob.append('/');
                }
                if (count > 1 && random.nextInt(4) == 0) {
                    glob.append("**");
                    continue;
                }
                int parts = 1 + random.nextInt(3);
                for (int p = 0; p < parts; p++) {
                    glob.append(p == 0 ? "" : "*").append(pieces[random.nextInt(pieces.length)]);
                }
            }
            SimpleGlob simple = SimpleGlob.of(glob.toString());
            if (simple == null || new FastIgnoreRule(glob.toString()).isEmpty()) {
                continue;
            }
            for (String path : paths) {
                assertEquals(jgit(glob.toString(), path), simple.test(path), glob + " on " + path);
                compared++;
            }
        }
        assertTrue(compared > 100_000, "compared " + compared);
    }
}
