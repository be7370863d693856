package gluelab.torch;

import java.util.List;
import java.util.function.Consumer;

/**
 * The units of a request (rows, profiled trees) an earlier run of the step finished before it was stopped ({@code done}: kept,
 * not run again), and {@code saved}, told every unit so far each time one more is done: the step writes them to the
 * experiment then, so a run ended from outside (kill -9) keeps what it finished.
 */
public record KeptUnits<T>(List<T> done, Consumer<List<T>> saved) {
    public KeptUnits {
        done = List.copyOf(done);
    }

    public static <T> KeptUnits<T> none() { return new KeptUnits<>(List.of(), sofar -> {}); }
}
