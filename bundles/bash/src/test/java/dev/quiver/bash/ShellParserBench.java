package dev.quiver.bash;

import java.util.Optional;

/**
 * Not a test: measures parse + guard of a 10-part compound command. Run with
 * {@code java -cp <test classpath> dev.quiver.bash.ShellParserBench [iterations]}.
 */
public final class ShellParserBench {

    static final String COMMAND = "cd /work/app && git status --short && ls -la | grep -v node_modules; "
            + "echo \"built $(date +%s)\" > /tmp/out.log 2>&1 || rm -f stale.txt; "
            + "for f in src/*.java; do wc -l \"$f\"; done; mvn -q -o test && npm run build | tee build.log";

    private ShellParserBench() {
    }

    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        ShellWorkspace ignored = CommandGuardTest.BUILD_OUTPUT;
        int parts = ShellParser.parse(COMMAND).commands().size();
        long sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += run(ignored);
        }
        long start = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            sink += run(ignored);
        }
        double micros = (System.nanoTime() - start) / 1e3 / iterations;
        System.out.printf("parse+guard of a %d-command compound (%d bytes): %.1f us mean over %d runs (checksum %d)%n",
                parts, COMMAND.length(), micros, iterations, sink);
    }

    private static int run(ShellWorkspace ignored) {
        ParsedCommand parsed = ShellParser.parse(COMMAND);
        Optional<String> refusal = CommandGuard.refusal(parsed, ignored);
        return parsed.commands().size() + (refusal.isPresent() ? 1 : 0);
    }
}
