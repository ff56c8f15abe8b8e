package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Tool;
import dev.quiver.api.host.Approval;
import dev.quiver.api.host.ApprovalRequest;
import dev.quiver.api.host.CallOutcome;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.TurnListener;
import dev.quiver.api.host.UndoReport;
import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.testing.FileTrees;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.tools.edit.plus.DeleteFileTool;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * delete_file's recursive delete in a real {@link KernelSession}: undone through the session's
 * checkpoints, every file comes back byte for byte with its mode, and a folder holding a secret goes
 * only where the user's permission rules allow delete_file on that secret.
 */
class DeleteFolderUndoTest {

    @TempDir
    Path temp;

    private Path root;
    private Map<String, String> environment;
    private Framework framework;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        environment = StubSessions.environment(temp);
        framework = new Framework();
        framework.register(new DeleteFileTool(), "delete_file", "write", Tool.SET, "edit-plus", Tool.PREVIEW, "true");
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    private Path write(String path, byte[] content) throws Exception {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        return Files.write(file, content);
    }

    /** Everything under the root: each file's bytes and mode, each link's text, each folder. */
    private Map<String, String> tree() throws Exception {
        return FileTrees.of(root, relative -> true);
    }

    @Test
    void undoBringsBackEveryFileOfAFolderDeletedRecursivelyByteForByte() throws Exception {
        write("src/Main.java", "public class Main {}\n".getBytes());
        write("src/lib/table.bin", new byte[] {0, 1, 2, (byte) 0xff, '\r', '\n'});
        write("src/lib/deep/empty.txt", new byte[0]);
        Path script = write("src/run.sh", "#!/bin/sh\necho hi\n".getBytes());
        // checkpoints hold files as git does: the executable bit, not other mode bits, and no empty folder
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(root.resolve("src/link"), Path.of("Main.java"));
        write("keep.txt", "not in the folder\n".getBytes());
        Map<String, String> before = tree();
        try (OpenAiStub model = OpenAiStub.start(
                OpenAiStub.calls(OpenAiStub.call("delete_file", "{\"path\":\"src\",\"recursive\":true}")),
                OpenAiStub.text("Deleted."));
                KernelSession session = StubSessions.open(root, environment, framework, model, true)) {
            session.send("delete src", new TurnListener() { });
            assertFalse(Files.exists(root.resolve("src"), LinkOption.NOFOLLOW_LINKS), "the tool deleted the folder");

            UndoReport report = session.undo(1, false);

            assertTrue(report.applied());
            assertEquals(List.of("src/Main.java", "src/lib/deep/empty.txt", "src/lib/table.bin", "src/link",
                    "src/run.sh"), report.restored().stream().map(UndoReport.Change::path).sorted().toList());
            assertEquals(before, tree(), "every file, link, folder and executable bit as it was");
        }
    }

    /** Approves every call once, as a user answering "yes" would, and records what was asked. */
    private static final class Approving implements TurnListener {
        final List<String> asked = new ArrayList<>();

        @Override
        public Approval approve(ApprovalRequest request) {
            asked.add(request.toString());
            return Approval.once();
        }
    }

    private CallOutcome deleteConf(String rules) throws Exception {
        Path config = Config.userConfigFile(environment).orElseThrow();
        Files.createDirectories(config.getParent());
        Files.writeString(config, "{\"permission\": {\"delete_file\": " + rules + "}}\n");
        SessionOptions options = new SessionOptions(root, Optional.empty(), false, true, false, Optional.empty(),
                Optional.empty(), Optional.empty());
        try (KernelSession session = new KernelSession(new WorkspaceFactoryComponent().open(root), options,
                Config.load(Optional.empty(), root, environment), framework.registry, name -> Optional.empty(), List::of,
                SessionStore.fromEnvironment(environment), tool -> false, () -> { })) {
            return session.call("delete_file", "{\"path\":\"conf\",\"recursive\":true}", new Approving());
        }
    }

    @Test
    void aFolderHoldingASecretGoesOnlyWhereTheRulesAllowDeletingThatSecret() throws Exception {
        write("conf/app.yml", "a: 1\n".getBytes());
        write("conf/.env", "KEY=1\n".getBytes());
        Map<String, String> before = tree();

        // the user approves the call, but no rule speaks for the secret: refused, nothing deleted
        CallOutcome approved = deleteConf("{\"conf\": \"allow\", \"conf/app.yml\": \"allow\"}");
        assertEquals(CallOutcome.Status.ERROR, approved.status(), approved.output());
        assertTrue(approved.output().contains("conf holds files with secrets by their name (conf/.env); delete_file "
                + "deletes a folder holding one only where the permission rules allow delete_file on them without "
                + "asking."), approved.output());
        assertEquals(before, tree());

        // a rule that names the secret lets the folder go
        CallOutcome allowed = deleteConf("{\"conf\": \"allow\", \"conf/app.yml\": \"allow\", \"conf/.env\": \"allow\"}");
        assertEquals(CallOutcome.Status.OK, allowed.status(), allowed.output());
        assertFalse(Files.exists(root.resolve("conf"), LinkOption.NOFOLLOW_LINKS));
    }
}
