package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quiver.api.UserQuestion;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A typed line as the answer to a tool's question, in line mode. */
class LineAnswerTest {

    private static final List<UserQuestion.Option> OPTIONS = List.of(new UserQuestion.Option("a", ""),
            new UserQuestion.Option("b", ""), new UserQuestion.Option("c", ""));

    @Test
    void numbersChooseOptionsTextIsItsOwnAnswerAndAnEmptyLineDismisses() {
        UserQuestion one = new UserQuestion("Which?", OPTIONS, false);
        UserQuestion several = new UserQuestion("Which?", OPTIONS, true);
        assertEquals(Optional.of(List.of("b")), LineAnswer.read(" 2 ", one));
        assertEquals(Optional.of(List.of("a", "c")), LineAnswer.read("1, 3", several));
        assertEquals(Optional.of(List.of("1, 3")), LineAnswer.read("1, 3", one), "one allowed: the text is the answer");
        assertEquals(Optional.of(List.of("7")), LineAnswer.read("7", one), "no such option: the text is the answer");
        assertEquals(Optional.of(List.of("99999999999")), LineAnswer.read("99999999999", one));
        assertEquals(Optional.of(List.of("use d")), LineAnswer.read("use d", one));
        assertEquals(Optional.empty(), LineAnswer.read("  ", one));
        assertEquals(Optional.empty(), LineAnswer.read(null, one));
        assertEquals(Optional.of(List.of("2")), LineAnswer.read("2", new UserQuestion("Name?", List.of(), false)));
    }
}
