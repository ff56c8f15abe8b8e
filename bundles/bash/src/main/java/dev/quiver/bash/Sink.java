package dev.quiver.bash;

import java.util.ArrayList;
import java.util.List;

/** What one analysis accumulates: simple commands (still mutable) and the structure around them. */
final class Sink {

    /** A simple command while its redirections may still grow. */
    static final class Cmd {
        final Word name;
        final List<Word> args;
        final List<Redirect> redirects;
        final List<String> wrappers;
        /** How many strings deep the command was read ({@code bash -c}, eval, a here-document fed to a shell). */
        final int depth;
        /** A wrapper run without a command that starts a shell reading its standard input ({@code sudo -s}, {@code su}). */
        final boolean shell;
        /** The assignments it runs with (see {@link SimpleCommand#assignments()}). */
        List<Word> assignments = List.of();

        Cmd(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers, int depth, boolean shell) {
            this.name = name;
            this.args = args;
            this.redirects = new ArrayList<>(redirects);
            this.wrappers = wrappers;
            this.depth = depth;
            this.shell = shell;
        }

        SimpleCommand build() {
            return new SimpleCommand(name, args, redirects, wrappers, assignments);
        }
    }

    final List<Cmd> cmds = new ArrayList<>();
    final List<Structure.Pipeline> pipelines = new ArrayList<>();
    final List<Structure.Function> functions = new ArrayList<>();
    final List<Structure.Stage> backgrounds = new ArrayList<>();
    /** Why the line cannot be judged (see {@link ParsedCommand#unjudgeable()}), each reason once. */
    final List<String> reasons = new ArrayList<>();
    /** Assignments that are statements of their own or declarations ({@code X=1;}, {@code export X=1}), which later commands may see. */
    final List<Word> assignments = new ArrayList<>();
    /** Assignments for the next command {@link #add}ed (before its command word, or passed on by a wrapper). */
    List<Word> pendingAssignments = List.of();

    /** More reasons than this are not kept: the first ones already say why, and a line cannot grow the list without bound. */
    private static final int MAX_REASONS = 16;

    int size() {
        return cmds.size();
    }

    /** Records that a part of the line cannot be judged, and why. */
    void unjudgeable(String reason) {
        if (reasons.size() < MAX_REASONS && !reasons.contains(reason)) {
            reasons.add(reason);
        }
    }

    boolean incomplete() {
        return !reasons.isEmpty();
    }

    /** Where a sink stands, to go back to with {@link #rollBack}. */
    record Mark(int cmds, int pipelines, int functions, int backgrounds, int reasons, int assignments) {
    }

    Mark mark() {
        return new Mark(cmds.size(), pipelines.size(), functions.size(), backgrounds.size(), reasons.size(),
                assignments.size());
    }

    /** Forgets everything added since {@code mark}. */
    void rollBack(Mark mark) {
        cmds.subList(mark.cmds(), cmds.size()).clear();
        pipelines.subList(mark.pipelines(), pipelines.size()).clear();
        functions.subList(mark.functions(), functions.size()).clear();
        backgrounds.subList(mark.backgrounds(), backgrounds.size()).clear();
        reasons.subList(mark.reasons(), reasons.size()).clear();
        assignments.subList(mark.assignments(), assignments.size()).clear();
        pendingAssignments = List.of();
    }

    void add(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers, int depth) {
        add(name, args, redirects, wrappers, depth, false);
    }

    void add(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers, int depth, boolean shell) {
        Cmd cmd = new Cmd(name, List.copyOf(args), redirects, List.copyOf(wrappers), depth, shell);
        cmd.assignments = List.copyOf(pendingAssignments);
        cmds.add(cmd);
    }

    void addPipeline(List<Structure.Stage> stages) {
        if (stages.size() > 1) {
            pipelines.add(new Structure.Pipeline(List.copyOf(stages)));
        }
    }

    /** Appends another analysis (a {@code bash -c} string, a backtick body): wrappers go in front, redirections after. */
    void merge(Sink inner, List<String> wrapperPrefix, List<Redirect> redirects) {
        int offset = cmds.size();
        for (Cmd c : inner.cmds) {
            List<String> wrappers = c.wrappers;
            if (!wrapperPrefix.isEmpty()) {
                List<String> w = new ArrayList<>(wrapperPrefix);
                w.addAll(c.wrappers);
                wrappers = List.copyOf(w);
            }
            Cmd copy = new Cmd(c.name, c.args, c.redirects, wrappers, c.depth, c.shell);
            copy.redirects.addAll(redirects);
            // a string a command runs (bash -c, eval) runs with that command's assignments
            List<Word> assignments = new ArrayList<>(pendingAssignments);
            assignments.addAll(c.assignments);
            copy.assignments = List.copyOf(assignments);
            cmds.add(copy);
        }
        for (Structure.Pipeline p : inner.pipelines) {
            List<Structure.Stage> stages = new ArrayList<>(p.stages().size());
            for (Structure.Stage s : p.stages()) {
                stages.add(new Structure.Stage(s.start() + offset, s.end() + offset));
            }
            pipelines.add(new Structure.Pipeline(List.copyOf(stages)));
        }
        for (Structure.Stage s : inner.backgrounds) {
            backgrounds.add(new Structure.Stage(s.start() + offset, s.end() + offset));
        }
        functions.addAll(inner.functions);
        assignments.addAll(inner.assignments);
        inner.reasons.forEach(this::unjudgeable);
    }

    /**
     * Records a function defined with the pipelines and backgrounds from {@code pipelines} and
     * {@code backgrounds} on as its body and what follows: whether it is piped into itself and whether
     * it is run in the background (a fork bomb's marks).
     */
    void function(String name, int pipelines, int backgrounds) {
        boolean piped = false;
        for (int p = pipelines; p < this.pipelines.size() && !piped; p++) {
            int stages = 0;
            for (Structure.Stage s : this.pipelines.get(p).stages()) {
                stages += namedIn(s, name) ? 1 : 0;
            }
            piped = stages >= 2;
        }
        boolean inBackground = false;
        for (int b = backgrounds; b < this.backgrounds.size() && !inBackground; b++) {
            inBackground = namedIn(this.backgrounds.get(b), name);
        }
        functions.add(new Structure.Function(name, piped, inBackground));
    }

    boolean namedIn(Structure.Stage range, String name) {
        for (int k = range.start(); k < range.end() && k < cmds.size(); k++) {
            Word w = cmds.get(k).name;
            if (w.literal() && ShellText.baseName(w).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The finished parse: first the code the commands are fed ({@link CodeInput}), then the model. */
    ParsedCommand toParsed(String source) {
        CodeInput.resolve(this);
        List<SimpleCommand> list = new ArrayList<>(cmds.size());
        for (Cmd c : cmds) {
            list.add(c.build());
        }
        Structure structure = pipelines.isEmpty() && functions.isEmpty() && assignments.isEmpty()
                ? Structure.EMPTY : new Structure(pipelines, functions, assignments);
        return new ParsedCommand(source, new Structure.CommandList(list, structure), reasons);
    }
}
