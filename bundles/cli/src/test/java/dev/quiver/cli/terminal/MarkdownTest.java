package dev.quiver.cli.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;
import org.junit.jupiter.api.Test;

class MarkdownTest {

    private static String plain(String markdown) {
        return String.join("\n", Markdown.render(markdown, false).stream().map(AttributedString::toString).toList());
    }

    private static AttributedString one(String markdown) {
        return Markdown.render(markdown, true).get(0);
    }

    /** The style of the first occurrence of a text in a rendered line. */
    private static AttributedStyle styleOf(AttributedString line, String text) {
        return line.styleAt(line.toString().indexOf(text));
    }

    @Test
    void headingsListsQuotesAndRulesReadWithoutTheirMarkers() {
        assertEquals("Plan\nSteps\n• one\n  • nested\n☐ todo\n☑ done\n2. second\n▏ quoted\n" + "╌".repeat(40),
                plain("# Plan\n## Steps\n- one\n  * nested\n- [ ] todo\n- [x] done\n2. second\n> quoted\n---"));
    }

    @Test
    void emphasisAndCodeAreStyledInATerminal() {
        AttributedString line = one("a **bold** and *em* and `code` and ~~gone~~");
        assertEquals("a bold and em and code and gone", line.toString());
        assertTrue(styleOf(line, "bold").equals(AttributedStyle.BOLD));
        assertEquals(AttributedStyle.DEFAULT.italic(), styleOf(line, "em"));
        assertEquals(AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN), styleOf(line, "code"));
        assertEquals(AttributedStyle.DEFAULT, styleOf(line, "a "));
        assertEquals(AttributedStyle.BOLD.underline(), styleOf(one("# Title"), "Title"));
    }

    @Test
    void withoutATerminalThereAreNoStylesAndInlineCodeKeepsItsBackticks() {
        List<AttributedString> lines = Markdown.render("# T\n**b** `c`\n```\nx\n```", false);
        for (AttributedString line : lines) {
            assertFalse(line.toAnsi().contains("\033"), line.toAnsi());
        }
        assertEquals("b `c`", lines.get(1).toString());
    }

    @Test
    void wordsWithUnderscoresAndLoneStarsStayAsTheyAre() {
        assertEquals("call snake_case_name and 2 * 3 * 4", plain("call snake_case_name and 2 * 3 * 4"));
        assertEquals("an _emphasised_ word", one("an _emphasised_ word").toString().replace("emphasised", "_emphasised_"));
        assertEquals("**not closed", plain("**not closed"));
        assertEquals("a literal *star*", plain("a literal \\*star\\*"));
    }

    @Test
    void linksShowTheirTextAndAddress() {
        assertEquals("see the docs (https://example.org/d)", plain("see [the docs](https://example.org/d)"));
        assertEquals("https://x.org", plain("[https://x.org](https://x.org)"));
    }

    @Test
    void fencedCodeIsABlockWhoseLinesAreNotMarkdown() {
        assertEquals("╭╴python\n▏ # not a heading\n▏ x = **y**\n╰╴\nafter", plain("```python\n# not a heading\nx = **y**\n```\nafter"));
        assertEquals("╭╴\n▏ a\n╰╴", plain("~~~\na\n~~~"));
    }

    @Test
    void peekRendersAnUnfinishedLineWithoutMovingOnSoAnOpenFenceGrows() {
        Markdown markdown = new Markdown(false);
        assertEquals("╭╴java", markdown.line("```java").get(0).toString());
        assertTrue(markdown.inCode());
        assertEquals("▏ int x", markdown.peek("int x").get(0).toString());
        assertEquals("▏ int x = 1;", markdown.line("int x = 1;").get(0).toString());
        assertEquals("╰╴", markdown.peek("```").get(0).toString());
        assertTrue(markdown.inCode(), "peek does not close the block");
        markdown.line("```");
        assertFalse(markdown.inCode());
    }

    @Test
    void escapeSequencesFromTheModelNeverReachTheTerminal() {
        assertEquals("redtext", plain("\033[31mred\033[0mtext"));
        assertEquals("title", plain("\033]0;evil\007title"));
    }

    @Test
    void aGfmTableIsDrawnInAlignedColumnsWithItsCellsMarkdownRendered() {
        String table = "Results:\n\n| Tool | Calls | Result |\n|:-----|------:|:------:|\n| `grep` | 12 | **ok** |\n"
                + "| edit_file | 3 | a \\| b |\n\nDone.";
        assertEquals("Results:\n\n"
                + "Tool      │ Calls │ Result\n"
                + "──────────┼───────┼───────\n"
                + "`grep`    │    12 │   ok\n"
                + "edit_file │     3 │ a | b\n"
                + "\nDone.", plain(table));
        List<AttributedString> styled = Markdown.render(table, true);
        assertTrue(styleOf(styled.get(2), "Tool").equals(AttributedStyle.BOLD), "the header is bold");
        assertEquals(AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN), styleOf(styled.get(4), "grep"), "code in a cell is code");
    }

    @Test
    void pipesThatAreNotATableStayAsWrittenAndATableAtTheEndIsDrawnWhenTheAnswerEnds() {
        assertEquals("use a | b to pipe\nnext line", plain("use a | b to pipe\nnext line"));
        Markdown markdown = new Markdown(false);
        assertEquals(List.of(), markdown.line("| a | b |"));
        assertEquals(List.of(), markdown.line("|---|---|"));
        // while a row streams, the held rows show as the table they make so far, then the row as typed
        assertEquals(List.of("a │ b", "──┼──", "| 1 | 2"), markdown.peek("| 1 | 2").stream().map(AttributedString::toString)
                .toList());
        assertEquals(List.of(), markdown.line("| 1 | 2 |"));
        assertEquals(List.of("a │ b", "──┼──", "1 │ 2"), markdown.finish().stream().map(AttributedString::toString).toList());
        assertEquals(List.of(), markdown.finish(), "drawn twice");
    }

    @Test
    void aTableWiderThanTheTerminalIsShrunkWithItsWidestColumnCut() {
        Markdown markdown = new Markdown(false);
        markdown.width(30);
        markdown.line("| name | description |");
        markdown.line("|---|---|");
        markdown.line("| x | " + "long words ".repeat(10) + "|");
        List<String> lines = markdown.finish().stream().map(AttributedString::toString).toList();
        for (String line : lines) {
            assertTrue(line.length() <= 29, "too wide: " + line);
        }
        assertTrue(lines.get(2).endsWith("…"), lines.get(2));
    }

    @Test
    void anEscapeInATableCellNeverReachesTheTerminal() {
        String out = plain("| a |\n|---|\n| \u001b[2J x |");
        assertFalse(out.contains("\u001b"), out);
    }
}
