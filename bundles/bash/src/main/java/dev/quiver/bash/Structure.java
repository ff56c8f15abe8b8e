package dev.quiver.bash;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * What the flat list of simple commands loses and the guard needs: which commands feed which
 * through a pipe, and which functions call themselves in a pipeline or in the background.
 * Command positions are indexes into {@link ParsedCommand#commands()}.
 */
final class Structure {

    static final Structure EMPTY = new Structure(List.of(), List.of(), List.of());

    /** The commands of one pipeline stage, {@code [start, end)}; a stage may hold several (a group, substitutions). */
    record Stage(int start, int end) {
        boolean contains(int index) {
            return index >= start && index < end;
        }
    }

    /** Stages in order: each one's standard output feeds the next one's standard input. */
    record Pipeline(List<Stage> stages) {
    }

    /**
     * A function definition: whether its body runs the function itself in two stages of one
     * pipeline ({@code f | f}), and whether it runs itself in the background ({@code f &}).
     */
    record Function(String name, boolean selfPiped, boolean selfInBackground) {
    }

    final List<Pipeline> pipelines;
    final List<Function> functions;
    /** Assignments that are statements of their own or declarations ({@code PATH=x:$PATH;}, {@code export GIT_DIR=x}). */
    final List<Word> assignments;

    Structure(List<Pipeline> pipelines, List<Function> functions, List<Word> assignments) {
        this.pipelines = List.copyOf(pipelines);
        this.functions = List.copyOf(functions);
        this.assignments = List.copyOf(assignments);
    }

    /** The parser's immutable command list, which also carries the structure. */
    static final class CommandList extends AbstractList<SimpleCommand> implements RandomAccess {
        private final SimpleCommand[] items;
        final Structure structure;

        CommandList(List<SimpleCommand> items, Structure structure) {
            this.items = items.toArray(new SimpleCommand[0]);
            this.structure = structure;
        }

        @Override
        public SimpleCommand get(int index) {
            return items[index];
        }

        @Override
        public int size() {
            return items.length;
        }
    }
}
