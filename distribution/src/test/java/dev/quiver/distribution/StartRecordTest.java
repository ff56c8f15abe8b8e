package dev.quiver.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What makes a {@link StartRecord} unusable, for both kinds that use it: an argument file, no
 * {@code HOME}, an input whose existence cannot be told, anything a killed process left for the next
 * start to act on, and another bwrap by its mode or owner.
 */
class StartRecordTest {

    private static final String FORMAT = "start record test 1";
    private static final List<String> FIELDS = List.of("answer");

    @TempDir
    Path temp;

    private Path home;
    private Path workspace;
    private Map<String, String> environment;
    private Map<String, String> properties;
    private final List<Path> locked = new java.util.ArrayList<>();

    @BeforeEach
    void installation() throws Exception {
        home = Files.createDirectories(temp.resolve("quiver"));
        Files.writeString(Files.createDirectories(home.resolve("bundle")).resolve("tools-1.0.jar"), "tools");
        workspace = Files.createDirectories(temp.resolve("ws"));
        environment = new HashMap<>(Map.of("HOME", temp.resolve("user").toString(), "XDG_STATE_HOME",
                temp.resolve("state").toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString()));
        properties = new TreeMap<>(Map.of("user.home", temp.resolve("jvm-home").toString()));
    }

    @AfterEach
    void unlock() throws IOException {
        for (Path folder : locked) {
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------")); // so @TempDir can go
        }
    }

    /** Whether this process runs as uid 0 (whatever its name), which /proc/self is owned by. */
    private static boolean root() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    private StartRecord.Inputs inputs(List<String> args) {
        return new StartRecord.Inputs(home, workspace, args, environment, List.of(home.resolve("bundle")), properties);
    }

    private Optional<StartRecord> record(String... args) throws IOException {
        return StartRecord.of("test", FORMAT, inputs(List.of(args)));
    }

    /** Writes a record for these inputs, as a run that ended cleanly does. */
    private void write(String answer) throws IOException {
        record("tools", "--json").orElseThrow().write(Map.of("answer", answer));
    }

    private Optional<String> read() throws IOException {
        return record("tools", "--json").orElseThrow().read(FIELDS).map(fields -> fields.get(0));
    }

    @Test
    void anArgumentFileIsNeverRecorded() throws Exception {
        Files.writeString(workspace.resolve("opts"), "--disallowedTools\nbash\n");
        // picocli reads the arguments from the file: the command line no longer says what the run is
        assertTrue(record("tools", "--json", "@opts").isEmpty());
        assertTrue(record("tools", "@opts", "--json").isEmpty());
        assertTrue(record("mcp", "@opts").isEmpty());
        assertTrue(record("tools", "--json").isPresent(), "without one it is");
    }

    @Test
    void noHomeMeansNoRecord() throws Exception {
        environment.put("HOME", "");
        assertTrue(record("tools", "--json").isEmpty(), "an empty HOME: the kernel's folders lie relative to the working folder");
        environment.remove("HOME");
        assertTrue(record("tools", "--json").isEmpty(), "no HOME");
    }

    @Test
    void aConfigWhoseExistenceCannotBeToldMakesTheRecordUnusable() throws Exception {
        write("recorded with no user config");
        assertEquals(Optional.of("recorded with no user config"), read());

        // a file where a folder of the path should be, and a loop of links: neither there nor absent
        Files.writeString(temp.resolve("config"), "not a folder");
        assertThrows(IOException.class, this::read, "a config path through a file");
        Files.delete(temp.resolve("config"));
        assertEquals(Optional.of("recorded with no user config"), read());

        Path loop = workspace.resolve(".mcp.json");
        Files.createSymbolicLink(loop, loop);
        assertThrows(IOException.class, this::read, "a config that is a loop of links");
        Files.delete(loop);
        assertEquals(Optional.of("recorded with no user config"), read());
    }

    @Test
    void aFolderThisUserCannotSearchMakesTheRecordUnusable() throws Exception {
        assumeFalse(root(), "root searches every folder");
        Path closed = Files.createDirectories(temp.resolve("closed/config"));
        environment.put("XDG_CONFIG_HOME", closed.toString());
        write("recorded with no user config");
        assertEquals(Optional.of("recorded with no user config"), read());

        // as /etc/quiver made 700 by root: the kernel refuses to start, the record may not stand for "absent"
        Files.setPosixFilePermissions(closed.getParent(), PosixFilePermissions.fromString("---------"));
        locked.add(closed.getParent());
        assertThrows(IOException.class, this::read);
    }

    @Test
    void aChangeJournalKeepsTheRecordAwayEvenWhileItsProcessLives() throws Exception {
        Path changes = Files.createDirectories(temp.resolve("user/.local/share/quiver/sessions").resolve("ws-"
                + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(
                        workspace.toRealPath().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0, 6))
                .resolve("state/changes"));
        write("before");
        assertEquals(Optional.of("before"), read());

        // a change under way in a live process: its recovery skips the file, so the run would be recorded
        Path pending = changes.resolve("20261207-1-ab.pending");
        try (FileChannel channel = FileChannel.open(pending, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            assertThrows(IOException.class, () -> record("tools", "--json"), "a record to read");
            assertThrows(IOException.class, () -> write("with a change under way"));
        }
        // its process is gone and the journal stays: the next start rolls it back, no record may answer
        assertThrows(IOException.class, this::read);
        Files.writeString(changes.resolve("20261207-1-ab.journal"), "x");
        Files.delete(pending);
        assertThrows(IOException.class, this::read, "anything in the journal folder");
        Files.delete(changes.resolve("20261207-1-ab.journal"));
        assertEquals(Optional.of("before"), read(), "nothing was recorded while the journal was there");
    }

    @Test
    void theShellsCommandJournalsKeepTheRecordAway() throws Exception {
        write("before");
        Path shell = Files.createDirectories(temp.resolve("state/quiver/shell"));
        Files.writeString(shell.resolve("commands-999999-123.txt"), "tag 5\n");
        assertThrows(IOException.class, this::read, "a crashed run's commands, killed by the next live start");
        Files.delete(shell.resolve("commands-999999-123.txt"));
        Files.writeString(shell.resolve("commands-999999-123.lock"), "");
        assertThrows(IOException.class, this::read, "a lock whose journal was never written");
        Files.delete(shell.resolve("commands-999999-123.lock"));
        assertEquals(Optional.of("before"), read());

        // as the shell finds its folder: a relative XDG_STATE_HOME is not used, the JVM's user.home is
        environment.put("XDG_STATE_HOME", "relative/state");
        Path byHome = Files.createDirectories(temp.resolve("jvm-home/.local/state/quiver/shell"));
        assertEquals(byHome, StartRecord.shellJournals(environment, properties));
        Files.writeString(byHome.resolve("commands-999999-123.txt"), "tag 5\n");
        assertThrows(IOException.class, () -> record("tools", "--json"));
    }

    /**
     * Whether the CDS archive mapped at this start ({@code java.vm.info}: "mixed mode, sharing" or "mixed
     * mode") is no input: with {@code -Xshare:auto} it varies between identical starts, and keyed it
     * made records miss at random and be written under keys no later start computed.
     */
    @Test
    void whetherTheClassDataArchiveMappedIsNoInput() throws Exception {
        properties.put("java.vm.info", "mixed mode, sharing");
        write("before");
        properties.put("java.vm.info", "mixed mode");
        assertEquals(Optional.of("before"), read());
        // any other property is an input (a -D in QUIVER_JAVA_OPTS can change what a run prints)
        properties.put("quiver.some.option", "on");
        assertFalse(read().isPresent());
    }

    /**
     * A journal under this process's pid is never opened while the record is worked out: closing any
     * descriptor of the file would drop the lock the shell holds on it, and the next Quiver start would
     * take this process for crashed and kill its commands (review). Nor is it skipped: under a reused pid
     * it is a dead run's, which a live start must clean up, so there is no record.
     */
    @Test
    void workingOutARecordLeavesThisProcesssOwnJournalLocked() throws Exception {
        write("before");
        Path shell = Files.createDirectories(temp.resolve("state/quiver/shell"));
        String own = "commands-" + ProcessHandle.current().pid() + "-1";
        Files.writeString(shell.resolve(own + ".txt"), "tag 5\n");
        Path lockFile = Files.writeString(shell.resolve(own + ".lock"), "");
        Path probe = Files.writeString(temp.resolve("Probe.java"), """
                import java.nio.channels.FileChannel;
                import java.nio.file.*;
                public class Probe {
                    public static void main(String[] args) throws Exception {
                        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
                            var lock = channel.tryLock();
                            System.out.println(lock == null ? "held" : "free");
                        }
                    }
                }
                """);
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            // this process's own, or a dead run's under the same pid: no record, and the lock is not touched
            assertThrows(IOException.class, this::read, "a journal under this process's pid");
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    probe.toString(), lockFile.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String seen = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, process.waitFor());
            assertEquals("held", seen.strip(), "the lock survives the record's look at the folder");
        }
    }

    /**
     * The journal of a Quiver process running beside this one is no leftover: its process holds the lock
     * (the MCP start bench found every record refused while the previous server was still ending).
     */
    @Test
    void theCommandJournalOfARunningProcessDoesNotKeepTheRecordAway() throws Exception {
        write("before");
        Path shell = Files.createDirectories(temp.resolve("state/quiver/shell"));
        Path journal = Files.writeString(shell.resolve("commands-999999-123.txt"), "tag 5\n");
        Path lock = Files.writeString(shell.resolve("commands-999999-123.lock"), "");
        Path holder = Files.writeString(temp.resolve("Hold.java"), """
                import java.nio.channels.FileChannel;
                import java.nio.file.*;
                public class Hold {
                    public static void main(String[] args) throws Exception {
                        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE);
                                var lock = channel.lock()) {
                            System.out.println("locked");
                            System.out.flush();
                            System.in.read();
                        }
                    }
                }
                """);
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                holder.toString(), lock.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            assertEquals("locked", new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream()))
                    .readLine());
            assertEquals(Optional.of("before"), read(), "a running process's journal");
        } finally {
            process.getOutputStream().close();
            process.waitFor();
        }
        assertThrows(IOException.class, this::read, "the same journal once its process has ended");
        Files.delete(journal);
        Files.delete(lock);
        assertEquals(Optional.of("before"), read());
    }

    @Test
    void anotherModeOrOwnerOfBwrapMakesTheRecordStale() throws Exception {
        Path bin = Files.createDirectories(temp.resolve("bin"));
        Path bwrap = Files.writeString(bin.resolve("bwrap"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(bwrap, PosixFilePermissions.fromString("rwxr-xr-x"));
        environment.put("PATH", bin.toString());
        write("with bwrap 755");
        assertEquals(Optional.of("with bwrap 755"), read());
        long modified = Files.getLastModifiedTime(bwrap).toMillis();

        // setuid root is what lets bwrap sandbox where user namespaces are off: another sandbox state
        Files.setAttribute(bwrap, "unix:mode", 04755);
        assertEquals(modified, Files.getLastModifiedTime(bwrap).toMillis(), "size and time as they were");
        assertFalse(read().isPresent(), "a setuid bwrap");
        write("with bwrap 4755");
        assertEquals(Optional.of("with bwrap 4755"), read());

        if (root()) {
            Files.setAttribute(bwrap, "unix:uid", 1);
            assertFalse(read().isPresent(), "a bwrap of another owner");
            Files.setAttribute(bwrap, "unix:uid", 0);
            Files.setAttribute(bwrap, "unix:gid", 1);
            assertFalse(read().isPresent(), "a bwrap of another group");
        }
    }
}
