package gluelab.compilelog;

/** A graph break: where in the user's code, dynamo's reason, and its hint ("" if none). */
public record GraphBreak(String compileId, String file, int line, String reason, String hint, int logLine) {
    public String location() { return CodeObject.baseName(file) + ":" + line; }
}
