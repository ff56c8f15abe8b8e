package dev.quiver.kernel;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The system prompt sections that tools set during a session (a todo list, remembered notes). Every
 * change is told to a listener, which records it in the session file, so a resumed session has them
 * back ({@link #restore}).
 */
final class PromptSections {

    static final int MAX_CHARS = 4000;
    private static final int MAX_SECTIONS = 16;

    private final Map<String, String> sections = new TreeMap<>();
    /** Told each change as kept: a section's name and text, empty text for one removed. */
    private volatile BiConsumer<String, String> changes = (name, text) -> { };

    /** Where each change goes from now on. */
    void onChange(BiConsumer<String, String> listener) {
        this.changes = listener;
    }

    /** Sets a section (blank text removes it); synchronized with the telling, so the record keeps the order. */
    synchronized void put(String name, String text) {
        String key = key(name);
        String kept = store(key, text);
        if (kept != null) {
            changes.accept(key, kept);
        }
    }

    /** The sections a stored session last had, set again without telling the listener: they are recorded already. */
    void restore(Map<String, String> stored) {
        stored.forEach((name, text) -> store(key(name), text));
    }

    private static String key(String name) {
        return name == null ? "" : name.strip().toLowerCase(java.util.Locale.ROOT);
    }

    /** A section's text as the prompt carries it: stripped, and cut past {@link #MAX_CHARS} with a mark. */
    static String capped(String text) {
        String trimmed = text.strip();
        return trimmed.length() > MAX_CHARS ? ResultCap.head(trimmed, MAX_CHARS) + "\n[cut]" : trimmed;
    }

    /** Sets or removes a section; the text kept ("" for removed), or null when nothing changed. */
    private synchronized String store(String key, String text) {
        if (key.isEmpty() || !key.matches("[a-z0-9_-]{1,32}")) {
            return null; // an odd name from a plugin is dropped rather than let into the prompt as a heading
        }
        if (text == null || text.isBlank()) {
            return sections.remove(key) == null ? null : "";
        }
        if (!sections.containsKey(key) && sections.size() >= MAX_SECTIONS) {
            return null;
        }
        String kept = capped(text);
        sections.put(key, kept);
        return kept;
    }

    /** Removes every section: a new conversation starts without the old one's list. */
    synchronized void clear() {
        sections.clear();
    }

    /** The sections as prompt text, in name order; empty when there are none. */
    synchronized String render() {
        StringBuilder text = new StringBuilder();
        sections.forEach((name, body) -> text.append("## ").append(name).append('\n').append(body).append('\n'));
        return text.toString();
    }
}
