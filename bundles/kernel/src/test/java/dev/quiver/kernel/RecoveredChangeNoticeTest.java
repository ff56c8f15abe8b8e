package dev.quiver.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.kernel.conversation.SessionStore;
import dev.quiver.testing.OpenAiStub;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change a killed process left half done in the workspace's state folder (the one the kernel opens
 * the workspace with) is rolled back as the session opens, and the session's start-up warnings say so.
 */
class RecoveredChangeNoticeTest {

    @TempDir
    Path temp;

    private Framework framework;

    @BeforeEach
    void setUp() throws Exception {
        framework = new Framework();
    }

    @AfterEach
    void tearDown() throws Exception {
        framework.close();
    }

    @Test
    void aRolledBackChangeIsAStartUpWarning() throws Exception {
        Path root = Files.createDirectories(temp.resolve("workspace")).toRealPath();
        Map<String, String> environment = StubSessions.environment(temp);
        Path state = SessionStore.fromEnvironment(environment).stateFolder(root);
        // what a process killed while staging a patch leaves: a temporary, listed in a pending file nobody holds
        Path staged = root.resolve(".a.txt.0123456789abcdef.quiver-tmp");
        Files.writeString(staged, "half staged\n");
        Path changes = Files.createDirectories(state.resolve("changes"));
        Files.writeString(changes.resolve("1-dead.pending"), "apply_patch\t1700000000000\n" + staged + "\n");

        try (OpenAiStub model = OpenAiStub.start()) {
            KernelSession session = StubSessions.open(new WorkspaceFactoryComponent().open(root, state), environment,
                    framework, model, true);
            assertTrue(session.warnings().stream().anyMatch(warning ->
                    warning.matches("An interrupted apply_patch \\(.+\\) was rolled back: no file changed\\.")),
                    session.warnings().toString());
            assertFalse(Files.exists(staged), "the killed change's temporary is still there");
        }
    }
}
