package dev.quiver.shell;

import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** A real workspace, streamed text collected (or only counted, for huge output), and a cancel flag. */
final class TestContext implements ToolContext {

    /** Configuration keys as a config file would set them. */
    final java.util.Map<String, Object> config = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * An empty home for every test's commands: the developer's own login profile (pyenv's rehash
     * waits 60 s for a lock a killed run left) must not decide whether, or how fast, a test runs.
     */
    private static final Path EMPTY_HOME = emptyHome();

    /**
     * The environment the kernel would hand the shell: this process's with {@link #EMPTY_HOME} as
     * {@code HOME}, unless a test changes it.
     */
    final java.util.Map<String, String> environment = new java.util.HashMap<>(System.getenv());

    {
        environment.put("HOME", EMPTY_HOME.toString());
    }

    private final Workspace workspace;
    private final boolean keepStreamedText;
    private final StringBuilder streamed = new StringBuilder();
    private final AtomicLong streamedChars = new AtomicLong();
    final AtomicBoolean cancelled = new AtomicBoolean();

    private TestContext(Workspace workspace, boolean keepStreamedText) {
        this.workspace = workspace;
        this.keepStreamedText = keepStreamedText;
    }

    private static Path emptyHome() {
        try {
            Path home = java.nio.file.Files.createTempDirectory("quiver-test-home-");
            home.toFile().deleteOnExit();
            return home;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static TestContext in(Path directory) throws IOException {
        return new TestContext(new WorkspaceFactoryComponent().open(directory), true);
    }

    static TestContext countingOnly(Path directory) throws IOException {
        return new TestContext(new WorkspaceFactoryComponent().open(directory), false);
    }

    /** Sets the {@code "shell"} configuration key, as a config file would. */
    TestContext shellConfig(Object value) {
        config.put("shell", value);
        return this;
    }

    /** Sets a variable of the environment, as the kernel would pass it. */
    TestContext env(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** {@code "shell": {"sandbox": "off"}}. */
    TestContext unsandboxed() {
        return shellConfig(java.util.Map.of("sandbox", "off"));
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public void stream(String text) {
        streamedChars.addAndGet(text.length());
        if (keepStreamedText) {
            synchronized (streamed) {
                streamed.append(text);
            }
        }
    }

    @Override
    public java.util.Optional<Object> config(String key) {
        return java.util.Optional.ofNullable(config.get(key));
    }

    @Override
    public java.util.Map<String, String> environment() {
        return java.util.Map.copyOf(environment);
    }

    @Override
    public boolean isCancelled() {
        return cancelled.get();
    }

    String streamed() {
        synchronized (streamed) {
            return streamed.toString();
        }
    }

    long streamedChars() {
        return streamedChars.get();
    }
}
