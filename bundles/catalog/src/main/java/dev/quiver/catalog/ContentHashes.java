package dev.quiver.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Bundle;

/**
 * The SHA-256 of what an installed bundle was installed from, to match it against the catalogues.
 * A bundle this platform installed has the hash of the bytes it checked; any other is hashed from
 * the file its location names ({@code file:} or {@code reference:file:}), once per version of the
 * file. A bundle installed from anywhere else has no known content and matches no catalogue.
 */
final class ContentHashes {

    private record Recorded(long lastModified, String sha256) {
    }

    private record FileKey(Path file, long size, long modified) {
    }

    private final Map<Long, Recorded> recorded = new ConcurrentHashMap<>();
    private final Map<FileKey, String> files = new ConcurrentHashMap<>();

    /** Remembers the content a bundle was just installed or updated from. */
    void record(Bundle bundle, String sha256) {
        recorded.put(bundle.getBundleId(), new Recorded(bundle.getLastModified(), sha256));
    }

    void forget(Bundle bundle) {
        recorded.remove(bundle.getBundleId());
    }

    /** The content's SHA-256, or empty when it is not known. */
    Optional<String> of(Bundle bundle) {
        Recorded mine = recorded.get(bundle.getBundleId());
        if (mine != null && mine.lastModified() == bundle.getLastModified()) {
            return Optional.of(mine.sha256());
        }
        return file(bundle.getLocation()).flatMap(this::ofFile);
    }

    /** The file a location names, if it names one. */
    static Optional<Path> file(String location) {
        if (location == null) {
            return Optional.empty();
        }
        String text = location.startsWith("reference:") ? location.substring("reference:".length()) : location;
        if (!text.startsWith("file:")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Path.of(URI.create(text.replace(" ", "%20"))).toAbsolutePath().normalize());
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return Optional.empty();
        }
    }

    Optional<String> ofFile(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            FileKey key = new FileKey(file, Files.size(file), Files.getLastModifiedTime(file).toMillis());
            String known = files.get(key);
            if (known != null) {
                return Optional.of(known);
            }
            String sha = sha256(file);
            files.put(key, sha);
            return Optional.of(sha);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[65536];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
