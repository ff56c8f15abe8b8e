package dev.quiver.bash;

import org.treesitter.TSNode;

/**
 * A Java copy of one tree-sitter node. Every call into the tree-sitter binding costs about a
 * microsecond (it looks its classes up on each call), so {@link TreeReader} copies the tree in
 * one cursor walk and the {@link Walker} never calls native code.
 */
final class Node {

    static final Node[] NONE = new Node[0];

    final String type;
    final String field;
    final boolean named;
    final int start;
    /** Whether the reader read the fields of this node's children (only for the types the walker asks). */
    boolean fielded;
    private int end;
    private TSNode handle;
    Node[] children = NONE;

    Node(String type, String field, boolean named, int start, TSNode handle) {
        this.type = type;
        this.field = field;
        this.named = named;
        this.start = start;
        this.handle = handle;
        this.end = -1;
    }

    /** The end byte, read from the tree when first asked (most nodes are never asked). */
    int end() {
        if (end < 0) {
            end = handle == null ? start : TreeReader.endByte(handle);
            handle = null;
        }
        return end;
    }

    int childCount() {
        return children.length;
    }

    Node child(int i) {
        return children[i];
    }

    Node childByField(String name) {
        for (Node c : children) {
            if (name.equals(c.field)) {
                return c;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        if (field != null) {
            b.append(field).append(": ");
        }
        b.append(named ? type : "'" + type + "'");
        if (children.length > 0) {
            b.append(" (");
            for (int i = 0; i < children.length; i++) {
                b.append(i == 0 ? "" : " ").append(children[i]);
            }
            b.append(')');
        }
        return b.toString();
    }
}
