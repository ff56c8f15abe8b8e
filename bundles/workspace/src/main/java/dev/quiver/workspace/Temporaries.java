package dev.quiver.workspace;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one fact about the temporary files and folders the workspace makes in the working tree: their
 * name. A new content is staged as {@code .<name>.<random>.quiver-tmp} next to the file it replaces
 * (same folder, so the same file system, so the rename over it is atomic). Every walk skips such names
 * (so glob, grep, list_dir and checkpoints never show one, even one a crash left), and the start of a
 * session removes those a dead process registered (see {@link Transaction}).
 */
final class Temporaries {

    static final String SUFFIX = ".quiver-tmp";

    private Temporaries() {
    }

    /** A fresh temporary name for staging something that will become {@code name}. */
    static String name(String name) {
        // the target's name keeps it recognisable; cut so the whole stays within a file system's 255 bytes
        String kept = name.length() > 120 ? name.substring(0, 120) : name;
        return "." + kept + "." + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()) + SUFFIX;
    }

    /** Whether a file name is one of the workspace's temporaries, this version's or an earlier one's. */
    static boolean isTemporary(String name) {
        return name.startsWith(".") && name.endsWith(SUFFIX);
    }
}
