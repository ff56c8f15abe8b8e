package dev.quiver.api.host;

/** A failure a front end shows the user as one line: no model configured, a bad option. */
public class HostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with a message for the user. */
    public HostException(String message) {
        super(message);
    }

    /** A failure with a message for the user and its cause, for the log. */
    public HostException(String message, Throwable cause) {
        super(message, cause);
    }
}
