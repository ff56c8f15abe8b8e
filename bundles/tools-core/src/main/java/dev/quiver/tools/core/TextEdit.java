package dev.quiver.tools.core;

import dev.quiver.api.ToolException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetEncoder;
import java.util.List;

/** Exact-match replacement in a text, keeping its line endings, with errors a model can act on. */
final class TextEdit {

    private TextEdit() {
    }

    /**
     * The outcome of a replacement.
     *
     * @param text the new text
     * @param count how many occurrences were replaced
     * @param firstLine the 1-based line of the first replacement
     */
    record Result(String text, int count, int firstLine) {
    }

    /**
     * Replaces {@code oldString} once (it must occur exactly once) or everywhere. In a file with CRLF
     * line endings, {@code \n} in the strings stands for {@code \r\n}, so the file keeps its endings.
     */
    static Result replace(String text, String oldString, String newString, boolean replaceAll, String name)
            throws ToolException {
        String search = oldString;
        String replacement = newString;
        if (text.contains("\r\n") && !oldString.contains("\r\n") && oldString.contains("\n")) {
            search = toCrlf(oldString);
            replacement = toCrlf(newString);
        } else if (text.contains("\r\n") && !newString.contains("\r\n")) {
            replacement = toCrlf(newString);
        }
        int first = text.indexOf(search);
        if (first < 0 && !search.equals(oldString)) {
            // a file with mixed line endings: the text may be there exactly as the model wrote it
            search = oldString;
            replacement = newString;
            first = text.indexOf(search);
        }
        if (first < 0) {
            throw new ToolException("oldString not found in " + name + ". " + closestRegion(text, oldString));
        }
        int count = 0;
        for (int at = first; at >= 0; at = text.indexOf(search, at + search.length())) {
            count++;
        }
        if (count > 1 && !replaceAll) {
            throw new ToolException("oldString appears " + count + " times in " + name
                    + ". Add surrounding context or set replaceAll.");
        }
        String result = replaceAll ? text.replace(search, replacement)
                : text.substring(0, first) + replacement + text.substring(first + search.length());
        return new Result(result, replaceAll ? count : 1, lineOf(text, first));
    }

    /**
     * The text in the file's charset. A file read as ISO-8859-1 cannot hold every character; writing
     * one anyway would silently turn it into {@code ?}, so that is refused instead.
     */
    static byte[] encode(String text, Charset charset, String name) throws ToolException {
        CharsetEncoder encoder = charset.newEncoder();
        if (!encoder.canEncode(text)) {
            String example = text.codePoints()
                    .mapToObj(Character::toString)
                    .filter(c -> !encoder.canEncode(c))
                    .findFirst()
                    .orElse("?");
            throw new ToolException(name + " is not UTF-8, so it is kept in " + charset.name() + ", which cannot hold '"
                    + example + "' (U+" + String.format("%04X", example.codePointAt(0)) + "). Use only characters "
                    + charset.name() + " has, or convert the file to UTF-8 first (for example with iconv in bash).");
        }
        return text.getBytes(charset);
    }

    private static String toCrlf(String s) {
        return s.replace("\r\n", "\n").replace("\n", "\r\n");
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /**
     * The region of the file most like {@code oldString}, by how many of its lines match when
     * whitespace at their ends is ignored, so the model can correct itself rather than guess.
     */
    static String closestRegion(String text, String oldString) {
        List<String> fileLines = TextLines.split(text);
        List<String> wanted = TextLines.split(oldString);
        if (fileLines.isEmpty() || wanted.isEmpty()) {
            return "Read the file again and copy the text exactly.";
        }
        int window = wanted.size();
        int bestStart = -1;
        double bestScore = 0;
        for (int start = 0; start < fileLines.size(); start++) {
            double score = 0;
            for (int i = 0; i < window && start + i < fileLines.size(); i++) {
                score += similarity(fileLines.get(start + i), wanted.get(i));
            }
            if (score > bestScore) {
                bestScore = score;
                bestStart = start;
            }
        }
        if (bestStart < 0 || bestScore / window < 0.3) {
            return "Nothing in the file resembles it; read the file again and copy the text exactly.";
        }
        int from = Math.max(0, bestStart - 1);
        int to = Math.min(fileLines.size(), bestStart + window + 1);
        StringBuilder out = new StringBuilder("The closest text is at lines ").append(bestStart + 1).append('-')
                .append(Math.min(fileLines.size(), bestStart + window)).append(":\n");
        for (int i = from; i < to; i++) {
            String line = fileLines.get(i);
            out.append(i + 1).append(": ").append(line.length() > 300 ? line.substring(0, 300) + "..." : line).append('\n');
        }
        out.append("Copy the text exactly as it is there, whitespace included.");
        return out.toString();
    }

    /** 1 for lines equal but for surrounding whitespace, the shared share of characters otherwise. */
    private static double similarity(String a, String b) {
        String x = a.strip();
        String y = b.strip();
        if (x.equals(y)) {
            return x.isEmpty() ? 0.5 : 1;
        }
        if (x.isEmpty() || y.isEmpty()) {
            return 0;
        }
        int prefix = 0;
        int max = Math.min(x.length(), y.length());
        while (prefix < max && x.charAt(prefix) == y.charAt(prefix)) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < max - prefix && x.charAt(x.length() - 1 - suffix) == y.charAt(y.length() - 1 - suffix)) {
            suffix++;
        }
        return (double) (prefix + suffix) / Math.max(x.length(), y.length());
    }
}
