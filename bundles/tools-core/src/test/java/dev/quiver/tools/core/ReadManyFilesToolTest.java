package dev.quiver.tools.core;

import dev.quiver.workspace.ToolTestContext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadManyFilesToolTest {

    @TempDir
    Path root;

    ToolTestContext context;
    final ReadManyFilesTool tool = new ReadManyFilesTool();

    @BeforeEach
    void open() throws IOException {
        context = new ToolTestContext(root);
    }

    private void file(String path, String content) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private static Map<String, Object> path(String path) {
        return Map.of("path", path);
    }

    private String read(List<Map<String, Object>> files) throws ToolException {
        return tool.call(Arguments.of(Map.of("files", files)), context).text();
    }

    @Test
    void blocksComeInTheOrderAskedEachNumberedLikeReadFile() throws Exception {
        file("src/b.txt", "bee\n");
        file("a.txt", "one\ntwo\n");
        assertEquals("==> src/b.txt <==\n[src/b.txt: lines 1-1 of 1]\n1: bee\n\n"
                + "==> a.txt <==\n[a.txt: lines 1-2 of 2]\n1: one\n2: two\n",
                read(List.of(path("src/b.txt"), path("a.txt"))));
        String single = new ReadFileTool().call(Arguments.of(Map.of("path", "a.txt")), context).text();
        assertTrue(read(List.of(path("a.txt"))).endsWith(single), "the same window as read_file");
    }

    @Test
    void filesAreReadConcurrently() throws Exception {
        file("a.txt", "alpha\n");
        file("b.txt", "beta\n");
        // each read waits for the other at a barrier: read one after the other, the first would give up
        java.util.concurrent.CyclicBarrier bothReading = new java.util.concurrent.CyclicBarrier(2);
        Workspace real = context.workspace();
        Workspace meeting = (Workspace) java.lang.reflect.Proxy.newProxyInstance(Workspace.class.getClassLoader(),
                new Class<?>[] {Workspace.class}, (proxy, method, args) -> {
                    if (method.getName().equals("readText")) {
                        bothReading.await(20, java.util.concurrent.TimeUnit.SECONDS);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        ToolContext meetingContext = new ToolContext() {
            @Override
            public Workspace workspace() {
                return meeting;
            }

            @Override
            public java.util.Optional<Object> config(String key) {
                return java.util.Optional.empty();
            }

            @Override
            public void stream(String text) {
            }

            @Override
            public java.util.Map<String, String> environment() {
                return System.getenv();
            }

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
        String out = tool.call(Arguments.of(Map.of("files", List.of(Map.of("path", "a.txt"), Map.of("path", "b.txt")))),
                meetingContext).text();
        assertTrue(out.contains("1: alpha") && out.contains("1: beta"), out);
    }

    @Test
    void eachFileHasItsOwnWindow() throws Exception {
        file("ten.txt", IntStream.rangeClosed(1, 10).mapToObj(i -> "l" + i).collect(Collectors.joining("\n")));
        assertEquals("==> ten.txt <==\n[ten.txt: lines 3-4 of 10; continue with offset 5]\n3: l3\n4: l4\n\n"
                + "==> ten.txt <==\n[ten.txt: lines 9-10 of 10]\n9: l9\n10: l10\n",
                read(List.of(Map.of("path", "ten.txt", "offset", 3, "limit", 2), Map.of("path", "ten.txt", "offset", 9))));
    }

    @Test
    void anUnreadablePathIsItsOwnBlockAndTheOthersAreStillShown() throws Exception {
        file("ok.txt", "fine\n");
        Files.write(root.resolve("logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0});
        Files.createDirectories(root.resolve("dir"));
        String out = read(List.of(path("gone.txt"), path("ok.txt"), path("../outside.txt"), path("logo.png"),
                path("dir"), Map.of("path", "ok.txt", "offset", 5)));
        assertEquals("==> gone.txt <==\n[unreadable: No such file: gone.txt]\n\n"
                + "==> ok.txt <==\n[ok.txt: lines 1-1 of 1]\n1: fine\n\n"
                + "==> ../outside.txt <==\n[unreadable: Path escapes workspace: ../outside.txt]\n\n"
                + "==> logo.png <==\n[unreadable: logo.png is a binary file (it has a NUL byte in its first 8 KB); only "
                + "text files can be read]\n\n"
                + "==> dir <==\n[unreadable: dir is a directory, not a file. List it with glob or list_dir]\n\n"
                + "==> ok.txt <==\n[unreadable: offset 5 is past the end of ok.txt, which has 1 line]\n", out);
    }

    @Test
    void aSecretPathIsRefusedInItsBlockNeverReadAndLeftOutOfTheSubjects() throws Exception {
        file(".env", "PASSWORD=hunter2\n");
        file("config/prod.env", "TOKEN=abc\n");
        file("app.txt", "app\n");
        Files.createSymbolicLink(root.resolve("innocent.txt"), root.resolve(".env"));
        List<Map<String, Object>> files = List.of(path(".env"), path("app.txt"), path("config/prod.env"),
                path("innocent.txt"));
        String out = read(files);
        assertEquals("==> .env <==\n[refused: .env holds secrets by its name, so it was not read. Ask the user for the "
                + "value you need]\n\n"
                + "==> app.txt <==\n[app.txt: lines 1-1 of 1]\n1: app\n\n"
                + "==> config/prod.env <==\n[refused: config/prod.env holds secrets by its name, so it was not read. Ask "
                + "the user for the value you need]\n\n"
                + "==> innocent.txt <==\n[unreadable: innocent.txt is a link to .env, which holds secrets by its name; "
                + "it is not followed. Ask the user for the value you need]\n", out);
        assertTrue(!out.contains("hunter2"));
        Workspace workspace = context.workspace();
        ToolException unread = assertThrows(ToolException.class,
                () -> workspace.reads().requireFresh(workspace.resolve(".env")));
        assertEquals(".env has not been read in this session. Read it with read_file first.", unread.getMessage());
        assertEquals(List.of(Subject.path("app.txt"), Subject.path("innocent.txt")),
                tool.subjects(Arguments.of(Map.of("files", files))), "by name alone, the link is no secret");
        assertEquals(List.of(Subject.path("app.txt")), tool.subjects(Arguments.of(Map.of("files", files)), workspace),
                "where it leads, it is");
        assertEquals(List.of(Subject.path("../x.txt")), tool.subjects(Arguments.of(Map.of("files",
                List.of(path("../x.txt")))), workspace), "an escaping path stays a subject for the rules to see");
    }

    @Test
    void readFilesCountAsReadForTheReadBeforeWriteRule() throws Exception {
        file("a.txt", "alpha\n");
        file("b.txt", "beta\n");
        read(List.of(path("a.txt"), path("b.txt")));
        new EditFileTool().call(Arguments.of(Map.of("path", "b.txt", "oldString", "beta", "newString", "gamma")), context);
        assertEquals("gamma\n", Files.readString(root.resolve("b.txt")));
    }

    @Test
    void subjectsAreEveryPathAsWritten() throws ToolException {
        assertEquals(List.of(Subject.path("./a.txt"), Subject.path("src/B.java")),
                tool.subjects(Arguments.of(Map.of("files", List.of(path("./a.txt"), path("src/B.java"))))));
    }

    @Test
    void atMostTwentyFilesAndAtLeastOne() throws Exception {
        List<Map<String, Object>> many = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            many.add(path("f" + i + ".txt"));
        }
        assertEquals("files holds 21 entries; at most 20 can be read per call. Split them over several calls.",
                assertThrows(ToolException.class, () -> read(many)).getMessage());
        assertEquals("files is empty. Give at least one {\"path\": ...}.",
                assertThrows(ToolException.class, () -> read(List.of())).getMessage());
        assertEquals("Argument 'files[0]' must be an object, got the string \"a.txt\".",
                assertThrows(ToolException.class,
                        () -> tool.call(Arguments.of(Map.of("files", List.of("a.txt"))), context)).getMessage());
    }

    @Test
    void twentyFilesAreReadAndLargeOnesShareTheOutputSoNoneIsCutOffUnannounced() throws Exception {
        List<Map<String, Object>> files = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String lines = IntStream.rangeClosed(1, i < 2 ? 3000 : 3).mapToObj(n -> "line " + n + " " + "x".repeat(40))
                    .collect(Collectors.joining("\n"));
            file("f" + i + ".txt", lines);
            files.add(path("f" + i + ".txt"));
        }
        String out = read(files);
        assertTrue(out.length() <= ReadFileTool.OUTPUT_BUDGET, "length " + out.length());
        for (int i = 0; i < 20; i++) {
            assertTrue(out.contains("==> f" + i + ".txt <==\n"), "block " + i);
        }
        assertTrue(out.contains("[f0.txt: lines 1-"), out.substring(0, 200));
        assertTrue(out.contains(" of 3000; continue with offset "), "the cut blocks say where to continue");
        assertTrue(out.contains("[f19.txt: lines 1-3 of 3]\n1: line 1"), "small files are whole");
    }

    @Test
    void secretNamesAgreeWithTheWorkspace() throws Exception {
        Workspace workspace = context.workspace();
        for (String name : List.of(".env", "prod.env", ".env.local", ".env.production", ".env.example", ".env.sample",
                ".env.template", "id_rsa", "id_rsa.pub", "id_ed25519", "server.pem", "tls.key", "cert.p12", "a.pfx",
                ".netrc", ".pgpass", "keys.txt", "environment.ts", "ENV", "APP.ENV", "dir/.env", "README.md",
                "monkey", "x.keys", ".env.dist")) {
            assertEquals(workspace.isSecret(root.resolve(name)), SecretNames.isSecret(name), name);
        }
    }
}
