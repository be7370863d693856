package gluelab.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shrinks a library jar to the classes the rest of the application can reach. A class is kept when
 * its name appears in the bytes (constant pool) of a kept class or of any other jar: a conservative
 * over-approximation of reachability that needs no bytecode library. Used by the bundle for
 * fastutil and icu4j, which Tablesaw ships whole but uses a sliver of.
 */
final class JarSlimmer {
    private JarSlimmer() {}

    /** Writes {@code target}: the classes of {@code jar} under {@code prefix} reachable from {@code roots}, no other resources. */
    static int slim(Path jar, String prefix, List<Path> roots, Path target) throws IOException {
        Pattern ref = Pattern.compile(Pattern.quote(prefix) + "[A-Za-z0-9_/$]+");
        Map<String, byte[]> classes = new HashMap<>();
        try (JarFile jf = new JarFile(jar.toFile())) {
            for (JarEntry e : Collections.list(jf.entries())) {
                if (e.getName().endsWith(".class")) {
                    try (InputStream in = jf.getInputStream(e)) {
                        classes.put(e.getName().substring(0, e.getName().length() - 6), in.readAllBytes());
                    }
                }
            }
        }
        Deque<String> work = new ArrayDeque<>();
        Set<String> kept = new HashSet<>();
        for (Path r : roots) {
            try (JarFile jf = new JarFile(r.toFile())) {
                for (JarEntry e : Collections.list(jf.entries())) {
                    if (!e.getName().endsWith(".class")) continue;
                    try (InputStream in = jf.getInputStream(e)) {
                        scan(in.readAllBytes(), ref, classes, kept, work);
                    }
                }
            }
        }
        while (!work.isEmpty()) scan(classes.get(work.pop()), ref, classes, kept, work);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
            for (String name : new TreeSet<>(kept)) putStored(out, name + ".class", classes.get(name));
        }
        return kept.size();
    }

    private static void scan(byte[] bytes, Pattern ref, Map<String, byte[]> classes, Set<String> kept, Deque<String> work) {
        Matcher m = ref.matcher(new String(bytes, StandardCharsets.ISO_8859_1));
        while (m.find()) {
            String name = m.group();
            // A reference to an outer or inner class keeps its whole nest.
            for (String candidate : List.of(name, name.contains("$") ? name.substring(0, name.indexOf('$')) : name)) {
                if (classes.containsKey(candidate) && kept.add(candidate)) work.push(candidate);
            }
            for (String inner : classes.keySet()) {
                if (inner.startsWith(name + "$") && kept.add(inner)) work.push(inner);
            }
        }
    }

    /** Copies a jar keeping only the files whose names match {@code keep}. */
    static void filter(Path jar, java.util.function.Predicate<String> keep, Path target) throws IOException {
        copy(jar, e -> !e.isDirectory() && keep.test(e.getName()), target);
    }

    /** Copies a jar whole, every entry stored uncompressed (see {@link #putStored}). */
    static void store(Path jar, Path target) throws IOException {
        copy(jar, e -> true, target);
    }

    private static void copy(Path jar, java.util.function.Predicate<JarEntry> keep, Path target) throws IOException {
        // JarFile reads the manifest itself; JarOutputStream(out) writes entries in the source's order, manifest included
        try (java.util.zip.ZipFile zf = new java.util.zip.ZipFile(jar.toFile()); JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
            for (var z : Collections.list(zf.entries())) {
                JarEntry e = new JarEntry(z);
                if (!keep.test(e)) continue;
                try (InputStream in = zf.getInputStream(z)) {
                    putStored(out, z.getName(), in.readAllBytes());
                }
            }
        }
    }

    /**
     * One entry stored, not deflated: the bundle's tarball is xz, which packs raw class files across
     * the whole jar folder far tighter than it can repack each entry's deflate stream.
     */
    private static void putStored(JarOutputStream out, String name, byte[] bytes) throws IOException {
        JarEntry e = new JarEntry(name);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes);
        e.setMethod(java.util.zip.ZipEntry.STORED);
        e.setSize(bytes.length);
        e.setCompressedSize(bytes.length);
        e.setCrc(crc.getValue());
        out.putNextEntry(e);
        out.write(bytes);
        out.closeEntry();
    }
}
