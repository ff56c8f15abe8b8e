package dev.quiver.kernel;

import java.util.Locale;

/** The one cap on what any call returns to the model. */
final class ResultCap {

    /** Characters of a result the model sees. */
    static final int MAX_CHARS = 30_000;

    private ResultCap() {
    }

    /** The text, or its first 30,000 characters followed by {@code ... [truncated N chars]}. */
    static String cap(String text) {
        if (text.length() <= MAX_CHARS) {
            return text;
        }
        int keep = MAX_CHARS;
        if (Character.isHighSurrogate(text.charAt(keep - 1))) {
            keep--; // never split a surrogate pair
        }
        return text.substring(0, keep) + "\n... [truncated " + String.format(Locale.ROOT, "%,d", text.length() - keep)
                + " chars]";
    }
}
