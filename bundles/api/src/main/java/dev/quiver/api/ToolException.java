package dev.quiver.api;

/**
 * A call that failed in a way the model can act on. The message goes to the model verbatim, so
 * it names what was wrong and what to do next, for example
 * {@code oldString appears 3 times in src/A.java. Add surrounding context or set replaceAll.}
 * Stack traces never reach the model.
 */
public class ToolException extends Exception {

    private static final long serialVersionUID = 1L;

    /** A failure with a message for the model. */
    public ToolException(String message) {
        super(message);
    }

    /** A failure with a message for the model and its cause, for the log only. */
    public ToolException(String message, Throwable cause) {
        super(message, cause);
    }
}
