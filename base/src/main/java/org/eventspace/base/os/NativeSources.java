package org.eventspace.base.os;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * C sources shipped inside the jar and compiled on a user's machine on first use (the MPI interposition library, the
 * MPI replayer, the OTF2 writer): read once, and the cache folder their build goes to, named by a hash of the sources
 * and of what else makes the build differ (the compiler, its flags, the MPI library), so a new version or another
 * compiler builds anew and an unchanged one is reused. The cache is {@code $ES_MPI_CACHE}, else
 * {@code ~/.cache/eventspace}.
 *
 * @param names the files' names, as they are written into the build folder
 * @param bytes their contents, in the same order
 */
public record NativeSources(List<String> names, List<byte[]> bytes) {
    public NativeSources {
        names = List.copyOf(names);
        bytes = List.copyOf(bytes);
    }

    /** The cache every native build goes under. */
    public static Path cacheRoot() {
        String env = System.getenv("ES_MPI_CACHE");
        return env != null && !env.isEmpty() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "eventspace");
    }

    /**
     * Reads {@code names} from the jar's {@code folder} (e.g. {@code /native/otf2/}).
     *
     * @throws IOException naming the source that is not in the jar.
     */
    public static NativeSources read(Class<?> anchor, String folder, String... names) throws IOException {
        List<byte[]> bytes = new ArrayList<>();
        for (String name : names) {
            try (InputStream in = anchor.getResourceAsStream(folder + name)) {
                if (in == null) {
                    throw new IOException("native source " + folder + name + " is not in the eventspace jar");
                }
                bytes.add(in.readAllBytes());
            }
        }
        return new NativeSources(List.of(names), bytes);
    }

    /** {@code cacheRoot()/prefix-H}, H the first 16 hex digits of SHA-256 over each name and source and {@code key}. */
    public Path folder(String prefix, String key) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < names.size(); i++) {
            sha.update(names.get(i).getBytes(StandardCharsets.UTF_8));
            sha.update(bytes.get(i));
        }
        sha.update(key.getBytes(StandardCharsets.UTF_8));
        return cacheRoot().resolve(prefix + "-" + HexFormat.of().formatHex(sha.digest()).substring(0, 16));
    }

    /** Writes the sources into {@code dir} (made if missing), where the compiler reads them. */
    public void writeTo(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (int i = 0; i < names.size(); i++) {
            Files.write(dir.resolve(names.get(i)), bytes.get(i));
        }
    }
}
