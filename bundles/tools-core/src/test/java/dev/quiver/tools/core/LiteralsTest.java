package dev.quiver.tools.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.re2j.Pattern;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LiteralsTest {

    private static Optional<List<String>> required(String regex) {
        return Literals.required(regex, false);
    }

    @Test
    void plainTextIsItsOwnLiteral() {
        assertEquals(Optional.of(List.of("ConcurrentHashMap")), required("ConcurrentHashMap"));
    }

    @Test
    void theLongestRequiredRunIsChosen() {
        assertEquals(Optional.of(List.of("synchronized")), required("synchronized\\s+\\w+\\s*\\("));
        assertEquals(Optional.of(List.of("Exception(\"")), required("\\w+Exception\\(\"[^\"]*\"\\)"));
        assertEquals(Optional.of(List.of("foo.bar")), required("^foo\\.bar$"));
    }

    @Test
    void optionalCharactersAreLeftOut() {
        assertEquals(Optional.of(List.of("colo")), required("colou?r"));
        assertEquals(Optional.of(List.of("abc")), required("abcd*e"));
        assertEquals(Optional.of(List.of("abc")), required("abcd{0,2}e"));
        assertEquals(Optional.of(List.of("abcd")), required("abcd+e"));
        assertEquals(Optional.of(List.of("abcd")), required("abcd{2}e"));
        assertEquals(Optional.of(List.of("abc")), required("abc(def)?"));
        assertEquals(Optional.of(List.of("abc")), required("abc[de]*?"));
    }

    @Test
    void alternativesNeedALiteralEach() {
        assertEquals(Optional.of(List.of("alpha", "gam")), required("alpha|gam+a"));
        assertEquals(Optional.empty(), required("alpha|\\d+"));
        assertEquals(Optional.of(List.of("ab")), required("(x|y)ab"), "alternatives inside a group are a group");
    }

    @Test
    void patternsWithoutAnyLiteralOrWithFlagsHaveNone() {
        assertEquals(Optional.empty(), required("\\d+"));
        assertEquals(Optional.empty(), required("^\\s*$"));
        assertEquals(Optional.empty(), required("(?i)needle"));
        assertEquals(Optional.empty(), required("[a-z]+"));
        assertEquals(Optional.empty(), required("(unbalanced"));
    }

    @Test
    void quotedTextIsLiteral() {
        assertEquals(Optional.of(List.of("a.b*c")), required(Pattern.quote("a.b*c")));
        assertEquals(Optional.of(List.of("x(y)")), required("\\Qx(y)\\E"));
        assertEquals(Optional.of(List.of("x(y")), required("\\Qx(y)\\E?"));
    }

    @Test
    void underIgnoreCaseTheLettersKAndSEndALiteral() {
        assertEquals(Optional.of(List.of("elvin")), Literals.required("kelvin", true));
        assertEquals(Optional.of(List.of("long ")), Literals.required("long sign", true));
        assertEquals(Optional.empty(), Literals.required("\u00e9t\u00e9", true), "Unicode folding is not scanned for");
        assertEquals(Optional.of(List.of("\u00e9t\u00e9")), Literals.required("\u00e9t\u00e9", false));
    }

    /** Whatever literal is named, every line the regex matches contains it. */
    @Test
    void namedLiteralsAreContainedInEveryMatchOfRandomPatterns() {
        String[] atoms = {"a", "b", "c", "ab", "\\.", ".", "\\d", "[ab]", "(a|b)", "x", "y?", "z*", "c+", "(?:ab)?",
            "a{2}", "b{0,1}", "\\s", "^", "$", "|"};
        Random random = new Random(42);
        String[] lines = {"", "a", "ab", "abc", "aab", "x.y", "xyz", "ccc", "a b", "ba", "ab.c1", "zzzz", "abab",
            "a.b", "c", "xx", "1 2", "aa bb", "b a c", "yxz"};
        for (int n = 0; n < 5000; n++) {
            StringBuilder regex = new StringBuilder();
            int length = 1 + random.nextInt(6);
            for (int i = 0; i < length; i++) {
                regex.append(atoms[random.nextInt(atoms.length)]);
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex.toString());
            } catch (RuntimeException invalid) {
                continue;
            }
            Optional<List<String>> literals = required(regex.toString());
            if (literals.isEmpty()) {
                continue;
            }
            for (String line : lines) {
                if (pattern.matcher(line).find()) {
                    boolean contains = literals.get().stream().anyMatch(line::contains);
                    assertEquals(true, contains, "regex " + regex + " matches '" + line + "' without " + literals.get());
                }
            }
        }
    }
}
