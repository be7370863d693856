package gluelab.trace;

import java.util.Arrays;

/**
 * Interns strings straight from a parser's character buffer: a name seen before costs one hash
 * and one comparison, no String. Trace names repeat (kernel signatures of 1-2 KB, a few distinct
 * categories), so this is most of the parse.
 */
final class NameTable {
    private String[] table = new String[1024];
    private int[] hashes = new int[1024];
    private int size;

    String intern(char[] buf, int off, int len) {
        int h = 1;
        for (int i = off; i < off + len; i++) h = 31 * h + buf[i];
        int mask = table.length - 1;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            String s = table[slot];
            if (s == null) {
                String created = new String(buf, off, len);
                table[slot] = created;
                hashes[slot] = h;
                if (++size * 2 > table.length) grow();
                return created;
            }
            if (hashes[slot] == h && same(s, buf, off, len)) return s;
        }
    }

    private static int mix(int h) { return h ^ (h >>> 16); }

    private static boolean same(String s, char[] buf, int off, int len) {
        if (s.length() != len) return false;
        for (int i = 0; i < len; i++) if (s.charAt(i) != buf[off + i]) return false;
        return true;
    }

    private void grow() {
        String[] oldT = table;
        int[] oldH = hashes;
        table = new String[oldT.length * 2];
        hashes = new int[oldT.length * 2];
        int mask = table.length - 1;
        for (int i = 0; i < oldT.length; i++) {
            if (oldT[i] == null) continue;
            int slot = mix(oldH[i]) & mask;
            while (table[slot] != null) slot = (slot + 1) & mask;
            table[slot] = oldT[i];
            hashes[slot] = oldH[i];
        }
    }

    int size() { return size; }

    @Override public String toString() { return "NameTable" + Arrays.toString(new int[]{size}); }
}
