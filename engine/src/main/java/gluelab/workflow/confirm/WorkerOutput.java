package gluelab.workflow.confirm;

import java.util.List;
import java.util.Map;

/** What a confirmation worker writes when it finishes (atomically, so a killed worker leaves none). */
record WorkerOutput(long pid, Map<String, String> before, Map<String, String> after, List<Timed> timed) {}
