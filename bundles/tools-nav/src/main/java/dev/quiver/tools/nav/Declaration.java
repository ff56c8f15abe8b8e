package dev.quiver.tools.nav;

/**
 * One declaration of a file.
 *
 * @param kind {@code class}, {@code struct}, {@code interface}, {@code trait}, {@code enum}, {@code type},
 *     {@code function}, {@code method}, {@code constant}, {@code module} or {@code impl}
 * @param name the declared name ({@code impl}: the type it is for)
 * @param container the enclosing declarations' names joined by dots ({@code Outer.Inner}; a Go method's
 *     receiver type; a Rust method's impl type), empty at the top
 * @param depth how deep it is nested in the outline, 0 at the top
 * @param line the 1-based line of its name
 * @param startLine the first line of the whole declaration, decorators, annotations and comments inside it included
 * @param endLine its last line
 * @param startByte where it starts in the file's UTF-8 bytes
 * @param endByte where it ends
 * @param signature its name's line, trimmed and cut short
 */
record Declaration(String kind, String name, String container, int depth, int line, int startLine, int endLine,
        int startByte, int endByte, String signature) {

    /** The name with its containers, {@code Outer.Inner.method}. */
    String qualifiedName() {
        return container.isEmpty() ? name : container + "." + name;
    }

    /** Whether find_symbol and read_symbol look for it: an impl block is a place, not a definition. */
    boolean isDefinition() {
        return !kind.equals("impl");
    }
}
