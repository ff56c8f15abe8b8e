package dev.quiver.workspace;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * File names as the file system stores them: bytes, which need not be UTF-8. Java turns a name's bytes
 * into a {@link String} by replacing what is not UTF-8 with U+FFFD, and a String back into bytes by
 * encoding it, so {@code Path.of(path.toString())} names another file (or none) for such a name.
 *
 * <p>Tools therefore see a name in its <em>shown</em> form: valid UTF-8 as it is, and a name holding
 * bytes that are not, with each such byte as {@code \xHH} (upper-case hex) and each backslash as
 * {@code \\}, so that the form can be turned back into the same bytes ({@link #unescaped}). The bytes
 * are reached through {@link Path#toUri()} and {@link Path#of(URI)}, the JDK's public byte-exact
 * conversions.
 */
final class FileNames {

    private FileNames() {
    }

    /** A path (relative, or one name) in its shown form, with {@code /} separators. */
    static String shown(Path path) {
        String text = IgnoreRules.slashes(path);
        if (text.indexOf('\uFFFD') < 0) {
            return text;
        }
        // U+FFFD is either a byte that is not UTF-8 or a name that really holds U+FFFD: the bytes tell
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < path.getNameCount(); i++) {
            if (i > 0) {
                out.append('/');
            }
            out.append(shownName(path.getName(i)));
        }
        return out.toString();
    }

    private static String shownName(Path name) {
        String text = name.toString();
        if (text.indexOf('\uFFFD') < 0) {
            return text;
        }
        byte[] bytes = bytes(name);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer decoded = CharBuffer.allocate(bytes.length + 1);
        StringBuilder out = new StringBuilder(bytes.length + 8);
        boolean escaped = false;
        while (true) {
            CoderResult result = decoder.decode(in, decoded, true);
            decoded.flip();
            // backslashes are doubled so that a name's own "\x41" is not read back as an escape
            out.append(decoded.toString().replace("\\", "\\\\"));
            decoded.clear();
            if (!result.isError()) {
                break;
            }
            for (int i = 0; i < result.length(); i++) {
                out.append(String.format("\\x%02X", in.get() & 0xff));
            }
            escaped = true;
        }
        return escaped ? out.toString() : text; // no escape: valid UTF-8 that holds U+FFFD itself
    }

    /** The bytes of one name, from the percent-encoded form of its URI. */
    private static byte[] bytes(Path name) {
        String raw = name.toAbsolutePath().toUri().getRawPath();
        if (raw.endsWith("/")) {
            raw = raw.substring(0, raw.length() - 1); // the URI of a directory ends with a slash
        }
        raw = raw.substring(raw.lastIndexOf('/') + 1);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                out.write(Integer.parseInt(raw, i + 1, i + 3, 16));
                i += 2;
            } else {
                out.write(c); // the URI's raw path percent-encodes everything that is not ASCII
            }
        }
        return out.toByteArray();
    }

    /**
     * The path a shown relative path names below a folder, its {@code \xHH} escapes (bytes 80 to FF
     * only: an escape never makes a {@code /} or any other ASCII) and {@code \\} turned back into
     * bytes. Empty when the text holds no {@code \xHH} escape, so that it is an ordinary path.
     */
    static Optional<Path> unescaped(Path folder, String shown) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(shown.length() + 8);
        boolean escaped = false;
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c == '\\' && i + 1 < shown.length() && shown.charAt(i + 1) == '\\') {
                bytes.write('\\');
                i++;
            } else if (c == '\\' && i + 3 < shown.length() && shown.charAt(i + 1) == 'x'
                    && highByte(shown, i + 2) >= 0) {
                bytes.write(highByte(shown, i + 2));
                escaped = true;
                i += 3;
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < shown.length() ? i + 2 : i + 1;
                bytes.writeBytes(shown.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        if (!escaped) {
            return Optional.empty();
        }
        StringBuilder uri = new StringBuilder(folder.toAbsolutePath().toUri().getRawPath());
        if (uri.charAt(uri.length() - 1) != '/') {
            uri.append('/');
        }
        for (byte b : bytes.toByteArray()) {
            int value = b & 0xff;
            if (value < 0x80 && (Character.isLetterOrDigit(value) || "/-._~".indexOf(value) >= 0)) {
                uri.append((char) value);
            } else {
                uri.append('%').append(String.format("%02X", value));
            }
        }
        try {
            return Optional.of(Path.of(URI.create("file://" + uri)));
        } catch (IllegalArgumentException unusable) {
            return Optional.empty();
        }
    }

    /** The byte two upper- or lower-case hex digits at {@code at} spell when it is 80 to FF; -1 otherwise. */
    private static int highByte(String text, int at) {
        int high = "0123456789ABCDEF".indexOf(Character.toUpperCase(text.charAt(at)));
        int low = "0123456789ABCDEF".indexOf(Character.toUpperCase(text.charAt(at + 1)));
        return high >= 8 && low >= 0 ? high * 16 + low : -1;
    }
}
