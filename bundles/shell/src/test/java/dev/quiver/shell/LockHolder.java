package dev.quiver.shell;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Another process holding a journal's lock, as a Quiver in another pid namespace sharing the state
 * folder would: locks the file named by the argument, says "locked", and waits to be killed. With a
 * second argument {@code try}, only tries to take the lock and says "held" or "free".
 */
public final class LockHolder {

    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        if (args.length > 1 && args[1].equals("try")) {
            System.out.println(channel.tryLock() == null ? "held" : "free");
            return;
        }
        channel.lock();
        System.out.println("locked");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
