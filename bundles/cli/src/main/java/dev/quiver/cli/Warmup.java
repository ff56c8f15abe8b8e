package dev.quiver.cli;

import picocli.CommandLine;

/**
 * Start-up work the launcher runs on its warm-up thread while the framework is still starting
 * (this bundle's {@code Quiver-Warmup} header names it): a throw-away model of the root command.
 * picocli reads the command's annotations by reflection, and the JDK parses each annotation once,
 * keeping it with its class; a model built here leaves them parsed, and picocli's code loaded, for
 * the real command line built on the main thread a few tens of milliseconds later.
 */
public final class Warmup implements Runnable {

    @Override
    public void run() {
        new CommandLine(new RootCommand(null, "", null));
    }
}
