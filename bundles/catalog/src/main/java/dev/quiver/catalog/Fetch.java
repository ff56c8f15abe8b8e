package dev.quiver.catalog;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Reads an index, a signature or a jar: from a file, or over https (http only to this machine, for
 * tests). Sizes are capped so a hostile server cannot exhaust memory.
 */
final class Fetch {

    /** An index or a signature is at most this large. */
    static final long MAX_INDEX = 16L << 20;
    /** A jar is at most this large. */
    static final long MAX_JAR = 256L << 20;

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static volatile HttpClient client;

    private Fetch() {
    }

    static boolean isLoopback(String host) {
        return host != null && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]")
                || host.equals("::1"));
    }

    /** The bytes at a location. */
    static byte[] bytes(URI uri, long max) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        switch (scheme) {
            case "file" -> {
                Path file = Path.of(uri);
                try {
                    long size = Files.size(file);
                    if (size > max) {
                        throw new IOException(file + " is " + size + " bytes, more than the " + max + " allowed");
                    }
                    return Files.readAllBytes(file);
                } catch (NoSuchFileException e) {
                    throw new FileNotFoundException(file + " does not exist");
                }
            }
            case "https", "http" -> {
                if (scheme.equals("http") && !isLoopback(uri.getHost())) {
                    throw new IOException("plain http is refused for " + uri + " (use https)");
                }
                return http(uri, max);
            }
            default -> throw new IOException("cannot fetch " + uri + ": only files and https URLs are supported");
        }
    }

    private static byte[] http(URI uri, long max) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
        HttpResponse<InputStream> response;
        try {
            response = client().send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while fetching " + uri, e);
        } catch (IOException e) {
            // the client's own exceptions often carry no message (a refused connection says null)
            throw new IOException("cannot reach " + uri + ": " + describe(e), e);
        }
        try (InputStream in = response.body()) {
            if (response.statusCode() == 404) {
                throw new FileNotFoundException(uri + " was not found (HTTP 404)");
            }
            if (response.statusCode() / 100 != 2) {
                throw new IOException("HTTP " + response.statusCode() + " from " + uri);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[65536];
            long total = 0;
            int n;
            while ((n = in.read(buffer)) > 0) {
                total += n;
                if (total > max) {
                    throw new IOException(uri + " is more than the " + max + " bytes allowed");
                }
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        }
    }

    /** An exception as a reader understands it: each message down its causes, or the kind where one has none. */
    static String describe(Throwable e) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && parts.size() < 4; t = t.getCause() == t ? null : t.getCause()) {
            String part = t.getMessage() == null || t.getMessage().isBlank() ? t.getClass().getSimpleName()
                    : t.getMessage();
            if (parts.stream().noneMatch(p -> p.contains(part))) {
                parts.add(part);
            }
        }
        return String.join(": ", parts);
    }

    private static HttpClient client() {
        HttpClient current = client;
        if (current == null) {
            synchronized (Fetch.class) {
                current = client;
                if (current == null) {
                    current = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                            .followRedirects(HttpClient.Redirect.NORMAL).build();
                    client = current;
                }
            }
        }
        return current;
    }
}
