package gluelab.device;

import java.util.Optional;

/**
 * A kind of device ("cpu", "cuda"), found with ServiceLoader so that a GPU backend plugs in
 * without the engine core depending on it.
 */
public interface DeviceProvider {
    String kind();

    /** Why this kind is unusable here (no driver, no GPU), or empty when it is usable. */
    Optional<String> unavailableReason();

    Device open(int ordinal);

    /** How many devices of this kind are usable here (0 when unavailable). */
    default int count() { return unavailableReason().isEmpty() ? 1 : 0; }
}
