package gluelab.device;

import java.util.*;
import java.util.function.Consumer;

/** Opens a device from a selector: auto | cpu | cuda[:N]. auto takes a GPU when one is usable, else the CPU. */
public final class Devices {
    private static final Set<String> SAID = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static volatile Consumer<String> notices = Devices::onceToStderr;
    private static volatile String autoFallback;
    private static volatile int tuningThreads;

    private Devices() {}

    /**
     * Says that the caller will tune with {@code threads} compile threads once a device is open
     * (`gluelab tune`), so a device may start its compilers (CUDA: compile worker processes) while
     * it opens, and the tuning does not wait for their start-up.
     */
    public static void expectTuning(int threads) { tuningThreads = threads; }

    /** The compile threads announced by {@link #expectTuning}; 0 when none was. */
    public static int expectedTuningThreads() { return tuningThreads; }

    /** Why the last "auto" selection took the CPU, for device cards; empty when it took a GPU or was never made. */
    public static Optional<String> autoFallback() { return Optional.ofNullable(autoFallback); }

    /**
     * Where {@link #open(String)} sends its notices. The default writes each distinct one once per
     * process to stderr; the notebook kernel shows them on the lab's card instead of in every cell.
     */
    public static void notices(Consumer<String> sink) { notices = sink == null ? Devices::onceToStderr : sink; }

    private static void onceToStderr(String msg) { if (SAID.add(msg)) System.err.println("gluelab: " + msg); }

    public static List<DeviceProvider> providers() {
        // Every device kind, the CPU included, is a plug-in found on the classpath; the CPU is listed first.
        List<DeviceProvider> list = new ArrayList<>();
        for (DeviceProvider p : ServiceLoader.load(DeviceProvider.class)) list.add(p);
        list.sort(Comparator.comparing(p -> !p.kind().equals("cpu")));
        if (list.isEmpty() || !list.getFirst().kind().equals("cpu")) {
            throw new IllegalStateException("no CPU device provider on the classpath (META-INF/services/" + DeviceProvider.class.getName() + ")");
        }
        return list;
    }

    public static Device open(String selector) {
        return open(selector, notices);
    }

    /** Opens the device; notices (such as auto falling back to the CPU) go to {@code notice}. */
    public static Device open(String selector, Consumer<String> notice) {
        String sel = normal(selector);
        List<DeviceProvider> providers = providers();
        if (sel.equals("auto")) {
            for (DeviceProvider p : providers) {
                if (p.kind().equals("cpu")) continue;
                Optional<String> why = p.unavailableReason();
                if (why.isEmpty()) {
                    autoFallback = null;
                    return p.open(0);
                }
                autoFallback = p.kind() + " unavailable: " + why.get();
                notice.accept("device auto: using the CPU (" + autoFallback + ")");
            }
            return find(providers, "cpu").open(0);
        }
        Selector s = Selector.parse(selector, sel, providers);
        Optional<String> why = s.provider().unavailableReason();
        // Asking for a device this machine has not is bad input (exit 2), like an unknown device.
        if (why.isPresent()) throw new IllegalArgumentException("device '" + selector + "' is unavailable: " + why.get());
        return s.provider().open(s.ordinal());
    }

    /**
     * Checks a selector's form and kind without opening anything (whether the device is usable is
     * known only when it opens): the errors {@link #open(String)} gives for the same text.
     */
    public static void check(String selector) {
        String sel = normal(selector);
        if (!sel.equals("auto")) Selector.parse(selector, sel, providers());
    }

    /** A selector as matched: trimmed, lower case, "auto" when none is given. */
    private static String normal(String selector) { return selector == null ? "auto" : selector.trim().toLowerCase(Locale.ROOT); }

    /** A device selector other than auto: the provider of its kind and the device number. */
    private record Selector(DeviceProvider provider, int ordinal) {
        static Selector parse(String selector, String sel, List<DeviceProvider> providers) {
            String kind = sel;
            int ordinal = 0;
            int colon = sel.indexOf(':');
            if (colon >= 0) {
                kind = sel.substring(0, colon);
                try {
                    ordinal = Integer.parseInt(sel.substring(colon + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad device '" + selector + "': the part after ':' must be a device number");
                }
                if (ordinal < 0) throw new IllegalArgumentException("bad device '" + selector + "': negative device number");
            }
            return new Selector(find(providers, kind), ordinal);
        }
    }

    /** How many devices of {@code kind} ("cpu", "cuda") are usable here. */
    public static int count(String kind) { return find(providers(), kind).count(); }

    private static DeviceProvider find(List<DeviceProvider> providers, String kind) {
        for (DeviceProvider p : providers) if (p.kind().equals(kind)) return p;
        List<String> known = new ArrayList<>(List.of("auto"));
        for (DeviceProvider p : providers) known.add(p.kind() + (p.kind().equals("cpu") ? "" : "[:N]"));
        if (kind.equals("cuda")) {
            throw new IllegalArgumentException("unknown device 'cuda': no CUDA backend is on the classpath; known: " + known);
        }
        throw new IllegalArgumentException("unknown device '" + kind + "'; known: " + known);
    }
}
