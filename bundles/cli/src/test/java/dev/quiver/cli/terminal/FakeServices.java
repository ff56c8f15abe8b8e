package dev.quiver.cli.terminal;

import dev.quiver.api.FileReads;
import dev.quiver.api.Shell;
import dev.quiver.api.ToolContext;
import dev.quiver.api.ToolException;
import dev.quiver.api.Workspace;
import dev.quiver.api.WorkspaceFactory;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** A shell with scripted background jobs and a workspace with a fixed list of files. */
final class FakeServices implements Services {

    final List<Shell.Job> jobs = new CopyOnWriteArrayList<>();
    final List<String> stopped = new CopyOnWriteArrayList<>();
    final List<String> files;
    volatile dev.quiver.api.host.Platform platform;

    FakeServices(List<String> files) {
        this.files = files;
    }

    static Shell.Job job(String handle, String line, Shell.Job.State state) {
        return new Shell.Job(handle, "", line, state, -1, Duration.ofSeconds(3), true);
    }

    @Override
    public Optional<Shell> shell() {
        return Optional.of(new Shell() {
            @Override
            public Result run(Command command, ToolContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Job start(String line, String name, ToolContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Poll poll(String handle) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Poll stop(String handle) throws ToolException {
                for (int i = 0; i < jobs.size(); i++) {
                    Job job = jobs.get(i);
                    if (job.handle().equals(handle)) {
                        Job ended = new Job(job.handle(), job.name(), job.line(), Job.State.STOPPED, -1, job.elapsed(),
                                job.sandboxed());
                        jobs.set(i, ended);
                        stopped.add(handle);
                        return new Poll(ended, "", "");
                    }
                }
                throw new ToolException("No background command " + handle + ".");
            }

            @Override
            public List<Job> jobs() {
                return List.copyOf(jobs);
            }

            @Override
            public String status(Optional<Object> shellConfig) {
                return "NOT sandboxed: bubblewrap (bwrap) is not installed";
            }
        });
    }

    @Override
    public Optional<WorkspaceFactory> workspaces() {
        return Optional.of(root -> new Workspace() {
            @Override
            public FileReads reads() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Path root() {
                return root;
            }

            @Override
            public Path resolve(String path) {
                return root.resolve(path);
            }

            @Override
            public String relativize(Path path) {
                return root.relativize(path).toString();
            }

            @Override
            public boolean isSecret(Path path) {
                return false;
            }

            @Override
            public boolean isIgnored(Path path) {
                return false;
            }

            @Override
            public boolean isTracked(Path file) {
                return false;
            }

            @Override
            public boolean isProtected(Path path) {
                return false;
            }

            @Override
            public List<Path> secretFiles() {
                return List.of();
            }

            @Override
            public void walk(Path directory, boolean includeIgnored, int maxDepth, Predicate<Entry> visitor) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<String> files(Path directory, boolean includeIgnored) {
                return files;
            }

            @Override
            public FileList fileList(Path directory, boolean includeIgnored) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Predicate<String> globMatcher(String glob) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TextFile readText(Path file) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TextWindow readLines(Path file, int offset, int limit) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void write(Path file, byte[] content) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.nio.channels.SeekableByteChannel openRead(Path file) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Folder openFolder(Path directory) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void createDirectories(Path directory) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void move(Path from, Path to) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void copy(Path from, Path to) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void delete(Path path) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void createLink(Path link, Path target) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void setPermissions(Path file, java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions) {
                throw new UnsupportedOperationException();
            }
        });
    }

    @Override
    public Optional<dev.quiver.api.host.Platform> platform() {
        return Optional.ofNullable(platform);
    }

    static Charset utf8() {
        return java.nio.charset.StandardCharsets.UTF_8;
    }
}
