package dev.quiver.bash;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.treesitter.TSInputEncoding;
import org.treesitter.TSLanguage;
import org.treesitter.TSParser;
import org.treesitter.TSTree;

/**
 * tree-sitter parsers for bash. A {@link TSParser} is not thread-safe, so each parse borrows one
 * from a small pool (no ThreadLocal: worker threads may outlive this bundle). The native libraries
 * are loaded by the first parse, through {@link Natives}.
 */
final class Trees {

    private static final int MAX_IDLE = 4;
    private static final ConcurrentLinkedQueue<TSParser> IDLE = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger IDLE_COUNT = new AtomicInteger();

    private Trees() {
    }

    private static final class Language {
        static final TSLanguage BASH = Natives.loadBash();
    }

    static TSLanguage language() {
        return Language.BASH;
    }

    /**
     * Parses UTF-8 source; null when the time budget ran out. tree-sitter checks the budget between
     * parse operations, and its error recovery on some inputs runs long between checks, so the
     * budget is a target, not a bound.
     */
    static TSTree parse(byte[] utf8, long budgetNanos) {
        TSParser parser = IDLE.poll();
        if (parser != null) {
            IDLE_COUNT.decrementAndGet();
        } else {
            TSLanguage bash = Language.BASH; // before TSParser's first use, which would load the runtime itself
            parser = new TSParser();
            parser.setLanguage(bash);
        }
        boolean reusable = false;
        try {
            long deadline = System.nanoTime() + budgetNanos;
            byte[] buffer = new byte[Math.max(16, Math.min(utf8.length, 1 << 16))];
            TSTree tree = parser.parseWithOptions(buffer, null, (buf, offset, point) -> {
                if (offset >= utf8.length) {
                    return 0;
                }
                int count = Math.min(buf.length, utf8.length - offset);
                System.arraycopy(utf8, offset, buf, 0, count);
                return count;
            }, TSInputEncoding.TSInputEncodingUTF8, state -> System.nanoTime() > deadline);
            if (tree == null) {
                parser.reset();
            }
            reusable = true;
            return tree;
        } finally {
            if (reusable && IDLE_COUNT.incrementAndGet() <= MAX_IDLE) {
                IDLE.offer(parser);
            } else if (reusable) {
                IDLE_COUNT.decrementAndGet();
            }
        }
    }
}
