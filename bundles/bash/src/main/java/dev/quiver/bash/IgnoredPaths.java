package dev.quiver.bash;

/** Tells the guard which deletions only touch regenerable output. */
@FunctionalInterface
public interface IgnoredPaths {

    /** Nothing is ignored: every forced or recursive deletion is refused. */
    IgnoredPaths NONE = path -> false;

    /**
     * True when the path (as written, relative to the workspace root or absolute) is inside the
     * workspace and git ignores it. The guard passes paths normalized ({@code ./target/} as
     * {@code target}) and never passes one containing {@code ..}, a glob or a {@code ~}.
     */
    boolean ignoredInsideWorkspace(String path);
}
