package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PathCompletionTest {

    private static final List<String> FILES = List.of("README.md", "docs/src-notes.md", "src/main/App.java",
            "src/main/Util.java", "src/test/AppTest.java", "vendor/src/main/X.java", "lib/Source.java");

    @Test
    void theAtMustStartAWord() {
        assertEquals(Optional.of(new PathCompletion.Token(5, "src/ma")), PathCompletion.at("read @src/ma", 12));
        assertEquals(Optional.of(new PathCompletion.Token(0, "")), PathCompletion.at("@", 1));
        assertEquals(Optional.empty(), PathCompletion.at("mail user@host", 14));
        assertEquals(Optional.empty(), PathCompletion.at("read src", 8));
        assertEquals(Optional.of(new PathCompletion.Token(0, "RE")), PathCompletion.at("@RE and more", 3),
                "the token ends at the cursor");
    }

    @Test
    void prefixMatchesRankAboveSubstringMatches() {
        List<String> ranked = PathCompletion.rank("src/", FILES, 20);
        assertEquals(List.of("src/main/", "src/test/", "src/main/App.java", "src/main/Util.java",
                "src/test/AppTest.java", "vendor/src/", "vendor/src/main/", "vendor/src/main/X.java"), ranked);
    }

    @Test
    void thenCaseInsensitivePrefixThenNameThenSegmentThenAnywhere() {
        List<String> ranked = PathCompletion.rank("app", FILES, 20);
        assertEquals(List.of("src/main/App.java", "src/test/AppTest.java"), ranked, "names starting with it");
        ranked = PathCompletion.rank("read", FILES, 20);
        assertEquals("README.md", ranked.get(0));
        ranked = PathCompletion.rank("sour", FILES, 20);
        assertEquals(List.of("lib/Source.java"), ranked);
        ranked = PathCompletion.rank("notes", FILES, 20);
        assertEquals(List.of("docs/src-notes.md"), ranked, "anywhere in the path");
    }

    @Test
    void anEmptyQueryListsTheTopLevelFirstAndTheLimitHolds() {
        List<String> ranked = PathCompletion.rank("", FILES, 4);
        assertEquals(4, ranked.size());
        assertEquals(List.of("docs/", "lib/", "src/", "vendor/"), ranked, "folders first");
        assertEquals("README.md", PathCompletion.rank("", FILES, 5).get(4));
    }

    @Test
    void eachPathGetsItsRank() {
        List<PathCompletion.Ranked> ranked = PathCompletion.ranked("src/m", FILES, 10);
        assertEquals(new PathCompletion.Ranked("src/main/", 0), ranked.get(0));
        assertTrue(ranked.stream().anyMatch(r -> r.path().equals("vendor/src/main/") && r.score() == 3), ranked.toString());
    }
}
