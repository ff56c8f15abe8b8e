package dev.quiver.catalog;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which catalogues apply and whether they are enforced, with the problems found reading them.
 *
 * <p>The configuration value ({@code catalogs} in a config file, or the installation's
 * {@code conf/catalogs.json}) is either a list of sources or an object
 * {@code {"enforce": true, "sources": [...]}}. A source is a path or URL, or an object
 * {@code {"url": ..., "publicKey": ..., "signature": ..., "trusted": [...]}}.
 *
 * @param sources the catalogues, first configured first
 * @param enforce whether nothing outside them may be installed or resolved
 * @param warnings what was wrong in the configuration and ignored
 */
record Policy(List<Source> sources, boolean enforce, List<String> warnings) {

    static final Policy NONE = new Policy(List.of(), false, List.of());

    private static final Set<String> SOURCE_KEYS = Set.of("url", "path", "publicKey", "signature", "trusted");

    Policy {
        sources = List.copyOf(sources);
        warnings = List.copyOf(warnings);
    }

    /**
     * Reads a configuration value.
     *
     * @param value the parsed JSON: a list, a map, or null for none
     * @param base the folder relative paths are resolved against
     * @param origin the file that holds it, for messages
     */
    static Policy parse(Object value, Path base, String origin) {
        if (value == null) {
            return NONE;
        }
        List<String> warnings = new ArrayList<>();
        boolean enforce = false;
        Object list = value;
        if (value instanceof Map<?, ?> map) {
            for (Object key : map.keySet()) {
                if (!"enforce".equals(key) && !"sources".equals(key)) {
                    warnings.add("Unknown key '" + key + "' in catalogs of " + origin + " (expected enforce, sources); ignoring it.");
                }
            }
            Object flag = map.get("enforce");
            if (flag instanceof Boolean b) {
                enforce = b;
            } else if (flag != null) {
                warnings.add("catalogs.enforce in " + origin + " must be true or false; enforcing to be safe.");
                enforce = true;
            }
            list = map.get("sources");
            if (list == null) {
                list = List.of();
            }
        }
        if (!(list instanceof List<?> entries)) {
            warnings.add("catalogs in " + origin + " must be a list of catalogues or {\"enforce\", \"sources\"}; ignoring it.");
            return new Policy(List.of(), enforce, warnings);
        }
        List<Source> sources = new ArrayList<>();
        for (Object entry : entries) {
            source(entry, base, origin, warnings).ifPresent(sources::add);
        }
        return new Policy(sources, enforce, warnings);
    }

    private static Optional<Source> source(Object entry, Path base, String origin, List<String> warnings) {
        String where;
        Object key = null;
        Object signature = null;
        List<String> trusted = new ArrayList<>();
        if (entry instanceof String s) {
            where = s;
        } else if (entry instanceof Map<?, ?> map) {
            for (Object name : map.keySet()) {
                if (!SOURCE_KEYS.contains(String.valueOf(name))) {
                    warnings.add("Unknown key '" + name + "' in a catalogue of " + origin + " (expected "
                            + String.join(", ", new java.util.TreeSet<>(SOURCE_KEYS)) + "); ignoring it.");
                }
            }
            Object url = map.get("url") != null ? map.get("url") : map.get("path");
            if (!(url instanceof String s) || s.isBlank()) {
                warnings.add("A catalogue in " + origin + " has no \"url\" (or \"path\"); ignoring it.");
                return Optional.empty();
            }
            where = s;
            key = map.get("publicKey");
            signature = map.get("signature");
            Object trust = map.get("trusted");
            if (trust instanceof String t) {
                trusted.add(t);
            } else if (trust instanceof List<?> names) {
                for (Object name : names) {
                    if (name instanceof String t && !t.isBlank()) {
                        trusted.add(t.strip());
                    } else {
                        warnings.add("catalogs: a trusted entry in " + origin + " is not a bundle name; ignoring it.");
                    }
                }
            } else if (trust != null) {
                warnings.add("catalogs: \"trusted\" of " + where + " in " + origin
                        + " must be a list of bundle names or \"*\"; trusting nothing.");
            }
        } else {
            warnings.add("A catalogue in " + origin + " must be a path, a URL or an object; ignoring " + entry + ".");
            return Optional.empty();
        }
        URI uri;
        try {
            uri = location(where, base);
        } catch (IllegalArgumentException e) {
            warnings.add("Catalogue " + where + " in " + origin + ": " + e.getMessage() + "; ignoring it.");
            return Optional.empty();
        }
        Optional<String> pem = Optional.empty();
        String keyName = "";
        if (key instanceof String k && !k.isBlank()) {
            if (k.strip().startsWith("-----BEGIN")) {
                pem = Optional.of(k);
                keyName = "the key given inline";
            } else {
                Path file = path(k, base);
                keyName = file.toString();
                try {
                    pem = Optional.of(Files.readString(file));
                } catch (IOException | RuntimeException e) {
                    // a key that cannot be read must not make the catalogue unsigned: it is refused on load
                    pem = Optional.of("");
                    keyName = file + " (cannot be read: " + e.getMessage() + ")";
                }
            }
        } else if (key != null) {
            warnings.add("catalogs: \"publicKey\" of " + where + " in " + origin + " must be a path or PEM text.");
            pem = Optional.of("");
            keyName = "an invalid publicKey value";
        }
        URI sig;
        try {
            sig = signature instanceof String s && !s.isBlank() ? location(s, base) : URI.create(uri + ".sig");
        } catch (IllegalArgumentException e) {
            warnings.add("Catalogue " + where + " in " + origin + ": signature " + e.getMessage() + "; ignoring it.");
            return Optional.empty();
        }
        return Optional.of(new Source(uri, pem, keyName, sig, trusted, origin));
    }

    /** A path or URL as a URI: https anywhere, http only to this machine, files by path or file: URL. */
    static URI location(String where, Path base) {
        String text = where.strip();
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.startsWith("https://")) {
            return URI.create(text);
        }
        if (lower.startsWith("http://")) {
            URI uri = URI.create(text);
            if (!Fetch.isLoopback(uri.getHost())) {
                throw new IllegalArgumentException("plain http is refused (use https; http is accepted only for "
                        + "localhost)");
            }
            return uri;
        }
        if (lower.startsWith("file:")) {
            return Path.of(URI.create(text)).normalize().toUri();
        }
        if (lower.matches("^[a-z][a-z0-9+.-]*://.*")) {
            throw new IllegalArgumentException("only https URLs and files are supported");
        }
        return path(text, base).toUri();
    }

    static Path path(String text, Path base) {
        try {
            if (text.equals("~") || text.startsWith("~/")) {
                String home = System.getProperty("user.home");
                return Path.of(home, text.length() > 1 ? text.substring(2) : "").toAbsolutePath().normalize();
            }
            Path path = Path.of(text);
            return (path.isAbsolute() ? path : base.resolve(path)).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("not a valid path");
        }
    }

    /**
     * The policy in force: the installation's catalogues, then the session's. An installation that
     * enforces its catalogues keeps them to itself: a session's config may turn enforcement on but
     * cannot add catalogues to an enforcing installation, nor turn its enforcement off.
     */
    static Policy combine(Policy installation, Policy session, String sessionOrigin) {
        List<String> warnings = new ArrayList<>(installation.warnings());
        warnings.addAll(session.warnings());
        Map<URI, Source> sources = new LinkedHashMap<>();
        installation.sources().forEach(s -> sources.putIfAbsent(s.uri(), s));
        if (installation.enforce()) {
            if (!session.sources().isEmpty()) {
                warnings.add("The installation enforces its own catalogues; the catalogs of " + sessionOrigin
                        + " are ignored.");
            }
        } else {
            session.sources().forEach(s -> sources.putIfAbsent(s.uri(), s));
        }
        return new Policy(List.copyOf(sources.values()), installation.enforce() || session.enforce(), warnings);
    }
}
