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
        String kept = head(text, MAX_CHARS);
        return kept + "\n... [truncated " + String.format(Locale.ROOT, "%,d", text.length() - kept.length())
                + " chars]";
    }

    /** At most the first {@code chars} characters of the text, never splitting a surrogate pair. */
    static String head(String text, int chars) {
        if (text.length() <= chars) {
            return text;
        }
        return text.substring(0, chars > 0 && Character.isHighSurrogate(text.charAt(chars - 1)) ? chars - 1 : chars);
    }
}
