package dev.quiver.cli;

/** The exit codes scripts depend on. */
final class ExitCodes {

    static final int OK = 0;
    /** A tool error, a failed turn, bad configuration. */
    static final int ERROR = 1;
    /** Bad command-line usage (picocli's own code). */
    static final int USAGE = 2;
    /** The permission chain refused the call, or a refusal stopped the task. */
    static final int DENIED = 3;
    /** The agent loop reached its step cap. */
    static final int STEP_LIMIT = 4;

    private ExitCodes() {
    }
}
