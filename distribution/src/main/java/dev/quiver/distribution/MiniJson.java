package dev.quiver.distribution;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the launcher, which has no JSON library before the framework starts:
 * enough to read an MCP client's first requests and to check that a recorded catalogue is well
 * formed. Objects become {@link LinkedHashMap}s, arrays {@link List}s, numbers {@link Number}s
 * holding their literal, {@code null} {@link #NULL}. Anything that is not one JSON value is an
 * {@link IllegalArgumentException}.
 */
final class MiniJson {

    /** JSON's {@code null}, so that a map can tell a null member from a missing one. */
    static final Object NULL = new Object();
    private static final int MAX_DEPTH = 64;

    /** A number as written: its literal, for an id that must be echoed unchanged. */
    record Number(String literal) {
        boolean isInteger() {
            return literal.matches("-?(0|[1-9][0-9]{0,17})");
        }
    }

    private final String text;
    private int at;

    private MiniJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        MiniJson reader = new MiniJson(text);
        Object value = reader.value(0);
        reader.space();
        if (reader.at != text.length()) {
            throw reader.error("text after the value");
        }
        return value;
    }

    /** A string as a JSON string literal. */
    static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested too deeply");
        }
        space();
        if (at >= text.length()) {
            throw error("a value is missing");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", NULL);
            default -> number();
        };
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> members = new LinkedHashMap<>();
        at++;
        space();
        if (peek('}')) {
            at++;
            return members;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("a member name is missing");
            }
            String name = string();
            space();
            expect(':');
            members.put(name, value(depth + 1));
            space();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                return members;
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> items = new ArrayList<>();
        at++;
        space();
        if (peek(']')) {
            at++;
            return items;
        }
        while (true) {
            items.add(value(depth + 1));
            space();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                return items;
            }
        }
    }

    private String string() {
        at++;
        StringBuilder out = new StringBuilder();
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("a control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                break;
            }
            char escape = text.charAt(at++);
            switch (escape) {
                case '"', '\\', '/' -> out.append(escape);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw error("a short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException e) {
                        throw error("a bad \\u escape");
                    }
                    at += 4;
                }
                default -> throw error("a bad escape");
            }
        }
        throw error("an unterminated string");
    }

    private Number number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        int digits = digits();
        if (digits == 0 || (digits > 1 && text.charAt(start + (text.charAt(start) == '-' ? 1 : 0)) == '0')) {
            throw error("a bad number");
        }
        if (peek('.')) {
            at++;
            if (digits() == 0) {
                throw error("a bad number");
            }
        }
        if (peek('e') || peek('E')) {
            at++;
            if (peek('+') || peek('-')) {
                at++;
            }
            if (digits() == 0) {
                throw error("a bad number");
            }
        }
        return new Number(text.substring(start, at));
    }

    private int digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at - start;
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("an unknown word");
        }
        at += word.length();
        return value;
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "' expected");
        }
        at++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at " + at + ": " + what);
    }
}
