package dev.quiver.bash;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Not a test: measures parse + guard of a 10-part compound command and of the lines at and past the
 * parser's bounds (nesting {@value ShellParser#MAX_NESTING}, strings {@value ShellParser#MAX_DEPTH}).
 * The cases take turns within each round, so that they share the machine's load. Run with
 * {@code java -cp <test classpath> dev.quiver.bash.ShellParserBench [rounds] [runs per round]}.
 */
public final class ShellParserBench {

    static final String COMMAND = "cd /work/app && git status --short && ls -la | grep -v node_modules; "
            + "echo \"built $(date +%s)\" > /tmp/out.log 2>&1 || rm -f stale.txt; "
            + "for f in src/*.java; do wc -l \"$f\"; done; mvn -q -o test && npm run build | tee build.log";

    private ShellParserBench() {
    }

    static Map<String, String> cases() {
        int bound = ShellParser.MAX_NESTING;
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("10-part compound (" + COMMAND.length() + " bytes)", COMMAND);
        for (String kind : List.of("$( )", "( )", "\"$( )\"", "if", "[[ $( ) ]]")) {
            String line = ShellParserTest.NESTINGS.get(kind).apply(bound);
            cases.put(bound + " nested " + kind + ", at the bound (" + line.length() + " bytes)", line);
        }
        cases.put("eval " + ShellParser.MAX_DEPTH + " times over, at the bound",
                "eval ".repeat(ShellParser.MAX_DEPTH) + "rm -rf src");
        String past = ShellParserTest.NESTINGS.get("$( )").apply(bound + 1);
        cases.put((bound + 1) + " nested $( ), past the bound (" + past.length() + " bytes)", past);
        cases.put("100 nested $( )", "echo " + "$(".repeat(100) + "rm -rf src" + ")".repeat(100));
        cases.put("500 nested subshells", "( ".repeat(500) + "rm -rf src" + " )".repeat(500));
        cases.put("40,000-deep $( unclosed", "$(".repeat(40_000));
        cases.put("eval " + (ShellParser.MAX_DEPTH + 1) + " times over, past the bound",
                "eval ".repeat(ShellParser.MAX_DEPTH + 1) + "rm -rf src");
        return cases;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        ShellWorkspace ignored = CommandGuardTest.BUILD_OUTPUT;
        Map<String, String> cases = cases();
        Map<String, List<Long>> samples = new LinkedHashMap<>();
        long sink = 0;
        for (int round = -5; round < rounds; round++) {
            for (Map.Entry<String, String> c : cases.entrySet()) {
                for (int i = 0; i < runs; i++) {
                    long start = System.nanoTime();
                    sink += run(c.getValue(), ignored);
                    long nanos = System.nanoTime() - start;
                    if (round >= 0) {
                        samples.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(nanos);
                    }
                }
            }
        }
        System.out.println("| case | decision | median µs | p99 µs |");
        System.out.println("|---|---|---|---|");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            long[] sorted = samples.get(c.getKey()).stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(sorted);
            ParsedCommand parsed = ShellParser.parse(c.getValue());
            String decision = CommandGuard.refusal(parsed, ignored).isPresent() ? "refused by the guard"
                    : parsed.complete() ? "read completely" : "unjudgeable: " + parsed.unjudgeable().get(0);
            System.out.printf("| %s | %s | %.1f | %.1f |%n", c.getKey(), ShellText.abbreviate(decision, 50),
                    sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.99)] / 1e3);
        }
        System.out.println("(checksum " + sink + ")");
    }

    private static int run(String command, ShellWorkspace ignored) {
        ParsedCommand parsed = ShellParser.parse(command);
        Optional<String> refusal = CommandGuard.refusal(parsed, ignored);
        return parsed.commands().size() + (refusal.isPresent() ? 1 : 0);
    }
}
