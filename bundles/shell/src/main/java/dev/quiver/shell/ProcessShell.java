package dev.quiver.shell;

import dev.quiver.api.Shell;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Component;

/**
 * The {@link Shell} service: {@code setsid bash -lc COMMAND} in the workspace root, stdin closed,
 * both pipes drained by their own threads, the whole process group killed on timeout, cancellation
 * and at the end of every command, so nothing a command started outlives it.
 */
@Component(service = Shell.class)
public class ProcessShell implements Shell {

    /** Bytes kept from the start of each stream. */
    static final int HEAD_BYTES = 8 * 1024;
    /** Bytes kept from the end of each stream, where errors usually are. */
    static final int TAIL_BYTES = 6 * 1024;
    private static final long POLL_MILLIS = 20;
    /** How long the drains may take after the process tree is gone before the pipes are abandoned. */
    private static final long DRAIN_GRACE_MILLIS = 2000;

    @Override
    public Result run(Command command, ToolContext context) throws ToolException {
        ProcessBuilder builder = new ProcessBuilder(List.of("setsid", "bash", "-lc", command.line()))
                .directory(context.workspace().root().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> environment = builder.environment();
        // pagers and editors would wait for a terminal that is not there
        environment.put("PAGER", "cat");
        environment.put("GIT_PAGER", "cat");
        environment.put("GIT_TERMINAL_PROMPT", "0");
        environment.putIfAbsent("TERM", "dumb");
        long started = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ToolException("Could not start bash: " + e.getMessage()
                    + ". bash and setsid must be installed and on PATH.", e);
        }
        OutputCapture stdout = new OutputCapture(HEAD_BYTES, TAIL_BYTES, context::stream);
        OutputCapture stderr = new OutputCapture(HEAD_BYTES, TAIL_BYTES, context::stream);
        Thread outDrain = drain(process.getInputStream(), stdout, "stdout");
        Thread errDrain = drain(process.getErrorStream(), stderr, "stderr");

        Result.End end = waitFor(process, command.timeout(), context, started);
        ProcessGroups.kill(process.toHandle());
        join(outDrain, errDrain);
        closeQuietly(process);
        int exitCode = end == Result.End.EXITED ? process.exitValue() : -1;
        return new Result(end, exitCode, stdout.text(), stderr.text(), Duration.ofNanos(System.nanoTime() - started));
    }

    private static Result.End waitFor(Process process, Duration timeout, ToolContext context, long started) {
        long deadline = started + timeout.toNanos();
        try {
            while (true) {
                if (process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    return Result.End.EXITED;
                }
                if (context.isCancelled()) {
                    return Result.End.CANCELLED;
                }
                if (System.nanoTime() - deadline >= 0) {
                    return Result.End.TIMED_OUT;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.End.CANCELLED;
        }
    }

    private static Thread drain(InputStream in, OutputCapture capture, String name) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (in) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    capture.accept(buffer, read);
                }
            } catch (IOException closed) {
                // the pipe was closed under us after the process tree was killed
            }
        }, "quiver-shell-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void join(Thread... drains) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_GRACE_MILLIS);
        boolean interrupted = false;
        for (Thread drain : drains) {
            while (drain.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    drain.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Process process) {
        for (java.io.Closeable stream : new java.io.Closeable[] {process.getInputStream(), process.getErrorStream(),
                process.getOutputStream()}) {
            try {
                stream.close();
            } catch (IOException ignored) {
                // nothing left to read from it
            }
        }
    }
}
