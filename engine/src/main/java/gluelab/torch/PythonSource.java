package gluelab.torch;

/** Where the torch bridge's Python came from, in the order {@link PythonFinder} tries them. */
public enum PythonSource {
    FLAG("--python"), ARGUMENT("lab.torch(PATH)"), GLUELAB_PYTHON("GLUELAB_PYTHON"), VIRTUAL_ENV("active virtual environment"),
    PATH("first python3 on PATH"), SYSTEM("/usr/bin/python3");

    private final String label;

    PythonSource(String label) { this.label = label; }

    /** How the choice is explained: "python: /x/bin/python (GLUELAB_PYTHON)". */
    public String label() { return label; }
}
