package dev.quiver.tools.edit.plus;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.quiver.api.Arguments;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths a careless or hostile model may send, through every tool of the edit-plus set, in every path
 * argument: nothing outside the workspace is read, written, moved or deleted, and every refusal is a
 * message, never a trace.
 */
class HostileInputTest {

    @TempDir
    Path root;

    @TempDir
    Path outside;

    ToolTestContext context;

    @BeforeEach
    void open() throws IOException, ToolException {
        context = new ToolTestContext(root);
        Files.writeString(outside.resolve("victim.txt"), "outside\n");
        Files.createSymbolicLink(root.resolve("link-out"), outside);
        Files.writeString(root.resolve("inside.txt"), "inside\n");
        context.read("inside.txt");
    }

    private List<String> hostilePaths() {
        return List.of("../escape.txt", "a/../../escape.txt", "/etc/passwd", outside.resolve("victim.txt").toString(),
                "link-out/victim.txt", "link-out/new.txt", "a\0b.txt", "\0", "", "   ", "x".repeat(5000),
                "dir/" + "y".repeat(300) + "/z.txt", "..", "/");
    }

    /** Each tool with its path arguments, the hostile path put in one of them at a time. */
    private List<Map.Entry<Tool, Map<String, Object>>> calls(String hostile) {
        List<Map.Entry<Tool, Map<String, Object>>> calls = new ArrayList<>();
        calls.add(Map.entry(new MultiEditTool(), Map.of("path", hostile, "edits",
                List.of(Map.of("oldString", "outside", "newString", "x")))));
        calls.add(Map.entry(new ReplaceMatchTool(), Map.of("path", hostile, "line", 1, "column", 1, "oldString",
                "outside", "newString", "x")));
        calls.add(Map.entry(new ListDirTool(), Map.of("path", hostile)));
        calls.add(Map.entry(new DeleteFileTool(), Map.of("path", hostile)));
        calls.add(Map.entry(new CreateDirectoryTool(), Map.of("path", hostile)));
        for (Tool twoEnded : List.of(new MoveFileTool(), new CopyPathTool())) {
            calls.add(Map.entry(twoEnded, Map.of("from", hostile, "to", "copy.txt")));
            calls.add(Map.entry(twoEnded, Map.of("from", "inside.txt", "to", hostile)));
        }
        for (String marker : List.of("*** Add File: ", "*** Delete File: ", "*** Update File: ")) {
            calls.add(Map.entry(new ApplyPatchTool(), Map.of("patch", "*** Begin Patch\n" + marker + hostile
                    + "\n+x\n*** End Patch\n")));
        }
        calls.add(Map.entry(new ApplyPatchTool(), Map.of("patch", "*** Begin Patch\n*** Update File: inside.txt\n"
                + "*** Move to: " + hostile + "\n*** End Patch\n")));
        return calls;
    }

    @Test
    void everyToolRefusesEveryHostilePathCleanlyAndTouchesNothingOutside() throws IOException {
        List<String> problems = new ArrayList<>();
        for (String hostile : hostilePaths()) {
            for (Map.Entry<Tool, Map<String, Object>> call : calls(hostile)) {
                String name = call.getKey().spec().name() + " " + new HashMap<>(call.getValue()).toString()
                        .replace("\0", "\\0");
                try {
                    String out = call.getKey().call(Arguments.of(call.getValue()), context).text();
                    if (out.contains("outside")) {
                        problems.add(name + " showed outside content: " + out);
                    }
                    if (!call.getKey().spec().name().equals("list_dir") && !out.contains("already exists")) {
                        problems.add(name + " was not refused: " + out);
                    }
                } catch (ToolException e) {
                    String message = e.getMessage();
                    if (message.isBlank() || message.contains("\tat ") || message.contains("Exception")) {
                        problems.add(name + " refused with " + message);
                    }
                }
                try (Stream<Path> files = Files.list(outside)) {
                    List<String> names = files.map(p -> p.getFileName().toString()).toList();
                    if (!names.equals(List.of("victim.txt"))) {
                        problems.add(name + " changed the outside folder: " + names);
                    }
                }
                if (!Files.readString(outside.resolve("victim.txt")).equals("outside\n")) {
                    problems.add(name + " changed the outside file");
                }
                if (!Files.exists(root.resolve("inside.txt"))) {
                    problems.add(name + " lost inside.txt");
                }
                Files.deleteIfExists(root.resolve("copy.txt"));
            }
        }
        assertEquals(List.of(), problems);
        assertFalse(Files.exists(root.getParent().resolve("escape.txt")));
    }
}
