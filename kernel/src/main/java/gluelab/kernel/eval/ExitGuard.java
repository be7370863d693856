package gluelab.kernel.eval;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.constantpool.MethodRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicCallSiteDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.List;

/**
 * Keeps notebook code from ending the JVM that runs it (the kernel, or {@code gluelab run}).
 *
 * <p>JDK 25 has no SecurityManager, so user classes are rewritten as they are loaded: every call to
 * {@code System.exit}, {@code Runtime.exit} or {@code Runtime.halt} becomes a call to the static
 * methods below, which throw instead. This covers the classes JShell compiles for cells (also code
 * they run on their own threads) and classes loaded from jars and folders added with
 * {@code %classpath} or {@code %maven}, and method references ({@code System::exit}). Not covered:
 * a call made through reflection or a method handle looked up at run time, and classes on the
 * JVM's own classpath (gluelab's engine and its libraries).
 */
public final class ExitGuard {
    public static final String MESSAGE = "System.exit is not allowed in a cell; restart the kernel instead";

    private static final ClassDesc SYSTEM = ClassDesc.of("java.lang.System");
    private static final ClassDesc RUNTIME = ClassDesc.of("java.lang.Runtime");
    private static final ClassDesc GUARD = ClassDesc.of(ExitGuard.class.getName());
    private static final MethodTypeDesc STATUS = MethodTypeDesc.ofDescriptor("(I)V");
    private static final MethodTypeDesc RUNTIME_STATUS = MethodTypeDesc.ofDescriptor("(Ljava/lang/Runtime;I)V");

    private ExitGuard() {}

    /** What a cell's {@code System.exit(status)} runs. */
    public static void exit(int status) { throw new ExitNotAllowed("System.exit(" + status + ")"); }

    /** What a cell's {@code Runtime.getRuntime().exit(status)} runs. */
    public static void exit(Runtime runtime, int status) { throw new ExitNotAllowed("Runtime.exit(" + status + ")"); }

    /** What a cell's {@code Runtime.getRuntime().halt(status)} runs. */
    public static void halt(Runtime runtime, int status) { throw new ExitNotAllowed("Runtime.halt(" + status + ")"); }

    /** The class with its exit and halt calls redirected here; the same bytes when it has none. */
    public static byte[] guarded(byte[] bytes) {
        ClassFile cf = ClassFile.of();
        ClassModel model = cf.parse(bytes);
        if (!callsExit(model)) return bytes;
        CodeTransform redirect = (cb, e) -> {
            if (e instanceof InvokeInstruction i && isExit(i.owner().asSymbol(), i.name().stringValue(), i.typeSymbol())) {
                cb.invokestatic(GUARD, i.name().stringValue(), i.owner().asSymbol().equals(SYSTEM) ? STATUS : RUNTIME_STATUS);
            } else if (e instanceof InvokeDynamicInstruction indy && indy.bootstrapArgs().stream().anyMatch(ExitGuard::isExitHandle)) {
                // A method reference such as System::exit: the lambda's target becomes the guard.
                List<ConstantDesc> args = indy.bootstrapArgs().stream().map(a -> isExitHandle(a) ? guardHandle((DirectMethodHandleDesc) a) : a).toList();
                cb.invokedynamic(DynamicCallSiteDesc.of(indy.bootstrapMethod(), indy.name().stringValue(), indy.typeSymbol(), args.toArray(ConstantDesc[]::new)));
            } else {
                cb.with(e);
            }
        };
        return cf.transformClass(model, ClassTransform.transformingMethodBodies(redirect));
    }

    private static boolean isExitHandle(ConstantDesc c) {
        if (!(c instanceof DirectMethodHandleDesc h)) return false;
        if (h.kind() == DirectMethodHandleDesc.Kind.STATIC) return isExit(h.owner(), h.methodName(), h.invocationType());
        return h.kind() == DirectMethodHandleDesc.Kind.VIRTUAL && h.invocationType().parameterCount() == 2
                && isExit(h.owner(), h.methodName(), h.invocationType().dropParameterTypes(0, 1));
    }

    private static DirectMethodHandleDesc guardHandle(DirectMethodHandleDesc h) {
        return MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.STATIC, GUARD, h.methodName(), h.owner().equals(SYSTEM) ? STATUS : RUNTIME_STATUS);
    }

    /** A quick look at the constant pool, so classes without such calls are not rewritten. */
    static boolean callsExit(ClassModel model) {
        for (PoolEntry p : model.constantPool()) {
            if (p instanceof MethodRefEntry m && m.type().equalsString("(I)V") && isExit(m.owner().asSymbol(), m.name().stringValue(), STATUS)) return true;
        }
        return false;
    }

    private static boolean isExit(ClassDesc owner, String name, MethodTypeDesc type) {
        if (!type.equals(STATUS)) return false;
        return owner.equals(SYSTEM) && name.equals("exit") || owner.equals(RUNTIME) && (name.equals("exit") || name.equals("halt"));
    }

    /** Thrown where notebook code asks the JVM to end. */
    public static final class ExitNotAllowed extends SecurityException {
        ExitNotAllowed(String call) { super(MESSAGE + " (" + call + ")"); }
    }
}
