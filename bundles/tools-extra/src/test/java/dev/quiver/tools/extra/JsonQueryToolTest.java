package dev.quiver.tools.extra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.ToolException;
import dev.quiver.workspace.ToolTestContext;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** json_query on real files, hostile ones included. */
class JsonQueryToolTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        Files.writeString(root.resolve("package.json"), """
                {
                  // a comment, as tsconfig.json has
                  "name": "demo",
                  "scripts": {"build": "tsc -p .", "test": "vitest",},
                  "a": {"b": [1, 2, {"c": true}]},
                  "dotted.key": {"x": 1},
                }
                """);
        context = new ToolTestContext(root);
    }

    private String query(String query) throws ToolException {
        return new JsonQueryTool().call(Arguments.of(Map.of("path", "package.json", "query", query)), context).text();
    }

    private String refused(String path, String query) {
        return assertThrows(ToolException.class, () -> new JsonQueryTool()
                .call(Arguments.of(Map.of("path", path, "query", query)), context)).getMessage();
    }

    @Test
    void dottedPathsWithIndicesFindOneValue() throws Exception {
        assertEquals("tsc -p .", query("scripts.build"));
        assertEquals("true", query("a.b[2].c"));
        assertEquals("2", query("a.b[-2]"));
        assertEquals("1", query("[\"dotted.key\"].x"));
        assertEquals("{\n  \"build\" : \"tsc -p .\",\n  \"test\" : \"vitest\"\n}", query("scripts"));
        assertTrue(query("").startsWith("{\n  \"name\" : \"demo\""));
    }

    @Test
    void aMissingPathNamesTheNearestExistingPrefix() {
        assertEquals("Not found in package.json: scripts has no key \"buld\"; it is an object with keys build, test.",
                refused("package.json", "scripts.buld"));
        assertEquals("Not found in package.json: a.b has no index 5; it is an array of 3 elements (indices 0-2).",
                refused("package.json", "a.b[5]"));
        assertEquals("Not found in package.json: name has no key \"first\"; it is a string (\"demo\").",
                refused("package.json", "name.first"));
        assertEquals("Not found in package.json: the top level has no key \"nope\"; it is an object with keys name, "
                + "scripts, a, dotted.key.", refused("package.json", "nope"));
        assertTrue(refused("package.json", "a[x]").startsWith("Cannot read the query a[x]: [x] is not an array index"));
    }

    @Test
    void aHundredThousandLevelsDeepIsAClearErrorNotAStackOverflow() throws Exception {
        Files.writeString(root.resolve("deep.json"), "[".repeat(100_000) + "]".repeat(100_000));
        assertTrue(refused("deep.json", "").startsWith("deep.json nests deeper than 256 levels"),
                refused("deep.json", ""));
    }

    @Test
    void invalidHugeBinaryAndSecretFilesAreRefused() throws Exception {
        Files.writeString(root.resolve("bad.json"), "{\n  \"a\": 1\n  \"b\": 2\n}");
        String bad = refused("bad.json", "a");
        assertTrue(bad.startsWith("bad.json is not valid JSON (comments and trailing commas are allowed): "), bad);
        assertTrue(bad.contains("at line 3, column"), bad);
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.json").toFile(), "rw")) {
            huge.setLength(17L * 1024 * 1024);
        }
        assertTrue(refused("huge.json", "").contains("more than the 16 MB json_query reads"));
        Files.writeString(root.resolve("config.env"), "{\"password\": \"hunter2\"}");
        String secret = refused("config.env", "password");
        assertEquals("config.env holds secrets by its name; json_query does not read it.", secret);
        Files.writeString(root.resolve("empty.json"), "");
        assertEquals("empty.json is empty: there is no JSON value in it.", refused("empty.json", ""));
    }

    @Test
    void aLinkToASecretUnderAPlainNameIsRefused(@TempDir Path outside) throws Exception {
        Files.writeString(root.resolve(".env"), "{\"k\": \"hunter2\"}");
        Files.createSymbolicLink(root.resolve("settings.json"), root.resolve(".env"));
        String error = refused("settings.json", "k");
        assertTrue(!error.contains("hunter2"), error);
        Files.writeString(outside.resolve("o.json"), "{\"k\": 1}");
        Files.createSymbolicLink(root.resolve("out.json"), outside.resolve("o.json"));
        assertTrue(refused("out.json", "k").startsWith("Path escapes workspace"));
    }
}
