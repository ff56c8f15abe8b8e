package dev.quiver.catalog;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One configured catalogue: where its {@code index.xml} is, the key its signature must verify
 * against, and which of its bundles it trusts.
 *
 * @param uri the index: a {@code file:} URI or an {@code https} URL
 * @param publicKey the public key (PEM text) the detached signature must verify against; empty when
 *     the catalogue is not signed, so no signature is required
 * @param keyName where the key came from, for messages
 * @param signature the detached signature; by default the index's URI plus {@code .sig}
 * @param trusted bundle names, {@code prefix.*} patterns, or {@code *}
 * @param origin the config file or property that named it, for messages
 */
record Source(URI uri, Optional<String> publicKey, String keyName, URI signature, List<String> trusted, String origin) {

    Source {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(publicKey, "publicKey");
        Objects.requireNonNull(signature, "signature");
        trusted = List.copyOf(trusted);
    }

    /** Whether the catalogue's policy trusts a bundle of this symbolic name. */
    boolean trusts(String name) {
        for (String pattern : trusted) {
            if (pattern.equals("*") || pattern.equals(name)
                    || (pattern.endsWith(".*") && name.startsWith(pattern.substring(0, pattern.length() - 1)))) {
                return true;
            }
        }
        return false;
    }

    /** The index's location as the user wrote it: a path for files, the URL otherwise. */
    String location() {
        return "file".equals(uri.getScheme()) ? java.nio.file.Path.of(uri).toString() : uri.toString();
    }
}
