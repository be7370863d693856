package gluelab.kernel;

import org.dflib.jjava.jupyter.kernel.history.HistoryEntry;
import org.dflib.jjava.jupyter.kernel.history.HistoryManager;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** This session's executed cells, for history requests (tail and range). */
final class History implements HistoryManager {
    private final List<String> cells = new ArrayList<>();

    synchronized void add(String code) { cells.add(code); }

    @Override public synchronized List<HistoryEntry> lookupTail(int length, Set<ResultFlag> flags) {
        List<HistoryEntry> out = new ArrayList<>();
        int from = length <= 0 ? 0 : Math.max(0, cells.size() - length);
        for (int i = from; i < cells.size(); i++) out.add(new HistoryEntry(0, i + 1, cells.get(i), null));
        return out;
    }

    @Override public synchronized List<HistoryEntry> lookupRange(int session, int start, int stop, Set<ResultFlag> flags) {
        List<HistoryEntry> out = new ArrayList<>();
        // As in IPython, stop is exclusive; a stop of 0 or less means "to the end".
        int end = stop <= 0 ? cells.size() + 1 : Math.min(stop, cells.size() + 1);
        for (int i = Math.max(1, start); i < end; i++) out.add(new HistoryEntry(0, i, cells.get(i - 1), null));
        return out;
    }

    @Override public synchronized List<HistoryEntry> search(String pattern, int length, Set<ResultFlag> flags) {
        String regex = pattern.replace("*", ".*").replace("?", ".");
        List<HistoryEntry> out = new ArrayList<>();
        int max = length <= 0 ? Integer.MAX_VALUE : length;
        for (int i = cells.size() - 1; i >= 0 && out.size() < max; i--) if (cells.get(i).matches("(?s)" + regex)) out.add(0, new HistoryEntry(0, i + 1, cells.get(i), null));
        return out;
    }
}
