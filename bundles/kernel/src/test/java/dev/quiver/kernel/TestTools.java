package dev.quiver.kernel;

import dev.quiver.api.Arguments;
import dev.quiver.api.Subject;
import dev.quiver.api.Tool;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.ToolResult;
import dev.quiver.api.ToolSpec;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** Small real tools for kernel tests: they do what their name says and count their calls. */
final class TestTools {

    private TestTools() {
    }

    /** Echoes its {@code text} argument; subject is the text. */
    static final class Echo implements Tool {
        final AtomicInteger calls = new AtomicInteger();
        private final String name;

        Echo() {
            this("echo");
        }

        Echo(String name) {
            this.name = name;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Echo text back.",
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},\"times\":{\"type\":\"integer\"}},"
                            + "\"required\":[\"text\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.name(arguments.string("text")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            calls.incrementAndGet();
            return ToolResult.of(arguments.string("text").repeat(arguments.integer("times", 1, 1, 1_000_000)));
        }
    }

    /**
     * Stands in for a real tool of a given name and access class: its one argument {@code subject} is
     * its subject, a path, a command or a URL; a call returns the subject (or {@code output} when set).
     */
    static final class Subjects implements Tool {
        private final String name;
        private final Subject.Kind kind;
        volatile String output;

        Subjects(String name, Subject.Kind kind) {
            this.name = name;
            this.kind = kind;
        }

        @Override
        public ToolSpec spec() {
            return new ToolSpec(name, "Stands in for " + name + ".",
                    "{\"type\":\"object\",\"properties\":{\"subject\":{\"type\":\"string\"}},\"required\":[\"subject\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(new Subject(kind, arguments.string("subject")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            String text = output;
            return ToolResult.of(text != null ? text : arguments.string("subject"));
        }
    }

    /**
     * Runs its {@code command} with {@code sh -c} in the workspace: a real process changing real files.
     * Its subject is a name, so the kernel's shell guard leaves it to the rules.
     */
    static final class Shell implements Tool {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public ToolSpec spec() {
            return new ToolSpec("sh", "Run a command.",
                    "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}");
        }

        @Override
        public List<Subject> subjects(Arguments arguments) throws ToolException {
            return List.of(Subject.name(arguments.string("command")));
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
            calls.incrementAndGet();
            try {
                Process process = new ProcessBuilder("sh", "-c", arguments.string("command"))
                        .directory(context.workspace().root().toFile()).redirectErrorStream(true).start();
                String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                return ToolResult.of("exit " + process.waitFor() + "\n" + output);
            } catch (java.io.IOException e) {
                throw new ToolException("sh could not start: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolException("interrupted");
            }
        }
    }

    /** Blocks until released or cancelled; reports whether it saw the cancellation. */
    static final class Blocker implements Tool {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        /** Counted down when the call notices it was cancelled (the flag) or interrupted. */
        final CountDownLatch sawCancel = new CountDownLatch(1);
        volatile RuntimeException failWith;

        @Override
        public ToolSpec spec() {
            return new ToolSpec("block", "Block.", "{\"type\":\"object\",\"properties\":{}}");
        }

        @Override
        public ToolResult call(Arguments arguments, ToolContext context) {
            entered.countDown();
            try {
                while (!release.await(10, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    if (context.isCancelled()) {
                        sawCancel.countDown();
                        return ToolResult.of("cancelled");
                    }
                }
            } catch (InterruptedException e) {
                sawCancel.countDown();
                Thread.currentThread().interrupt();
                return ToolResult.of("interrupted");
            }
            if (failWith != null) {
                throw failWith;
            }
            return ToolResult.of("released");
        }
    }
}
