package dev.quiver.catalog;

import dev.quiver.api.host.HostException;
import dev.quiver.api.host.Kernel;
import dev.quiver.api.host.Platform;
import dev.quiver.api.host.Session;
import dev.quiver.api.host.SessionOptions;
import dev.quiver.api.host.ToolInfo;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The Felix shell's {@code quiver:catalog} and {@code quiver:tools} commands, found by Gogo through
 * the {@code osgi.command.*} service properties (no Gogo class is needed here). A delayed component:
 * nothing is created until the shell runs one of them.
 */
@Component(service = GogoCommands.class, property = {"osgi.command.scope=quiver", "osgi.command.function=catalog",
        "osgi.command.function=tools", "osgi.command.function=exit",
        // ranked above Gogo's system:exit(int), which a bare "exit" cannot call and which interrupts the shell
        "service.ranking:Integer=100"})
public class GogoCommands {

    private static final String USAGE = "usage: quiver:catalog list | bundles | install NAME | update NAME | remove NAME | verify";

    @Reference
    Platform platform;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile Kernel kernel;

    private org.osgi.framework.BundleContext context;

    @org.osgi.service.component.annotations.Activate
    void activate(org.osgi.framework.BundleContext bundleContext) {
        this.context = bundleContext;
    }

    /**
     * {@code exit}: stops the framework, which ends {@code quiver shell} cleanly, once the shell waits
     * for its next line. Stopped while the command still ran, Gogo's shell had its thread interrupted
     * as it waited for the command and printed {@code java.lang.InterruptedException} on the way out.
     */
    public void exit() {
        Thread stopper = new Thread(() -> {
            awaitShellReading();
            try {
                context.getBundle(0).stop();
            } catch (org.osgi.framework.BundleException | IllegalStateException e) {
                System.err.println("quiver: exit could not stop the framework: " + e.getMessage());
            }
        }, "quiver-shell-exit");
        stopper.start();
    }

    /** Waits (5 s at most) until a thread reads a line with JLine: Gogo's shell, back at its prompt. */
    private static void awaitShellReading() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
                for (StackTraceElement frame : stack) {
                    if (frame.getClassName().endsWith(".LineReaderImpl") && frame.getMethodName().equals("readLine")) {
                        return;
                    }
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** {@code quiver:catalog}: the catalogues and what they offer. */
    public String catalog() {
        return catalog("list");
    }

    /** {@code quiver:catalog list|bundles|verify}. */
    public String catalog(String verb) {
        try {
            return switch (verb) {
                case "list" -> Listing.catalogs(platform.catalogs(), platform.entries(), platform.enforcing());
                case "bundles" -> Listing.bundles(platform.bundles());
                case "verify" -> Listing.findings(platform.verify());
                default -> USAGE;
            };
        } catch (HostException e) {
            return "quiver: " + e.getMessage();
        }
    }

    /** {@code quiver:catalog install|update|remove NAME}. */
    public String catalog(String verb, String name) {
        try {
            return switch (verb) {
                case "install" -> "installed " + Listing.bundle(platform.install(name));
                case "update" -> "now " + Listing.bundle(platform.update(name));
                case "remove" -> {
                    platform.remove(name);
                    yield "removed " + name;
                }
                default -> USAGE;
            };
        } catch (HostException e) {
            return "quiver: " + e.getMessage();
        }
    }

    /** {@code quiver:tools}: the live registry, as a session in the shell's working folder sees it. */
    public String tools() {
        Kernel current = kernel;
        if (current == null) {
            return "quiver: the kernel is not running.";
        }
        try (Session session = current.open(SessionOptions.headless(Path.of(System.getProperty("user.dir"))))) {
            List<ToolInfo> tools = session.registered();
            StringBuilder out = new StringBuilder(String.format("%-20s %-10s %-8s %-8s %s%n", "TOOL", "SET", "ACCESS",
                    "DECISION", "BUNDLE"));
            for (ToolInfo tool : tools) {
                out.append(String.format("%-20s %-10s %-8s %-8s %s%s%n", tool.name(), tool.set().orElse("-"), tool.access(),
                        tool.decision().id(), tool.bundle(), tool.note().map(n -> "  (" + n + ")").orElse("")));
            }
            out.append(tools.size()).append(tools.size() == 1 ? " tool" : " tools");
            return out.toString();
        } catch (HostException e) {
            return "quiver: " + e.getMessage();
        }
    }
}
