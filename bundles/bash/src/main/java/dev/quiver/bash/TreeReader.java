package dev.quiver.bash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.treesitter.TSLanguage;
import org.treesitter.TSNode;
import org.treesitter.TSParser;
import org.treesitter.TSSymbolType;
import org.treesitter.TSTree;

/**
 * Copies a tree-sitter tree into {@link Node}s with one cursor walk, calling the binding's natives
 * directly (they are protected statics of {@link TSParser}, hence the subclass, which is never
 * instantiated): per node one current-node, one symbol and one field-id call; types and names
 * come from tables read once from the language.
 */
final class TreeReader extends TSParser {

    private static final int ERROR_SYMBOL = 0xFFFF;

    /** The start byte is the first context word of a node; read as a field when possible. */
    private static final VarHandle CONTEXT0 = context0();

    private static volatile Tables tables;

    private TreeReader() {
        throw new AssertionError();
    }

    private record Tables(String[] names, boolean[] named, String[] fields, boolean[] fielded) {
    }

    /**
     * The node types whose children the walker tells apart by field (see {@link Node#field}); the
     * field of any other node's child is not read, one native call fewer per node.
     */
    private static final Set<String> FIELDED = Set.of("command", "redirected_statement", "file_redirect",
            "herestring_redirect", "heredoc_redirect", "function_definition");

    private static VarHandle context0() {
        try {
            return MethodHandles.privateLookupIn(TSNode.class, MethodHandles.lookup())
                    .findVarHandle(TSNode.class, "context0", int.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Tables tables(TSLanguage language) {
        Tables t = tables;
        if (t == null) {
            int symbols = language.symbolCount();
            String[] names = new String[symbols];
            boolean[] named = new boolean[symbols];
            boolean[] fielded = new boolean[symbols];
            for (int s = 0; s < symbols; s++) {
                names[s] = language.symbolName(s);
                named[s] = language.symbolType(s) == TSSymbolType.TSSymbolTypeRegular;
                fielded[s] = FIELDED.contains(names[s]);
            }
            int fieldCount = language.fieldCount();
            String[] fields = new String[fieldCount + 1];
            for (int f = 1; f <= fieldCount; f++) {
                fields[f] = language.fieldNameForId(f);
            }
            t = new Tables(names, named, fields, fielded);
            tables = t;
        }
        return t;
    }

    static int endByte(TSNode node) {
        return ts_node_end_byte(node);
    }

    /**
     * The tree's copy, or null when it has more than {@code maxNodes} nodes or the deadline passed.
     * Nodes deeper than {@code maxDepth} are left out and {@code truncated[0]} is set.
     */
    static Node read(TSTree tree, TSLanguage language, int maxNodes, int maxDepth, long deadline, boolean[] truncated) {
        Tables t = tables(language);
        long cursor = ts_tree_cursor_new(tree.getRootNode());
        try {
            List<List<Node>> open = new ArrayList<>();
            Node root = node(cursor, t, false);
            List<Node> path = new ArrayList<>();
            path.add(root);
            open.add(new ArrayList<>());
            int count = 1;
            while (true) {
                if (path.size() <= maxDepth && ts_tree_cursor_goto_first_child(cursor)) {
                    Node child = node(cursor, t, path.get(path.size() - 1).fielded);
                    open.get(open.size() - 1).add(child);
                    path.add(child);
                    open.add(new ArrayList<>());
                } else {
                    if (path.size() > maxDepth) {
                        truncated[0] = true;
                    }
                    while (true) {
                        close(path, open);
                        if (ts_tree_cursor_goto_next_sibling(cursor)) {
                            Node sibling = node(cursor, t, !path.isEmpty() && path.get(path.size() - 1).fielded);
                            open.get(open.size() - 1).add(sibling);
                            path.add(sibling);
                            open.add(new ArrayList<>());
                            break;
                        }
                        if (path.isEmpty() || !ts_tree_cursor_goto_parent(cursor)) {
                            while (!path.isEmpty()) {
                                close(path, open);
                            }
                            return root;
                        }
                    }
                }
                if (++count > maxNodes || ((count & 255) == 0 && System.nanoTime() > deadline)) {
                    return null;
                }
            }
        } finally {
            ts_tree_cursor_delete(cursor);
        }
    }

    /** Ends the innermost open node: its collected children become its array. */
    private static void close(List<Node> path, List<List<Node>> open) {
        Node n = path.remove(path.size() - 1);
        List<Node> kids = open.remove(open.size() - 1);
        if (!kids.isEmpty()) {
            n.children = kids.toArray(Node.NONE);
        }
    }

    /** The node at the cursor; its field is read when its parent is {@code fielded}. */
    private static Node node(long cursor, Tables t, boolean fielded) {
        TSNode n = ts_tree_cursor_current_node(cursor);
        int symbol = ts_node_symbol(n);
        String type;
        boolean named;
        boolean itsChildrenFielded = false;
        if (symbol >= 0 && symbol < t.names.length) {
            type = t.names[symbol];
            named = t.named[symbol];
            itsChildrenFielded = t.fielded[symbol];
        } else {
            type = symbol == ERROR_SYMBOL ? "ERROR" : n.getType();
            named = true;
        }
        int fieldId = fielded ? ts_tree_cursor_current_field_id(cursor) : 0;
        String field = fieldId > 0 && fieldId < t.fields.length ? t.fields[fieldId] : null;
        int start = CONTEXT0 != null ? (int) CONTEXT0.get(n) : ts_node_start_byte(n);
        Node node = new Node(type, field, named, start, n);
        node.fielded = itsChildrenFielded;
        return node;
    }
}
