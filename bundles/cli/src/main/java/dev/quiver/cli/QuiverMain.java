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
    private final BundleContext context;

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
        this.context = context;
    }

    @Override
    public Integer apply(String[] args) {
        java.util.Optional<java.util.function.Consumer<java.util.Map<String, String>>> recorder = toolsRecorder();
        java.io.ByteArrayOutputStream outCopy = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream errCopy = new java.io.ByteArrayOutputStream();
        java.io.OutputStream stdout = new java.io.FileOutputStream(java.io.FileDescriptor.out);
        java.io.OutputStream stderr = new java.io.FileOutputStream(java.io.FileDescriptor.err);
        PrintStream out = new PrintStream(recorder.isPresent() ? new Copied(stdout, outCopy) : stdout, true,
                StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(recorder.isPresent() ? new Copied(stderr, errCopy) : stderr, true,
                StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        RootCommand root = root(new Terminal(in, out, err), true);
        int code = execute(root, args);
        out.flush();
        err.flush();
        // a stream that could not be written (a full disk, a closed descriptor) kept part of the output from
        // the user: such a run is not given again
        if (recorder.isPresent() && root.recordable && code == ExitCodes.OK && !out.checkError() && !err.checkError()) {
            java.util.Base64.Encoder base64 = java.util.Base64.getEncoder();
            recorder.get().accept(java.util.Map.of("code", String.valueOf(code), "stdout",
                    base64.encodeToString(outCopy.toByteArray()), "stderr", base64.encodeToString(errCopy.toByteArray())));
        }
        return code;
    }

    /**
     * The launcher's recorder of {@code tools --json} (a service of the system bundle, offered only for
     * a command line a record may answer): given the exit code and the bytes of stdout and stderr.
     */
    @SuppressWarnings("unchecked")
    private java.util.Optional<java.util.function.Consumer<java.util.Map<String, String>>> toolsRecorder() {
        try {
            org.osgi.framework.ServiceReference<?>[] references = context.getServiceReferences((String) null,
                    "(&(objectClass=java.util.function.Consumer)(quiver.tools.record=true))");
            if (references != null && references.length > 0
                    && context.getService(references[0]) instanceof java.util.function.Consumer<?> consumer) {
                return java.util.Optional.of((java.util.function.Consumer<java.util.Map<String, String>>) consumer);
            }
        } catch (org.osgi.framework.InvalidSyntaxException | IllegalStateException e) {
            // no recorder: the command runs as ever
        }
        return java.util.Optional.empty();
    }

    /** Writes through to the process's stream and keeps a copy. */
    private static final class Copied extends java.io.OutputStream {
        private final java.io.OutputStream target;
        private final java.io.ByteArrayOutputStream copy;

        Copied(java.io.OutputStream target, java.io.ByteArrayOutputStream copy) {
            this.target = target;
            this.copy = copy;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            copy.write(b);
            target.write(b);
        }

        @Override
        public void write(byte[] buffer, int offset, int length) throws java.io.IOException {
            copy.write(buffer, offset, length);
            target.write(buffer, offset, length);
        }

        @Override
        public void flush() throws java.io.IOException {
            target.flush();
        }
    }

    int run(String[] args, Terminal terminal) {
        return execute(root(terminal, false), args);
    }

    private RootCommand root(Terminal terminal, boolean systemTerminal) {
        RootCommand root = new RootCommand(kernel, version, terminal);
        root.services = services;
        root.systemTerminal = systemTerminal;
        return root;
    }

    private int execute(RootCommand root, String[] args) {
        Terminal terminal = root.terminal;
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
