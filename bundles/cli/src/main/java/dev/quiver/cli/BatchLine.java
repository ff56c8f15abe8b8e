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
     * Feeds every line of a file, or of standard input for {@code -}, to the handler: a blank line too, so
     * that a script reading the answers can pair the n-th answer with the n-th line.
     *
     * @throws NoSuchFileException when the file does not exist
     */
    static void each(String source, BufferedReader stdin, Consumer<BatchLine> handler) throws IOException {
        BufferedReader reader = "-".equals(source) ? stdin
                : new BufferedReader(new InputStreamReader(Files.newInputStream(Path.of(source)), StandardCharsets.UTF_8));
        try {
            String text;
            int number = 0;
            while ((text = reader.readLine()) != null) {
                number++;
                handler.accept(parse(number, text));
            }
        } finally {
            if (reader != stdin) {
                reader.close();
            }
        }
    }
}
