package dev.quiver.workspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace.TextFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceFilesTest {

    @TempDir
    Path dir;

    JailedWorkspace workspace;
    Path root;

    @BeforeEach
    void open() throws IOException {
        workspace = JailedWorkspace.open(dir);
        root = workspace.root();
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> list = Files.list(directory)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void nulByteInTheFirst8KbMarksAFileBinaryAndRefusesIt() throws IOException {
        byte[] bytes = new byte[8192];
        Arrays.fill(bytes, (byte) 'a');
        bytes[8191] = 0;
        Files.write(root.resolve("image.png"), bytes);
        ToolException error = assertThrows(ToolException.class, () -> workspace.readText(root.resolve("image.png")));
        assertEquals("image.png is a binary file (it has a NUL byte in its first 8 KB); only text files can be read.",
                error.getMessage());
    }

    @Test
    void nulByteAfterTheFirst8KbDoesNotMakeAFileBinary() throws IOException, ToolException {
        byte[] bytes = new byte[8193];
        Arrays.fill(bytes, (byte) 'b');
        bytes[8192] = 0;
        Files.write(root.resolve("late-nul.txt"), bytes);
        TextFile text = workspace.readText(root.resolve("late-nul.txt"));
        assertEquals(8193, text.text().length());
        assertEquals('\0', text.text().charAt(8192));
        assertEquals(8193, text.bytes());
    }

    @Test
    void validUtf8IsReadAsUtf8() throws IOException, ToolException {
        String content = "h\u00e9llo \u20ac \u4e16\u754c\n";
        Files.writeString(root.resolve("u.txt"), content, StandardCharsets.UTF_8);
        TextFile text = workspace.readText(root.resolve("u.txt"));
        assertEquals(content, text.text());
        assertEquals(StandardCharsets.UTF_8, text.charset());
        assertEquals(content.getBytes(StandardCharsets.UTF_8).length, text.bytes());
    }

    @Test
    void invalidUtf8IsReadAsLatin1SoEveryByteRoundTrips() throws IOException, ToolException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes("caf\u00e9 is Latin-1 here: ".getBytes(StandardCharsets.ISO_8859_1));
        for (int b = 1; b < 256; b++) {
            all.write(b);
        }
        byte[] bytes = all.toByteArray();
        Files.write(root.resolve("legacy.txt"), bytes);
        TextFile text = workspace.readText(root.resolve("legacy.txt"));
        assertEquals(StandardCharsets.ISO_8859_1, text.charset());
        assertTrue(text.text().startsWith("caf\u00e9 is Latin-1 here: "), text.text());
        assertArrayEquals(bytes, text.text().getBytes(text.charset()));

        workspace.write(root.resolve("legacy.txt"), text.text().getBytes(text.charset()));
        assertArrayEquals(bytes, Files.readAllBytes(root.resolve("legacy.txt")));
    }

    @Test
    void readingADirectoryOrAMissingFileExplainsWhatIsWrong() throws IOException {
        Files.createDirectories(root.resolve("src"));
        assertTrue(assertThrows(ToolException.class, () -> workspace.readText(root.resolve("src")))
                .getMessage().startsWith("src is a directory"));
        assertEquals("No such file: src/Missing.java",
                assertThrows(ToolException.class, () -> workspace.readText(root.resolve("src/Missing.java")))
                        .getMessage());
    }

    @Test
    void isBinaryProbeReadsOnlyTheStartOfAFile() throws IOException {
        byte[] bytes = new byte[20000];
        Arrays.fill(bytes, (byte) 'x');
        bytes[15000] = 0;
        Files.write(root.resolve("late.bin"), bytes);
        bytes[100] = 0;
        Files.write(root.resolve("early.bin"), bytes);
        assertEquals(false, workspace.isBinary(root.resolve("late.bin")));
        assertEquals(true, workspace.isBinary(root.resolve("early.bin")));
    }

    @Test
    void writeKeepsTheExecutablePermissionsOfTheReplacedFile() throws IOException {
        Path script = root.resolve("run.sh");
        Files.writeString(script, "#!/bin/sh\necho old\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        workspace.write(script, "#!/bin/sh\necho new\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("#!/bin/sh\necho new\n", Files.readString(script));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
    }

    @Test
    void writeKeepsRestrictivePermissionsOfTheReplacedFile() throws IOException {
        Path secret = root.resolve("private.conf");
        Files.writeString(secret, "TOKEN=1\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        workspace.write(secret, "TOKEN=2\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
    }

    @Test
    void newFileGetsTheUsualPermissionsNotTheTemporaryFilesOwnerOnlyOnes() throws IOException {
        Path created = root.resolve("new.txt");
        workspace.write(created, "hello\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(created)));
    }

    @Test
    void writeCreatesMissingParentDirectories() throws IOException {
        Path deep = root.resolve("a/b/c/deep.txt");
        workspace.write(deep, "deep\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("deep\n", Files.readString(deep));
    }

    @Test
    void writeLeavesNoTemporaryFilesBehind() throws IOException {
        Files.writeString(root.resolve("keep.txt"), "old");
        workspace.write(root.resolve("keep.txt"), "new".getBytes(StandardCharsets.UTF_8));
        workspace.write(root.resolve("made.txt"), "made".getBytes(StandardCharsets.UTF_8));
        workspace.write(root.resolve("sub/inner.txt"), "inner".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("keep.txt", "made.txt", "sub"), names(root));
        assertEquals(List.of("inner.txt"), names(root.resolve("sub")));
    }

    @Test
    void replacingAFileSwapsInANewFileSoAnOpenReaderKeepsTheOldContent() throws IOException {
        Path file = root.resolve("data.txt");
        String old = "old line\n".repeat(1000);
        Files.writeString(file, old);
        Object inodeBefore = Files.getAttribute(file, "unix:ino");
        try (InputStream reader = Files.newInputStream(file)) {
            workspace.write(file, "new\n".getBytes(StandardCharsets.UTF_8));
            // an in-place rewrite would truncate what the reader sees; a rename leaves it the old file
            assertEquals(old, new String(reader.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertEquals("new\n", Files.readString(file));
        assertTrue(!inodeBefore.equals(Files.getAttribute(file, "unix:ino")), "the file was replaced, not rewritten");
    }

    @Test
    void writingThroughASymlinkReplacesTheTargetAndKeepsTheLink() throws IOException {
        Path target = root.resolve("real.txt");
        Files.writeString(target, "old");
        Path link = Files.createSymbolicLink(root.resolve("link.txt"), target);
        workspace.write(link, "new".getBytes(StandardCharsets.UTF_8));
        assertTrue(Files.isSymbolicLink(link));
        assertEquals("new", Files.readString(target));
    }

    @Test
    void createLinkMakesTheLinkItselfAndItsFolders() throws IOException {
        Files.writeString(root.resolve("real.txt"), "real");
        Path link = root.resolve("a/b/link.txt");
        workspace.createLink(link, Path.of("../../real.txt"));
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(Path.of("../../real.txt"), Files.readSymbolicLink(link));
        assertEquals("real", Files.readString(link));
        IOException again = assertThrows(IOException.class, () -> workspace.createLink(link, Path.of("x")));
        assertTrue(again instanceof java.nio.file.FileAlreadyExistsException, again.toString());
    }

    @Test
    void createLinkRefusesALinkOutOfTheWorkspaceOrToASecretAndMakesNothing() throws IOException {
        IOException out = assertThrows(IOException.class,
                () -> workspace.createLink(root.resolve("sub/out"), Path.of("../../elsewhere")));
        assertTrue(out.getMessage().contains("would lead out of the workspace"), out.getMessage());
        IOException absolute = assertThrows(IOException.class,
                () -> workspace.createLink(root.resolve("etc"), Path.of("/etc/passwd")));
        assertTrue(absolute.getMessage().contains("would lead out of the workspace"), absolute.getMessage());
        IOException secret = assertThrows(IOException.class,
                () -> workspace.createLink(root.resolve("config.txt"), Path.of(".env")));
        assertTrue(secret.getMessage().contains("holds secrets by its name"), secret.getMessage());
        IOException protectedFolder = assertThrows(IOException.class,
                () -> workspace.createLink(root.resolve(".git/hooks/pre-commit"), Path.of("../../x")));
        assertTrue(protectedFolder.getMessage().contains(".git folder"), protectedFolder.getMessage());
        assertEquals(List.of(), names(root));
    }

    @Test
    void createLinkJudgesTheTargetFromTheFolderTheLinkIsReallyMadeIn() throws IOException {
        Files.createSymbolicLink(root.resolve("here"), Path.of(".")); // here/l is made in the root itself
        IOException out = assertThrows(IOException.class,
                () -> workspace.createLink(root.resolve("here/l"), Path.of("../x")));
        assertTrue(out.getMessage().contains("would lead out of the workspace"), out.getMessage());
        assertFalse(Files.exists(root.resolve("l"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        workspace.createLink(root.resolve("here/in"), Path.of("x")); // leads inside: made, in the root
        assertEquals(Path.of("x"), Files.readSymbolicLink(root.resolve("in")));
    }

    @Test
    void aHeldFolderOpensAPlainNameAndAPathBelowItAlikeAndNoPathOutOfTheWorkspace() throws Exception {
        Files.writeString(root.resolve("a.txt"), "plain");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/b.txt"), "below");
        Files.createSymbolicLink(root.resolve("link.txt"), root.resolve("sub/b.txt"));
        try (dev.quiver.api.Workspace.Folder folder = workspace.openFolder(root)) {
            for (String[] nameAndText : new String[][] {{"a.txt", "plain"}, {"sub/b.txt", "below"}, {"link.txt", "below"}}) {
                try (java.nio.channels.SeekableByteChannel file = folder.openRead(nameAndText[0])) {
                    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
                    file.read(bytes);
                    assertEquals(nameAndText[1], new String(bytes.array(), 0, bytes.position(),
                            java.nio.charset.StandardCharsets.UTF_8), nameAndText[0]);
                }
            }
            assertThrows(java.nio.file.NoSuchFileException.class, () -> folder.openRead("missing.txt"));
            Files.writeString(dir.getParent().resolve(dir.getFileName() + "-outside.txt"), "outside");
            IOException out = assertThrows(IOException.class,
                    () -> folder.openRead("../" + dir.getFileName() + "-outside.txt"));
            assertTrue(out.getMessage().contains("leads out of the workspace"), out.getMessage());
            try (java.nio.channels.SeekableByteChannel file = folder.openRead("sub/../a.txt")) {
                assertEquals(5, file.size());
            }
            IOException folderItself = assertThrows(IOException.class, () -> folder.openRead("sub"));
            assertTrue(folderItself.getMessage().contains("is a folder"), folderItself.getMessage());
        }
    }

    @Test
    void aPipeInAHeldFolderIsNeverOpened() throws Exception {
        Files.writeString(root.resolve("a.txt"), "a");
        Process mkfifo = new ProcessBuilder("mkfifo", root.resolve("pipe").toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            try (dev.quiver.api.Workspace.Folder folder = workspace.openFolder(root)) {
                IOException pipe = assertThrows(IOException.class, () -> folder.openRead("pipe"));
                assertTrue(pipe.getMessage().contains("not a regular file"), pipe.getMessage());
                try (java.nio.channels.SeekableByteChannel file = folder.openRead("a.txt")) {
                    assertEquals(1, file.size());
                }
            }
        });
    }

    @Test
    void writeStoresTheExactBytes() throws IOException {
        byte[] bytes = new byte[256];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        workspace.write(root.resolve("all.bin"), bytes);
        assertArrayEquals(bytes, Files.readAllBytes(root.resolve("all.bin")));
        workspace.write(root.resolve("all.bin"), new byte[0]);
        assertEquals(0, Files.size(root.resolve("all.bin")));
    }

    @Test
    void aNamedPipeIsRefusedInsteadOfBlockingTheRead() throws Exception {
        Path fifo = dir.resolve("pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        ToolException error = assertThrows(ToolException.class, () -> workspace.readText(fifo));
        assertEquals("pipe is not a regular file (a pipe, socket or device); it cannot be read.", error.getMessage());
    }

    @Test
    void secretFileNamesAreRecognisedAndTemplatesAreNot() {
        for (String name : List.of(".env", "prod.env", ".env.local", ".ENV", "server.pem", "tls.key", "a.p12", "b.pfx",
                "id_rsa", "id_ed25519", "id_ecdsa", ".netrc", ".pgpass")) {
            assertTrue(workspace.isSecret(dir.resolve("sub").resolve(name)), name);
        }
        for (String name : List.of(".env.example", ".env.sample", ".env.template", "id_rsa.pub", "environment.ts",
                ".envrc", "keys.txt", "README.md")) {
            assertFalse(workspace.isSecret(dir.resolve(name)), name);
        }
    }
}
