package dev.quiver.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * One input line of {@code call --batch} and {@code check --batch}: {@code {"tool":..,"args":{..}}}.
 *
 * @param number the 1-based line number
 * @param tool the tool's name, or null when the line is malformed
 * @param arguments the arguments as JSON text
 * @param error why the line is malformed, or null
 */
record BatchLine(int number, String tool, String arguments, String error) {

    static BatchLine parse(int number, String text) {
        if (text.isBlank()) {
            return new BatchLine(number, null, null, "line " + number
                    + " is empty; each line must be a JSON object {\"tool\":..,\"args\":{..}}");
        }
        JsonNode node;
        try {
            node = Output.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return new BatchLine(number, null, null, "line " + number + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            return new BatchLine(number, null, null, "line " + number + " must be a JSON object {\"tool\":..,\"args\":{..}}");
        }
        JsonNode tool = node.get("tool");
        if (tool == null || !tool.isTextual() || tool.asText().isBlank()) {
            return new BatchLine(number, null, null, "line " + number + " has no \"tool\" string");
        }
        JsonNode args = node.get("args");
        String arguments;
        if (args == null || args.isNull()) {
            arguments = "{}";
        } else if (args.isTextual()) {
            arguments = args.asText();
        } else {
            arguments = args.toString();
        }
        return new BatchLine(number, tool.asText(), arguments, null);
    }

    /**
     * The longest line read, in characters: as large as the largest file the workspace reads whole, so a
     * batch can write any file a tool can read back, while a line that never ends cannot fill the heap.
     */
    static final int MAX_LINE = 32 * 1024 * 1024;

    /**
     * Feeds every line of a file, or of standard input for {@code -}, to the handler: a blank line too, so
     * that a script reading the answers can pair the n-th answer with the n-th line.
     *
     * @throws NoSuchFileException when the file does not exist
     */
    static void each(String source, BufferedReader stdin, Consumer<BatchLine> handler) throws IOException {
        each(source, stdin, handler, MAX_LINE);
    }

    static void each(String source, BufferedReader stdin, Consumer<BatchLine> handler, int maxLine)
            throws IOException {
        BufferedReader reader = "-".equals(source) ? stdin
                : new BufferedReader(new InputStreamReader(Files.newInputStream(Path.of(source)), StandardCharsets.UTF_8));
        try {
            StringBuilder text = new StringBuilder();
            int number = 0;
            int end;
            while ((end = readLine(reader, text, maxLine)) != EOF) {
                number++;
                handler.accept(end == TOO_LONG ? new BatchLine(number, null, null, "line " + number
                        + " is longer than " + maxLine + " characters and was skipped; split the work into"
                        + " smaller calls, or write a large file with a shell command")
                        : parse(number, text.toString()));
            }
        } finally {
            if (reader != stdin) {
                reader.close();
            }
        }
    }

    private static final int EOF = -1;
    private static final int LINE = 0;
    private static final int TOO_LONG = 1;

    /**
     * Reads one line into {@code text}, ended as {@link BufferedReader#readLine()} ends it (LF, CR or CRLF);
     * past {@code maxLine} characters the rest of the line is read and dropped, keeping nothing.
     */
    private static int readLine(BufferedReader reader, StringBuilder text, int maxLine) throws IOException {
        text.setLength(0);
        boolean tooLong = false;
        int c = reader.read();
        if (c < 0) {
            return EOF;
        }
        for (; c >= 0 && c != '\n'; c = reader.read()) {
            if (c == '\r') {
                reader.mark(1);
                if (reader.read() != '\n') {
                    reader.reset();
                }
                break;
            }
            if (tooLong) {
                continue;
            }
            if (text.length() < maxLine) {
                text.append((char) c);
            } else {
                tooLong = true;
                text.setLength(0);
                text.trimToSize();
            }
        }
        return tooLong ? TOO_LONG : LINE;
    }
}
