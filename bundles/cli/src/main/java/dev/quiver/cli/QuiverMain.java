package dev.quiver.cli;

import dev.quiver.api.Shell;
import dev.quiver.api.WorkspaceFactory;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.cli.terminal.Services;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import picocli.CommandLine;

/**
 * The {@code quiver} command as a service the launcher calls: arguments in, exit code out. It is
 * registered under a JDK type, {@code java.util.function.Function}, so the launcher outside the
 * framework shares no class with it.
 */
@Component(service = Function.class, property = "quiver.main=true")
public class QuiverMain implements Function<String[], Integer> {

    private final Kernel kernel;
    private final String version;
    private final Services services;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Shell shell;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile WorkspaceFactory workspaces;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Platform platform;

    @Activate
    public QuiverMain(@Reference Kernel kernel, BundleContext context) {
        this.kernel = kernel;
        Object header = context.getBundle().getHeaders().get("Quiver-Version");
        this.version = header == null ? context.getBundle().getVersion().toString() : header.toString();
        this.services = new OsgiServices(() -> shell, () -> workspaces, () -> platform);
    }

    @Override
    public Integer apply(String[] args) {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true,
                StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return run(args, new Terminal(in, out, err), true);
    }

    int run(String[] args, Terminal terminal) {
        return run(args, terminal, false);
    }

    int run(String[] args, Terminal terminal, boolean systemTerminal) {
        RootCommand root = new RootCommand(kernel, version, terminal);
        root.services = services;
        root.systemTerminal = systemTerminal;
        CommandLine commandLine = new CommandLine(root);
        Subcommands.add(commandLine, args);
        commandLine.getCommandSpec().version("quiver " + version);
        commandLine.setOut(new java.io.PrintWriter(terminal.out(), true));
        commandLine.setErr(new java.io.PrintWriter(terminal.err(), true));
        commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
            terminal.err().println("quiver: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            return ExitCodes.ERROR;
        });
        return commandLine.execute(args);
    }
}
