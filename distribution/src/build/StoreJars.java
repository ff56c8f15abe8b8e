import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Build step of the distribution: rewrites every jar of a folder with its entries stored, not
 * deflated. The framework reads each class a bundle loads from its jar; uncompressed, that read is
 * a copy instead of an inflation, which at start-up (hundreds of classes, many manifests) saves
 * about 30 ms (docs/benchmarks.md). Entries keep their order, names, times and bytes, so a signed
 * jar's signatures still hold.
 *
 * <p>Run with the JDK's source launcher: {@code java StoreJars.java FOLDER}.
 */
public final class StoreJars {

    public static void main(String[] args) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Files.list(Path.of(args[0]))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        for (Path jar : jars) {
            store(jar);
        }
    }

    private static void store(Path jar) throws IOException {
        Path stored = jar.resolveSibling(jar.getFileName() + ".stored");
        try (ZipFile in = new ZipFile(jar.toFile()); OutputStream file = Files.newOutputStream(stored);
                ZipOutputStream out = new ZipOutputStream(file)) {
            out.setMethod(ZipOutputStream.STORED);
            for (Enumeration<? extends ZipEntry> entries = in.entries(); entries.hasMoreElements();) {
                ZipEntry entry = entries.nextElement();
                byte[] bytes = in.getInputStream(entry).readAllBytes();
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setMethod(ZipEntry.STORED);
                copy.setTime(entry.getTime());
                copy.setSize(bytes.length);
                copy.setCompressedSize(bytes.length);
                CRC32 crc = new CRC32();
                crc.update(bytes);
                copy.setCrc(crc.getValue());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.setLastModifiedTime(stored, Files.getLastModifiedTime(jar));
        Files.move(stored, jar, StandardCopyOption.REPLACE_EXISTING);
    }
}
