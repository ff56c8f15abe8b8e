package dev.quiver.tools.nav;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.treesitter.TSInputEncoding;
import org.treesitter.TSNode;
import org.treesitter.TSParser;
import org.treesitter.TSTree;

/**
 * Reads a file's declarations from its tree-sitter tree. Only declarations and the bodies that hold
 * more of them (class bodies, impl blocks, modules) are visited, never function bodies, so the cost
 * beyond the parse is a few native calls per declaration.
 */
final class Declarations {

    /** Signatures are cut to this many characters. */
    static final int MAX_SIGNATURE_CHARS = 160;
    /** Time one parse may take; tree-sitter checks it between steps. */
    private static final long PARSE_BUDGET_NANOS = 10_000_000_000L;

    private static final int MAX_IDLE = 4;
    /** Idle parsers by language: a parser is not thread-safe and costs a native allocation. */
    @SuppressWarnings("unchecked")
    private static final ConcurrentLinkedQueue<TSParser>[] IDLE = new ConcurrentLinkedQueue[Language.values().length];

    static {
        for (int i = 0; i < IDLE.length; i++) {
            IDLE[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /**
     * What one reading of a file found.
     *
     * @param declarations in file order
     * @param errorLine the first line where the parse met a syntax error, 0 when it met none
     * @param timedOut whether the parse ran out of time and found nothing
     */
    record Reading(List<Declaration> declarations, int errorLine, boolean timedOut) {
    }

    private final byte[] source;
    private final Language language;
    private final List<Declaration> found = new ArrayList<>();

    private Declarations(byte[] source, Language language) {
        this.source = source;
        this.language = language;
    }

    /** Reads the declarations of UTF-8 source in a language. */
    static Reading read(Language language, byte[] utf8) {
        Natives.load();
        TSTree tree = parse(language, utf8);
        if (tree == null) {
            return new Reading(List.of(), 0, true);
        }
        TSNode root = tree.getRootNode();
        Declarations reader = new Declarations(utf8, language);
        reader.members(root, "", 0, false);
        return new Reading(List.copyOf(reader.found), root.hasError() ? firstErrorLine(root) : 0, false);
    }

    private static TSTree parse(Language language, byte[] utf8) {
        ConcurrentLinkedQueue<TSParser> idle = IDLE[language.ordinal()];
        TSParser parser = idle.poll();
        if (parser == null) {
            parser = new TSParser();
            parser.setLanguage(language.grammar());
        }
        long deadline = System.nanoTime() + PARSE_BUDGET_NANOS;
        byte[] buffer = new byte[Math.max(16, Math.min(utf8.length, 1 << 16))];
        TSTree tree = parser.parseWithOptions(buffer, null, (buf, offset, point) -> {
            if (offset >= utf8.length) {
                return 0;
            }
            int count = Math.min(buf.length, utf8.length - offset);
            System.arraycopy(utf8, offset, buf, 0, count);
            return count;
        }, TSInputEncoding.TSInputEncodingUTF8, state -> System.nanoTime() > deadline);
        if (tree == null) {
            parser.reset();
        }
        if (idle.size() < MAX_IDLE) {
            idle.offer(parser);
        }
        return tree;
    }

    /** The line of the first error or missing node, going down the first branch that has one. */
    private static int firstErrorLine(TSNode node) {
        TSNode at = node;
        while (true) {
            if (at.isError() || at.isMissing()) {
                return at.getStartPoint().getRow() + 1;
            }
            TSNode next = null;
            for (int i = 0, n = at.getChildCount(); i < n; i++) {
                TSNode child = at.getChild(i);
                if (child.isError() || child.isMissing() || child.hasError()) {
                    next = child;
                    break;
                }
            }
            if (next == null) {
                return at.getStartPoint().getRow() + 1;
            }
            at = next;
        }
    }

    /** Visits the named children of a node that holds declarations. */
    private void members(TSNode parent, String container, int depth, boolean inType) {
        for (int i = 0, n = parent.getNamedChildCount(); i < n; i++) {
            TSNode child = parent.getNamedChild(i);
            switch (language) {
                case JAVA -> java(child, container, depth);
                case JAVASCRIPT, TYPESCRIPT, TSX -> script(child, container, depth, inType);
                case PYTHON -> python(child, child, container, depth, inType);
                case GO -> go(child);
                case RUST -> rust(child, container, depth, inType);
            }
        }
    }

    private void java(TSNode node, String container, int depth) {
        switch (node.getType()) {
            case "class_declaration", "record_declaration" -> type(node, "class", container, depth);
            case "interface_declaration", "annotation_type_declaration" -> type(node, "interface", container, depth);
            case "enum_declaration" -> type(node, "enum", container, depth);
            case "method_declaration", "constructor_declaration", "annotation_type_element_declaration" ->
                    add(node, node, "method", container, depth);
            case "enum_constant" -> add(node, node, "constant", container, depth);
            case "enum_body_declarations" -> members(node, container, depth, true);
            case "field_declaration", "constant_declaration" -> {
                if (node.getType().equals("constant_declaration") || isStaticFinal(node)) {
                    variables(node, "constant", container, depth);
                }
            }
            default -> {
            }
        }
    }

    private boolean isStaticFinal(TSNode field) {
        for (int i = 0, n = field.getNamedChildCount(); i < n; i++) {
            TSNode child = field.getNamedChild(i);
            if (child.getType().equals("modifiers")) {
                String modifiers = text(child);
                return modifiers.matches("(?s).*\\bstatic\\b.*") && modifiers.matches("(?s).*\\bfinal\\b.*");
            }
        }
        return false;
    }

    private void script(TSNode node, String container, int depth, boolean inType) {
        switch (node.getType()) {
            case "function_declaration", "generator_function_declaration", "function_signature" ->
                    add(node, node, "function", container, depth);
            case "class_declaration", "abstract_class_declaration" -> type(node, "class", container, depth);
            case "interface_declaration" -> type(node, "interface", container, depth);
            case "enum_declaration" -> add(node, node, "enum", container, depth);
            case "type_alias_declaration" -> add(node, node, "type", container, depth);
            case "internal_module", "module" -> type(node, "module", container, depth);
            case "method_definition", "method_signature", "abstract_method_signature" ->
                    add(node, node, "method", container, depth);
            case "export_statement", "ambient_declaration", "expression_statement" -> members(node, container, depth, inType);
            case "lexical_declaration", "variable_declaration" -> {
                if (!inType) {
                    boolean constant = node.getChildCount() > 0 && node.getChild(0).getType().equals("const");
                    for (int i = 0, n = node.getNamedChildCount(); i < n; i++) {
                        TSNode declarator = node.getNamedChild(i);
                        if (!declarator.getType().equals("variable_declarator")) {
                            continue;
                        }
                        TSNode value = declarator.getChildByFieldName("value");
                        String valueType = value.isNull() ? "" : value.getType();
                        if (valueType.equals("arrow_function") || valueType.startsWith("function")
                                || valueType.startsWith("generator_function")) {
                            add(declarator, declarator, "function", container, depth);
                        } else if (constant) {
                            add(declarator, declarator, "constant", container, depth);
                        }
                    }
                }
            }
            default -> {
            }
        }
    }

    /** {@code outer} is the node whose range is the declaration's: a decorated definition's, with its decorators. */
    private void python(TSNode node, TSNode outer, String container, int depth, boolean inClass) {
        switch (node.getType()) {
            case "decorated_definition" -> {
                TSNode definition = node.getChildByFieldName("definition");
                if (!definition.isNull()) {
                    python(definition, node, container, depth, inClass);
                }
            }
            case "function_definition" -> add(node, outer, inClass ? "method" : "function", container, depth);
            case "class_definition" -> {
                Declaration added = add(node, outer, "class", container, depth);
                TSNode body = node.getChildByFieldName("body");
                if (added != null && !body.isNull()) {
                    members(body, added.qualifiedName(), depth + 1, true);
                }
            }
            case "expression_statement" -> {
                TSNode assignment = node.getNamedChildCount() == 1 ? node.getNamedChild(0) : null;
                if (assignment != null && assignment.getType().equals("assignment")) {
                    TSNode left = assignment.getChildByFieldName("left");
                    if (!left.isNull() && left.getType().equals("identifier")) {
                        String name = text(left);
                        if (name.matches("_*[A-Z][A-Z0-9_]*")) {
                            addNamed(name, left, node, "constant", container, depth);
                        }
                    }
                }
            }
            default -> {
            }
        }
    }

    private void go(TSNode node) {
        switch (node.getType()) {
            case "function_declaration" -> add(node, node, "function", "", 0);
            case "method_declaration" -> add(node, node, "method", receiverType(node), 0);
            case "type_declaration" -> {
                for (int i = 0, n = node.getNamedChildCount(); i < n; i++) {
                    TSNode spec = node.getNamedChild(i);
                    if (!spec.getType().equals("type_spec") && !spec.getType().equals("type_alias")) {
                        continue;
                    }
                    TSNode type = spec.getChildByFieldName("type");
                    String kind = type.isNull() ? "type" : switch (type.getType()) {
                        case "struct_type" -> "struct";
                        case "interface_type" -> "interface";
                        default -> "type";
                    };
                    // a lone spec spans its `type` keyword too; specs grouped in parentheses their own lines
                    Declaration added = add(spec, n == 1 ? node : spec, kind, "", 0);
                    if (added != null && kind.equals("interface")) {
                        for (int j = 0, m = type.getNamedChildCount(); j < m; j++) {
                            TSNode element = type.getNamedChild(j);
                            if (element.getType().equals("method_elem") || element.getType().equals("method_spec")) {
                                add(element, element, "method", added.name(), 1);
                            }
                        }
                    }
                }
            }
            case "const_declaration" -> {
                for (int i = 0, n = node.getNamedChildCount(); i < n; i++) {
                    TSNode spec = node.getNamedChild(i);
                    if (spec.getType().equals("const_spec")) {
                        for (int j = 0, m = spec.getNamedChildCount(); j < m; j++) {
                            TSNode name = spec.getNamedChild(j);
                            if ("name".equals(spec.getFieldNameForNamedChild(j))) {
                                addNamed(text(name), name, spec, "constant", "", 0);
                            }
                        }
                    }
                }
            }
            default -> {
            }
        }
    }

    /** A Go method's receiver type without pointer or type parameters: {@code (s *Stack[T])} gives {@code Stack}. */
    private String receiverType(TSNode method) {
        TSNode receiver = method.getChildByFieldName("receiver");
        if (receiver.isNull()) {
            return "";
        }
        return text(receiver).replaceAll("[()*]", " ").replaceAll("\\[.*", "").trim().replaceAll(".*\\s", "");
    }

    private void rust(TSNode node, String container, int depth, boolean inType) {
        switch (node.getType()) {
            case "function_item" -> add(node, node, inType ? "method" : "function", container, depth);
            case "function_signature_item" -> add(node, node, "method", container, depth);
            case "struct_item", "union_item" -> add(node, node, "struct", container, depth);
            case "enum_item" -> add(node, node, "enum", container, depth);
            case "type_item" -> add(node, node, "type", container, depth);
            case "const_item", "static_item" -> add(node, node, "constant", container, depth);
            case "trait_item" -> type(node, "trait", container, depth);
            case "mod_item" -> {
                Declaration added = add(node, node, "module", container, depth);
                TSNode body = node.getChildByFieldName("body");
                if (added != null && !body.isNull()) {
                    members(body, added.qualifiedName(), depth + 1, false);
                }
            }
            case "impl_item" -> {
                TSNode type = node.getChildByFieldName("type");
                if (type.isNull()) {
                    return;
                }
                String typeName = text(type).replaceAll("<.*", "").replaceAll(".*::", "").trim();
                Declaration impl = addNamed(typeName, type, node, "impl", container, depth);
                TSNode body = node.getChildByFieldName("body");
                if (!body.isNull()) {
                    String inner = container.isEmpty() ? typeName : container + "." + typeName;
                    members(body, inner, impl == null ? depth : depth + 1, true);
                }
            }
            default -> {
            }
        }
    }

    /** A type-like declaration whose body holds members. */
    private void type(TSNode node, String kind, String container, int depth) {
        Declaration added = add(node, node, kind, container, depth);
        TSNode body = node.getChildByFieldName("body");
        if (added != null && !body.isNull()) {
            members(body, added.qualifiedName(), depth + 1, true);
        }
    }

    /** Each declarator of a field as its own declaration. */
    private void variables(TSNode field, String kind, String container, int depth) {
        for (int i = 0, n = field.getNamedChildCount(); i < n; i++) {
            TSNode declarator = field.getNamedChild(i);
            if (declarator.getType().equals("variable_declarator")) {
                TSNode name = declarator.getChildByFieldName("name");
                if (!name.isNull()) {
                    addNamed(text(name), name, field, kind, container, depth);
                }
            }
        }
    }

    private Declaration add(TSNode node, TSNode outer, String kind, String container, int depth) {
        TSNode name = node.getChildByFieldName("name");
        if (name.isNull()) {
            return null;
        }
        return addNamed(text(name), name, outer, kind, container, depth);
    }

    private Declaration addNamed(String name, TSNode nameNode, TSNode outer, String kind, String container, int depth) {
        if (name.isBlank() || name.indexOf('\n') >= 0) {
            return null;
        }
        int nameRow = nameNode.getStartPoint().getRow();
        int nameColumn = nameNode.getStartPoint().getColumn();
        Declaration declaration = new Declaration(kind, name, container, depth, nameRow + 1,
                outer.getStartPoint().getRow() + 1, outer.getEndPoint().getRow() + 1, outer.getStartByte(),
                outer.getEndByte(), lineAt(nameNode.getStartByte() - nameColumn));
        found.add(declaration);
        return declaration;
    }

    private String text(TSNode node) {
        int start = Math.max(0, node.getStartByte());
        int end = Math.min(source.length, node.getEndByte());
        return end > start ? new String(source, start, end - start, StandardCharsets.UTF_8) : "";
    }

    /** The line starting at a byte offset, trimmed and cut to {@value #MAX_SIGNATURE_CHARS} characters. */
    private String lineAt(int start) {
        int from = Math.max(0, Math.min(start, source.length));
        int end = from;
        while (end < source.length && source[end] != '\n' && source[end] != '\r' && end - from < MAX_SIGNATURE_CHARS * 4) {
            end++;
        }
        String line = new String(source, from, end - from, StandardCharsets.UTF_8).strip();
        return line.length() > MAX_SIGNATURE_CHARS ? line.substring(0, MAX_SIGNATURE_CHARS) + "..." : line;
    }
}
