package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.re2j.Pattern;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineMatcherTest {

    private static final List<String> LINES = List.of("", "   ", "\t", "public synchronized void run() {",
            "Map<String, HashMap<K, V>> m;", "ÄÖÜ straße STRASSE", "x = 42; // TODO fix", "a\u0085b", "a\u2028b",
            "ſ and K (Kelvin sign)", "[brackets] and ]close", "tab\there", "word_boundary café", "end$");

    private static final List<String> PATTERNS = List.of("^\\s*$", "synchronized\\s+\\w+\\s*\\(", "[A-Z]{3}",
            "hashmap<\\w+", "TODO|FIXME", "^a.b$", "\\d+;", "[^\\p{L}\\p{N}_]café", "straße", "\\Q[brackets]\\E",
            "(?i)kelvin", "(?s)a.b", "x{2,3}", "\\p{Lu}{2}", "[a-c]+\\]", "\\$$", "(?:ab|cd)e?");

    @Test
    void everyPatternMatchesTheSameLinesInBothEnginesWithAndWithoutIgnoreCase() {
        for (String regex : PATTERNS) {
            for (boolean ignoreCase : new boolean[] {false, true}) {
                Pattern re2 = Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
                LineMatcher matcher = new LineMatcher(re2);
                for (String line : LINES) {
                    assertEquals(re2.matcher(line).find(), matcher.find(line),
                            regex + (ignoreCase ? " (ignore case)" : "") + " on " + line);
                }
            }
        }
    }

    @Test
    void constructsTheEnginesReadDifferentlyStayWithRe2() {
        for (String regex : List.of("\\bword\\b", "[[:alpha:]]+", "[a-z&&[^b]]", "(?U)a+", "\\v", "(?=x)", "[]a]",
                "\\1", "[a-z[0-9]]")) {
            assertFalse(LineMatcher.sameInBothEngines(regex), regex);
        }
        assertTrue(new LineMatcher(Pattern.compile("synchronized\\s+\\w+")).usesJdkEngine());
        assertFalse(new LineMatcher(Pattern.compile("\\bfoo\\b")).usesJdkEngine());
        // RE2 reads [[:alpha:]] as a POSIX class: the result is RE2's
        assertTrue(new LineMatcher(Pattern.compile("^[[:alpha:]]+$")).find("abc"));
    }

    @Test
    void aCatastrophicPatternFallsBackToTheLinearEngineAndStillAnswersCorrectly() {
        Pattern re2 = Pattern.compile("(a+)+b");
        LineMatcher matcher = new LineMatcher(re2);
        assertTrue(matcher.usesJdkEngine());
        String line = "a".repeat(5_000) + "c";
        long start = System.nanoTime();
        assertFalse(matcher.find(line));
        assertTrue(matcher.find("a".repeat(40) + "b"));
        // no timing assertion (speed is measured in bench/), but an unbounded backtrack would never return
        assertTrue(System.nanoTime() - start > 0);
    }
}
