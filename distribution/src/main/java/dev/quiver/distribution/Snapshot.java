package dev.quiver.distribution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import org.osgi.framework.Bundle;

/**
 * The framework cache of the installation's own bundles, recorded once and copied into each
 * process's fresh cache, so that a start reloads {@code bundle/} instead of installing it, and
 * Felix SCR reads its component descriptors from its metadata cache ({@code ds.cache.metadata})
 * instead of parsing their XML.
 *
 * <p>What a snapshot holds: the system bundle's entries, each {@code bundle/} bundle's archive
 * (its {@code bundle.info} and revision location, which point at the jar in place) without its
 * data folder, and SCR's {@code componentMetadataStore}. Bundles from {@code deploy/}, from the
 * plugins folder and everything a bundle wrote as data are left out: those arrive the ordinary
 * way at every start. SCR keys its metadata by bundle id and last-modified time, both of which the
 * copied archives keep.
 *
 * <p>A snapshot is valid only for the exact installation that recorded it: its {@code listing}
 * names the Java version, the framework and launcher jars and every jar of {@code bundle/} with its
 * size and modification time. Any difference, a missing or partial snapshot, or a copy that fails
 * means an ordinary start, which records a new snapshot at its end when the installation's folder
 * is writable. A process only ever reads the snapshot and copies it; a new one is written beside
 * it and moved into place, so processes running side by side never see half of one.
 */
final class Snapshot {

    static final String FOLDER = "snapshot";
    private static final String LISTING = "listing";
    private static final String FORMAT = "quiver framework snapshot 1";
    /** The file Felix SCR keeps its parsed component descriptors in (see Activator.store). */
    private static final String SCR_STORE = "componentMetadataStore";
    private static final String SCR = "org.apache.felix.scr";

    private final Path folder;
    private final String listing;

    private Snapshot(Path folder, String listing) {
        this.folder = folder;
        this.listing = listing;
    }

    /**
     * The snapshot of the installation at {@code home}; computes what a valid one must list.
     *
     * @param jars the jars of {@code bundle/}, as {@link Launcher#jars} lists them
     */
    static Snapshot of(Path home, List<Path> jars) throws IOException {
        StringBuilder listing = new StringBuilder(FORMAT).append('\n');
        listing.append("java ").append(System.getProperty("java.vm.vendor")).append(' ')
                .append(System.getProperty("java.vm.version")).append('\n');
        listing.append("home ").append(home).append('\n');
        describe(listing, home.resolve("bin").resolve("felix.jar"));
        describe(listing, home.resolve("bin").resolve("quiver.jar"));
        for (Path jar : jars) {
            describe(listing, jar);
        }
        return new Snapshot(home.resolve(FOLDER), listing.toString());
    }

    private static void describe(StringBuilder listing, Path file) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        listing.append(file.getFileName()).append(' ').append(attributes.size()).append(' ')
                .append(attributes.lastModifiedTime().toMillis()).append('\n');
    }

    /**
     * Copies a valid snapshot into an empty framework storage folder.
     *
     * @return whether the storage now holds the snapshot; {@code false} leaves it empty
     */
    boolean restoreInto(Path storage) {
        try {
            Path recorded = folder.resolve(LISTING);
            if (!Files.isRegularFile(recorded) || !listing.equals(Files.readString(recorded, StandardCharsets.UTF_8))) {
                return false;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path entry : entries) {
                    if (Files.isDirectory(entry)) {
                        copyTree(entry, storage.resolve(entry.getFileName().toString()), true);
                    }
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            // a snapshot being replaced by another process, or damaged: start the ordinary way
            Launcher.deleteContents(storage);
            return false;
        }
    }

    /**
     * Records a snapshot from the storage of a framework that has stopped after a start that had to
     * install bundles. Does nothing when the installation's folder is not writable; a failure leaves
     * the previous snapshot, if any, in place.
     *
     * @param host the bundles of {@code bundle/}
     */
    void record(Path storage, List<Bundle> host) {
        Path parent = folder.getParent();
        if (!Files.isWritable(parent)) {
            return;
        }
        Path fresh = parent.resolve(FOLDER + ".new-" + ProcessHandle.current().pid());
        try {
            Files.createDirectory(fresh);
            copyTree(storage.resolve("bundle0"), fresh.resolve("bundle0"), false);
            for (Bundle bundle : host) {
                String archive = "bundle" + bundle.getBundleId();
                copyTree(storage.resolve(archive), fresh.resolve(archive), false);
                Path store = storage.resolve(archive).resolve("data").resolve(SCR_STORE);
                if (SCR.equals(bundle.getSymbolicName()) && Files.isRegularFile(store)) {
                    Files.copy(store, Files.createDirectories(fresh.resolve(archive).resolve("data")).resolve(SCR_STORE));
                }
            }
            Files.writeString(fresh.resolve(LISTING), listing, StandardCharsets.UTF_8);
            replace(fresh);
        } catch (IOException | RuntimeException e) {
            // the next start records it again; a start without a snapshot only takes longer
        } finally {
            Launcher.deleteTree(fresh);
        }
    }

    /** Moves a complete snapshot into place, the old one (if any) out of the way first. */
    private void replace(Path fresh) throws IOException {
        Path old = folder.resolveSibling(FOLDER + ".old-" + ProcessHandle.current().pid());
        try {
            Files.move(folder, old, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.NoSuchFileException none) {
            // first snapshot
        }
        try {
            Files.move(fresh, folder, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
            // another process put its snapshot there first: it lists the same installation
        } finally {
            Launcher.deleteTree(old);
        }
    }

    /**
     * Copies a folder's tree. {@code withData}: everything; otherwise without the {@code data}
     * folder, which holds what the bundle wrote while it ran.
     */
    private static void copyTree(Path from, Path to, boolean withData) throws IOException {
        Files.createDirectories(to);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(from)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                Path target = to.resolve(name);
                if (Files.isDirectory(entry)) {
                    if (withData || !"data".equals(name)) {
                        copyTree(entry, target, withData);
                    }
                } else {
                    Files.copy(entry, target);
                }
            }
        }
    }
}
