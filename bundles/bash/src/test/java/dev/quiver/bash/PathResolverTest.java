package dev.quiver.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathResolverTest {

    @TempDir
    Path temp;
    Path root;

    @BeforeEach
    void tree() throws Exception {
        root = temp.toRealPath();
        Files.createDirectories(root.resolve("src"));
        Files.createDirectories(root.resolve("build/out"));
        Files.createSymbolicLink(root.resolve("build/l"), Path.of("../src"));
        Files.createSymbolicLink(root.resolve("build/abs"), root.resolve("src"));
    }

    private List<Path> paths(String word, boolean followLast) {
        PathResolver.Resolution r = PathResolver.resolve(word, root, Optional.of(Path.of("/home/u")), followLast);
        assertTrue(r.known(), word + ": " + r.unknown());
        return r.targets().stream().map(PathResolver.Target::path).toList();
    }

    @Test
    void linksAreFollowedAndDotDotIsTakenAfterThem() {
        assertEquals(List.of(root.resolve("src/x")), paths("build/l/x", false));
        assertEquals(List.of(root), paths("build/l/..", false), "the parent of what l points to, not build");
        assertEquals(List.of(root.resolve("src/x")), paths("build/abs/x", false));
        assertEquals(List.of(root.resolve("build/l")), paths("build/l", false), "the last link itself, as rm sees it");
        assertEquals(List.of(root.resolve("src")), paths("build/l/", false), "a trailing slash follows it");
        assertEquals(List.of(root.resolve("src")), paths("build/l", true));
    }

    @Test
    void globsAreListedAndBraceAndTildeExpanded() {
        assertEquals(List.of(root.resolve("build/abs"), root.resolve("build/l"), root.resolve("build/out")),
                paths("build/*", false).stream().sorted().toList());
        assertEquals(List.of(root.resolve("build/nothing*")), paths("build/nothing*", false), "no match: as written");
        assertEquals(List.of(root.resolve("src"), root.resolve("build")), paths("{src,build}", false));
        assertEquals(List.of(Path.of("/home/u/x")), paths("~/x", false));
    }

    @Test
    void whatCannotBeKnownSaysWhy() {
        assertFalse(PathResolver.resolve("~bob/x", root, Optional.empty(), false).known());
        assertFalse(PathResolver.resolve("~/x", root, Optional.empty(), false).known());
        assertFalse(PathResolver.resolve("missing/../src", root, Optional.empty(), false).known(),
                "a .. after a folder that does not exist yet");
        assertFalse(PathResolver.resolve("build/out/../../src", root, Optional.empty(), false, true).known(),
                "a .. after a name, when the line could make it a link");
        assertFalse(PathResolver.resolve("build/!(x)", root, Optional.empty(), false).known());
    }

    @Test
    void globsAreBounded() throws Exception {
        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i <= PathResolver.MAX_ENTRIES; i++) {
            Files.createFile(many.resolve("f" + i));
        }
        PathResolver.Resolution r = PathResolver.resolve("many/*", root, Optional.empty(), false);
        assertFalse(r.known());
        assertTrue(r.unknown().contains("10000"), r.unknown());
    }

    @Test
    void linksThatLoopEnd() throws Exception {
        Files.createSymbolicLink(root.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(root.resolve("b"), Path.of("a"));
        assertFalse(PathResolver.resolve("a/x", root, Optional.empty(), false).known());
    }
}
