import dev.quiver.api.Shell;
import dev.quiver.api.ToolContext;
import dev.quiver.api.Workspace;
import dev.quiver.shell.ProcessShell;
import dev.quiver.workspace.WorkspaceFactoryComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overhead of the Shell service for {@code true}: with and without the sandbox, against spawning
 * {@code bash -lc true} directly, and with a workspace of 100,000 files (secret masking). Run through
 * bench/shell-overhead.sh; prints a Markdown table.
 */
public final class ShellOverhead {

    private ShellOverhead() {
    }

    /** A context with a workspace and a "shell" config; output is dropped. */
    record Context(Workspace workspace, Object shell) implements ToolContext {
        public Optional<Object> config(String key) {
            return key.equals("shell") ? Optional.ofNullable(shell) : Optional.empty();
        }

        public void stream(String text) {
        }

        public java.util.Map<String, String> environment() {
            return System.getenv();
        }

        public boolean isCancelled() {
            return false;
        }
    }

    interface Run {
        void once() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[0]);
        Path small = Files.createTempDirectory("quiver-bench-small");
        Path big = Path.of(args[1]);
        Shell shell = new ProcessShell();
        Shell.Command command = new Shell.Command("true", Duration.ofSeconds(60));
        Context off = new Context(new WorkspaceFactoryComponent().open(small), Map.of("sandbox", "off"));
        Context sandboxed = new Context(new WorkspaceFactoryComponent().open(small), null);
        Context bigSandboxed = new Context(new WorkspaceFactoryComponent().open(big), null);
        System.out.println("| variant | median ms | min ms | max ms | mean ms |");
        System.out.println("|---|---|---|---|---|");
        measure("`bash -lc true` spawned directly (ProcessBuilder, output discarded)", runs, () ->
                new ProcessBuilder("bash", "-lc", "true").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start().waitFor());
        measure("`bwrap ... bash -lc true` spawned directly (the sandbox's own cost)", runs, () ->
                new ProcessBuilder("bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "bash", "-lc",
                        "true").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start().waitFor());
        long profiled = System.nanoTime();
        check(shell.run(command, off));
        System.out.printf("| Shell.run `true`, sandbox off: first command (runs the login profile, once per process) "
                + "| %d | | | |%n", (System.nanoTime() - profiled) / 1_000_000);
        measure("Shell.run `true`, sandbox off: later commands", runs, () -> check(shell.run(command, off)));
        measure("Shell.run `true`, sandboxed (bubblewrap)", runs, () -> check(shell.run(command, sandboxed)));
        long first = System.nanoTime();
        check(shell.run(command, bigSandboxed));
        System.out.printf("| Shell.run `true`, sandboxed, 100,000-file workspace: first command (walks the tree) "
                + "| %d | | | |%n", (System.nanoTime() - first) / 1_000_000);
        measure("Shell.run `true`, sandboxed, 100,000-file workspace: later commands", runs,
                () -> check(shell.run(command, bigSandboxed)));
    }

    private static void check(Shell.Result result) {
        if (result.exitCode() != 0) {
            throw new IllegalStateException("true failed: " + result);
        }
    }

    private static void measure(String name, int runs, Run run) throws Exception {
        run.once(); // warm the page cache and the JIT's first pass
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            run.once();
            times.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(times);
        double mean = times.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        System.out.printf("| %s | %.1f | %.1f | %.1f | %.1f |%n", name, times.get(times.size() / 2), times.get(0),
                times.get(times.size() - 1), mean);
    }
}
