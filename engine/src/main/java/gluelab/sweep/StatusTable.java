package gluelab.sweep;

import gluelab.table.Column;
import gluelab.table.DataTable;
import gluelab.table.TableFormat;
import tech.tablesaw.api.Table;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Shard statuses as a table and as a one-line count ("14 DONE, 1 CANCELLED, 1 FAILED of 16"). */
public final class StatusTable {
    private StatusTable() {}

    private static final Column INDEX = Column.count("index", "the shard's index in the sweep"), SHARD = Column.text("shard", "the shard's name"),
            STATE = Column.text("state", "pending, running, done, failed, cancelled or lost"),
            DETAIL = Column.text("detail", "why: a FAILED marker's text, the scheduler's state");

    public static Table table(List<ShardStatus> statuses) {
        var t = DataTable.builder("shards", INDEX, SHARD, STATE, DETAIL);
        for (ShardStatus s : statuses) t.row(s.shard().index(), s.name(), s.state().name(), s.detail());
        return TableFormat.tablesaw(t.build());
    }

    public static String counts(List<ShardStatus> statuses) {
        Map<ShardState, Long> n = new EnumMap<>(ShardState.class);
        for (ShardStatus s : statuses) n.merge(s.state(), 1L, Long::sum);
        return n.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", ")) + " of " + statuses.size();
    }

    /** The shards that did not finish well, by name with why: what a user resubmits. */
    public static List<ShardStatus> problems(List<ShardStatus> statuses) {
        return statuses.stream().filter(s -> s.state() == ShardState.FAILED || s.state() == ShardState.CANCELLED || s.state() == ShardState.LOST).toList();
    }
}
