package gluelab.sweep;

import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Shard statuses as a table and as a one-line count ("14 DONE, 1 CANCELLED, 1 FAILED of 16"). */
public final class StatusTable {
    private StatusTable() {}

    public static Table table(List<ShardStatus> statuses) {
        IntColumn index = IntColumn.create("index");
        StringColumn shard = StringColumn.create("shard"), state = StringColumn.create("state"), detail = StringColumn.create("detail");
        for (ShardStatus s : statuses) {
            index.append(s.shard().index());
            shard.append(s.name());
            state.append(s.state().name());
            detail.append(s.detail());
        }
        return Table.create("shards").addColumns(index, shard, state, detail);
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
