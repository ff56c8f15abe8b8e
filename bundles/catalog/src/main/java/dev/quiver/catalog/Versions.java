package dev.quiver.catalog;

import org.osgi.framework.Version;

/** Compares versions as OSGi does; a version that does not parse sorts below every one that does. */
final class Versions {

    private Versions() {
    }

    static int compare(String a, String b) {
        Version left = parse(a);
        Version right = parse(b);
        if (left == null || right == null) {
            return left != null ? 1 : right != null ? -1 : a.compareTo(b);
        }
        return left.compareTo(right);
    }

    private static Version parse(String text) {
        try {
            return Version.parseVersion(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
