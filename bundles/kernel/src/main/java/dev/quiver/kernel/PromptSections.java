package dev.quiver.kernel;

import java.util.Map;
import java.util.TreeMap;

/** The system prompt sections that tools set during a session (a todo list, remembered notes). */
final class PromptSections {

    static final int MAX_CHARS = 4000;
    private static final int MAX_SECTIONS = 16;

    private final Map<String, String> sections = new TreeMap<>();

    synchronized void put(String name, String text) {
        String key = name == null ? "" : name.strip().toLowerCase(java.util.Locale.ROOT);
        if (key.isEmpty() || !key.matches("[a-z0-9_-]{1,32}")) {
            return; // an odd name from a plugin is dropped rather than let into the prompt as a heading
        }
        if (text == null || text.isBlank()) {
            sections.remove(key);
        } else if (sections.containsKey(key) || sections.size() < MAX_SECTIONS) {
            String trimmed = text.strip();
            sections.put(key, trimmed.length() > MAX_CHARS ? trimmed.substring(0, MAX_CHARS) + "\n[cut]" : trimmed);
        }
    }

    /** The sections as prompt text, in name order; empty when there are none. */
    synchronized String render() {
        StringBuilder text = new StringBuilder();
        sections.forEach((name, body) -> text.append("## ").append(name).append('\n').append(body).append('\n'));
        return text.toString();
    }
}
