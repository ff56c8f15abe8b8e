package dev.quiver.api;

import java.nio.file.Path;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The session's record of the files the model has read, for the read-before-write rule: a tool
 * that overwrites or edits an existing file first calls {@link #requireFresh(Path)}, and after
 * writing calls {@link #wrote(Path)}. A file counts as read as it was at that moment (its size,
 * time and content); any change since, by anyone else, needs a new read.
 */
@ProviderType
public interface FileReads {

    /** The model has just been shown this file's content (all of it or a window of it). */
    void read(Path file);

    /** A tool of this session has just written this file; its new content counts as read. */
    void wrote(Path file);

    /**
     * Checks that an existing file was read in this session and has not changed since.
     *
     * @throws ToolException {@code <path> has not been read in this session. Read it with read_file first.}
     *     or {@code <path> changed since it was last read. Read it again before changing it.}
     */
    void requireFresh(Path file) throws ToolException;
}
