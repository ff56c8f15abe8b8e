package dev.quiver.tools.core;

import java.util.ArrayList;
import java.util.List;

/** A text split into lines, and the numbered windows read_file shows of it. */
final class TextLines {

    /** Lines longer than this are cut in numbered output; the rest is not worth the context. */
    static final int MAX_LINE_CHARS = 2000;

    private TextLines() {
    }

    /** The lines of a text without their terminators ({@code \n}, {@code \r\n} or a lone {@code \r}). */
    static List<String> split(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                lines.add(text.substring(start, i));
                if (c == '\r' && i + 1 < length && text.charAt(i + 1) == '\n') {
                    i++;
                }
                start = i + 1;
            }
        }
        if (start < length) {
            lines.add(text.substring(start));
        }
        return lines;
    }

    /**
     * A numbered window with a header saying which lines of how many are shown.
     *
     * @param name the path as shown to the model
     * @param offset the first line, 1-based
     * @param limit how many lines at most
     */
    static String window(String name, List<String> lines, int offset, int limit) {
        int total = lines.size();
        if (total == 0) {
            return "[" + name + " is empty]";
        }
        int first = offset;
        int last = (int) Math.min((long) first + limit - 1, total);
        StringBuilder out = new StringBuilder();
        out.append("[").append(name).append(": lines ").append(first).append('-').append(last).append(" of ")
                .append(total);
        if (last < total) {
            out.append("; continue with offset ").append(last + 1);
        }
        out.append("]\n");
        for (int n = first; n <= last; n++) {
            String line = lines.get(n - 1);
            out.append(n).append(": ");
            if (line.length() > MAX_LINE_CHARS) {
                out.append(line, 0, MAX_LINE_CHARS).append(" ... [line cut at ").append(MAX_LINE_CHARS)
                        .append(" of ").append(line.length()).append(" chars]");
            } else {
                out.append(line);
            }
            out.append('\n');
        }
        return out.toString();
    }
}
