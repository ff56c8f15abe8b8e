package dev.quiver.catalog;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loads the catalogues of a policy: reads each index, checks its detached signature where a key is
 * configured, parses it. A catalogue that fails is reported with why and offers nothing; the others
 * still load. Files are read again when they change; remote indexes are kept for a minute.
 */
final class Catalogs {

    private static final long REMOTE_TTL_NANOS = 60_000_000_000L;

    /**
     * One catalogue as loaded.
     *
     * @param source its configuration
     * @param name its display name
     * @param index what it lists; empty when it failed
     * @param problem why it failed; empty when it loaded
     * @param keyFingerprint the fingerprint of the key its signature verified against; empty when unsigned
     */
    record Loaded(Source source, String name, Optional<Index> index, Optional<String> problem,
            Optional<String> keyFingerprint) {

        List<Index.Resource> resources() {
            return index.map(Index::resources).orElse(List.of());
        }
    }

    /**
     * Every catalogue of a policy, loaded, with lookups by content.
     *
     * @param loaded each catalogue, in configured order
     * @param bySha256 each listed jar's SHA-256 to the first catalogue and resource listing it
     */
    record Snapshot(List<Loaded> loaded, Map<String, Map.Entry<Loaded, Index.Resource>> bySha256) {

        static final Snapshot EMPTY = new Snapshot(List.of(), Map.of());

        Optional<Map.Entry<Loaded, Index.Resource>> find(String sha256) {
            return Optional.ofNullable(sha256 == null ? null : bySha256.get(sha256));
        }
    }

    private record Cached(String stamp, long loadedAt, Loaded loaded) {
    }

    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    /** Loads (or takes from the cache) every catalogue of the policy. */
    Snapshot load(Policy policy) {
        List<Loaded> loaded = new ArrayList<>();
        Map<String, Integer> names = new HashMap<>();
        for (Source source : policy.sources()) {
            Loaded one = load(source);
            int seen = names.merge(one.name(), 1, Integer::sum);
            if (seen > 1) {
                one = new Loaded(one.source(), one.name() + "#" + seen, one.index(), one.problem(), one.keyFingerprint());
            }
            loaded.add(one);
        }
        Map<String, Map.Entry<Loaded, Index.Resource>> bySha = new HashMap<>();
        for (Loaded catalog : loaded) {
            for (Index.Resource resource : catalog.resources()) {
                bySha.putIfAbsent(resource.sha256(), Map.entry(catalog, resource));
            }
        }
        return new Snapshot(List.copyOf(loaded), Map.copyOf(bySha));
    }

    /** Forgets what was loaded, so the next load reads everything again. */
    void clear() {
        cache.clear();
    }

    private Loaded load(Source source) {
        String key = source.uri() + "|" + source.signature() + "|" + source.publicKey().orElse("") + "|"
                + String.join(",", source.trusted());
        String stamp = stamp(source);
        Cached cached = cache.get(key);
        long now = System.nanoTime();
        if (cached != null && cached.stamp().equals(stamp)
                && (stamp.startsWith("file") || now - cached.loadedAt() < REMOTE_TTL_NANOS)) {
            return cached.loaded();
        }
        Loaded loaded = read(source);
        cache.put(key, new Cached(stamp, now, loaded));
        return loaded;
    }

    private static String stamp(Source source) {
        if (!"file".equals(source.uri().getScheme())) {
            return "remote";
        }
        return "file:" + fileStamp(source.uri()) + ":" + fileStamp(source.signature());
    }

    private static String fileStamp(URI uri) {
        if (!"file".equals(uri.getScheme())) {
            return "remote";
        }
        try {
            Path file = Path.of(uri);
            return Files.getLastModifiedTime(file).toMillis() + "/" + Files.size(file) + "/"
                    + Files.getLastModifiedTime(file).toInstant().getNano();
        } catch (IOException | RuntimeException missing) {
            return "-";
        }
    }

    /** Reads one catalogue: the index, then the signature check, then the parse. */
    static Loaded read(Source source) {
        String fallbackName = fallbackName(source.uri());
        byte[] bytes;
        try {
            bytes = Fetch.bytes(source.uri(), Fetch.MAX_INDEX);
        } catch (IOException e) {
            return failed(source, fallbackName, "cannot read the index: " + e.getMessage());
        }
        Optional<String> fingerprint = Optional.empty();
        if (source.publicKey().isPresent()) {
            PublicKey key;
            try {
                key = Signatures.publicKey(source.publicKey().get());
            } catch (GeneralSecurityException e) {
                return failed(source, fallbackName, "its public key (" + source.keyName() + ") cannot be used: "
                        + e.getMessage() + "; refusing the catalogue");
            }
            byte[] signature;
            try {
                signature = Fetch.bytes(source.signature(), Fetch.MAX_INDEX);
            } catch (FileNotFoundException e) {
                return failed(source, fallbackName, "it must be signed (a public key is configured) but its signature "
                        + display(source.signature()) + " is missing; refusing the catalogue");
            } catch (IOException e) {
                return failed(source, fallbackName, "cannot read its signature " + display(source.signature()) + ": "
                        + e.getMessage() + "; refusing the catalogue");
            }
            try {
                if (!Signatures.verify(bytes, signature, key)) {
                    return failed(source, fallbackName, "its signature " + display(source.signature())
                            + " does not verify against the key " + source.keyName() + " ("
                            + Signatures.fingerprint(key) + "): the index was changed or signed with another key; "
                            + "refusing the catalogue");
                }
            } catch (GeneralSecurityException e) {
                return failed(source, fallbackName, "its signature cannot be checked: " + e.getMessage()
                        + "; refusing the catalogue");
            }
            fingerprint = Optional.of(Signatures.fingerprint(key));
        }
        Index index;
        try {
            index = Index.parse(bytes, source.uri());
        } catch (IOException e) {
            return failed(source, fallbackName, "the index is invalid: " + e.getMessage());
        }
        String name = index.name().isBlank() ? fallbackName : index.name();
        return new Loaded(source, name, Optional.of(index), Optional.empty(), fingerprint);
    }

    private static Loaded failed(Source source, String name, String problem) {
        return new Loaded(source, name, Optional.empty(), Optional.of(problem), Optional.empty());
    }

    static String display(URI uri) {
        return "file".equals(uri.getScheme()) ? Path.of(uri).toString() : uri.toString();
    }

    /** A name for a catalogue whose index has none: its folder's name for index.xml, else its file name. */
    static String fallbackName(URI uri) {
        String path = uri.getPath() == null ? uri.toString() : uri.getPath();
        String[] parts = path.split("/");
        String file = parts.length == 0 ? path : parts[parts.length - 1];
        if ((file.equals("index.xml") || file.equals("index.xml.gz")) && parts.length > 1) {
            return parts[parts.length - 2];
        }
        return file.replaceFirst("\\.xml(\\.gz)?$", "");
    }
}
