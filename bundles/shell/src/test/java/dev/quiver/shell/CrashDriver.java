package dev.quiver.shell;

import dev.quiver.api.Shell;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A Quiver stand-in for {@link BackgroundTest}: in a JVM of its own, starts a background command and
 * a foreground one, says so, and waits to be killed: with SIGKILL, as a crash would end it, or with
 * SIGTERM, which ends the JVM without stopping any framework.
 *
 * <p>Arguments: state folder, workspace, sandbox setting, marker for the commands' command lines, and
 * optionally the background command's line.
 */
public final class CrashDriver {

    private CrashDriver() {
    }

    public static void main(String[] args) throws Exception {
        ProcessShell shell = new ProcessShell(Path.of(args[0]), System.getenv("PATH"));
        shell.activate();
        TestContext context = TestContext.in(Path.of(args[1])).shellConfig(Map.of("sandbox", args[2]));
        String marker = args[3];
        String background = args.length > 4 ? args[4] : "exec -a " + marker + "-background sleep 100";
        Shell.Job job = shell.start(background, "left-behind", context);
        Thread foreground = new Thread(() -> {
            try {
                shell.run(new Shell.Command("exec -a " + marker + "-foreground sleep 100", Duration.ofSeconds(100)),
                        context);
            } catch (Exception e) {
                e.printStackTrace();
            }
        });
        foreground.setDaemon(true);
        foreground.start();
        System.out.println("started " + job.handle());
        System.out.flush();
        Thread.sleep(100_000);
    }
}
