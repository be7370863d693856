package gluelab.workflow.writeup;

/** The rules a PR text follows (the method's "Findings doc and PR text rules"); {@link PrChecker} enforces each. */
public enum PrRule {
    TLDR("tldr", "a TLDR line before the first section, with the headline number"),
    PROBLEM_STEPS("problem-steps", "a Problem section of 4-6 numbered lines, 1. to N., nothing else"),
    PROBLEM_COST("problem-cost", "the last Problem line states the cost (a time or a share)"),
    SOLUTION_STEPS("solution-steps", "a Solution section of 4-6 numbered lines, 1. to N., nothing else"),
    SOLUTION_UNCHANGED("solution-unchanged", "the last Solution line says what stays unchanged"),
    ONE_FACT("one-fact", "one fact a numbered line: one sentence, at most " + PrChecker.MAX_FACT_CHARS + " characters"),
    CODE("code", "a Code section naming each file and function the change edits, as FILE:FUNCTION (llama3.py:apply_rotary_emb)"),
    DIAGRAM("diagram", "a diagram (a fenced text block of stages and arrows) when data moves between stages"),
    NUMBERS_IN_CODE("numbers-in-code", "before -> after numbers only in code blocks (the TLDR's headline aside)"),
    CONDITIONS_ABOVE("conditions-above", "the conditions on the line above a code block's before -> after numbers"),
    DIRECTION("direction", "a ratio or faster/slower says the direction and gives both numbers (2.7x slower (1089 vs 2987 us))"),
    REACH("reach", "a Reach section listing the specs or recipes that hit the path"),
    NO_PARAGRAPHS("no-paragraphs", "no paragraphs: only headers, lists, numbered lines, code blocks, images and the details block"),
    NO_TABLES("no-tables", "no markdown tables"),
    RESULTS("results", "a Results code block with conditions, before -> after per workload, correctness, graph count and limit"),
    REJECTED("rejected", "a Rejected alternatives section with at least one item"),
    NOT_TESTED("not-tested", "a Not tested section with at least one item"),
    TEST_PLAN("test-plan", "a Test plan section with at least one item"),
    STACK_SUMMARY("stack-summary", "a collapsed stack summary (<details>) at the end with exactly one line marked <- this PR"),
    SECTION_ORDER("section-order", "sections in order: Problem, Solution, Code, Diagram, Reach, Results, Rejected alternatives, Not tested, Test plan"),
    CHART_FILES("chart-files", "charts embedded by relative links to files beside the text"),
    EVIDENCE("evidence", "numbers from noisy or unconfirmed rows, or a device not quiet, quoted with their caveat on the same line (checked against the change stack)");

    private final String id, description;

    PrRule(String id, String description) {
        this.id = id;
        this.description = description;
    }

    public String id() { return id; }

    public String description() { return description; }
}
