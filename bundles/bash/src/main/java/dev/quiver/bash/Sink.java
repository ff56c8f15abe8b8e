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

        Cmd(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers) {
            this.name = name;
            this.args = args;
            this.redirects = new ArrayList<>(redirects);
            this.wrappers = wrappers;
        }

        SimpleCommand build() {
            return new SimpleCommand(name, args, redirects, wrappers);
        }
    }

    final List<Cmd> cmds = new ArrayList<>();
    final List<Structure.Pipeline> pipelines = new ArrayList<>();
    final List<Structure.Function> functions = new ArrayList<>();
    final List<Structure.Stage> backgrounds = new ArrayList<>();
    boolean incomplete;

    int size() {
        return cmds.size();
    }

    /** Where a sink stands, to go back to with {@link #rollBack}. */
    record Mark(int cmds, int pipelines, int functions, int backgrounds, boolean incomplete) {
    }

    Mark mark() {
        return new Mark(cmds.size(), pipelines.size(), functions.size(), backgrounds.size(), incomplete);
    }

    /** Forgets everything added since {@code mark}. */
    void rollBack(Mark mark) {
        cmds.subList(mark.cmds(), cmds.size()).clear();
        pipelines.subList(mark.pipelines(), pipelines.size()).clear();
        functions.subList(mark.functions(), functions.size()).clear();
        backgrounds.subList(mark.backgrounds(), backgrounds.size()).clear();
        incomplete = mark.incomplete();
    }

    void add(Word name, List<Word> args, List<Redirect> redirects, List<String> wrappers) {
        cmds.add(new Cmd(name, List.copyOf(args), redirects, List.copyOf(wrappers)));
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
            Cmd copy = new Cmd(c.name, c.args, c.redirects, wrappers);
            copy.redirects.addAll(redirects);
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
        incomplete |= inner.incomplete;
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

    ParsedCommand toParsed(String source) {
        List<SimpleCommand> list = new ArrayList<>(cmds.size());
        for (Cmd c : cmds) {
            list.add(c.build());
        }
        Structure structure = pipelines.isEmpty() && functions.isEmpty()
                ? Structure.EMPTY : new Structure(pipelines, functions);
        return new ParsedCommand(source, new Structure.CommandList(list, structure), !incomplete);
    }
}
