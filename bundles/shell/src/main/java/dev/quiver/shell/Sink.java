package dev.quiver.shell;

/** Where a drain puts what it read from a process's output. */
interface Sink {

    /** Takes the first {@code length} bytes of the buffer, which is reused after the call. */
    void accept(byte[] buffer, int length);
}
