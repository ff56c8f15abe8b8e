package dev.quiver.api;

import java.util.Objects;

/**
 * One thing a call is matched on by permission rules.
 *
 * @param kind how the value is to be read
 * @param value the command line, the path as the model wrote it, the URL or the name
 */
public record Subject(Kind kind, String value) {

    /** How a subject's value is matched. */
    public enum Kind {
        /** A path; matched as a workspace-relative POSIX path and checked against secret patterns. */
        PATH,
        /** A shell command line; split into its simple commands before matching. */
        COMMAND,
        /** A URL. */
        URL,
        /** Any other name, matched literally (a check target, a skill name). */
        NAME
    }

    public Subject {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(value, "value");
    }

    /** A path subject. */
    public static Subject path(String path) {
        return new Subject(Kind.PATH, path);
    }

    /** A command subject. */
    public static Subject command(String command) {
        return new Subject(Kind.COMMAND, command);
    }

    /** A URL subject. */
    public static Subject url(String url) {
        return new Subject(Kind.URL, url);
    }

    /** A name subject. */
    public static Subject name(String name) {
        return new Subject(Kind.NAME, name);
    }
}
