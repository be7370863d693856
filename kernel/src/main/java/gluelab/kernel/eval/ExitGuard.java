package gluelab.kernel.eval;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.constantpool.MethodRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicCallSiteDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * Keeps notebook code from ending the JVM that runs it (the kernel, or {@code gluelab run}).
 *
 * <p>JDK 25 has no SecurityManager, so user classes are rewritten as they are loaded: every call to
 * {@code System.exit}, {@code Runtime.exit} or {@code Runtime.halt} becomes a call to the static
 * methods below, which throw instead. This covers the classes JShell compiles for cells (also code
 * they run on their own threads) and classes loaded from jars and folders added with
 * {@code %classpath} or {@code %maven}, and method references ({@code System::exit}). The same
 * classes reach those methods through reflection and method handles only past a check here:
 * {@code Method.invoke} (also of {@code Method.invoke} itself) is preceded by {@link #checkInvoke},
 * and {@code Lookup.findStatic}, {@code findVirtual}, {@code findSpecial}, {@code bind},
 * {@code unreflect} and {@code unreflectSpecial} go through the lookups below, which refuse a
 * handle to an exit. The call to {@code Method.invoke} stays in the user's class, so reflection's
 * caller checks see the user's class as before. Not covered: classes on the JVM's own classpath
 * (gluelab's engine and its libraries), native code, and a cell that signals its own process.
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

    private static final ClassDesc METHOD = ClassDesc.of("java.lang.reflect.Method");
    private static final ClassDesc LOOKUP = ClassDesc.of("java.lang.invoke.MethodHandles$Lookup");
    private static final ClassDesc OBJECT = ClassDesc.of("java.lang.Object");
    private static final MethodTypeDesc INVOKE = MethodTypeDesc.ofDescriptor("(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;");
    private static final MethodTypeDesc CHECK_INVOKE = MethodTypeDesc.of(ConstantDescs.CD_void, METHOD, OBJECT);
    /** The Lookup methods that hand out a handle to a named or reflected method. */
    private static final java.util.Set<String> FINDERS = java.util.Set.of("findStatic", "findVirtual", "findSpecial", "bind", "unreflect", "unreflectSpecial");

    /** Thrown before a reflective call of an exit; also for {@code Method.invoke} called reflectively on one. */
    public static void checkInvoke(java.lang.reflect.Method m, Object target) {
        if (m == null) return;
        if (isExit(m)) throw new ExitNotAllowed(m.getDeclaringClass().getSimpleName() + "." + m.getName() + " through reflection");
        if (m.getDeclaringClass() == java.lang.reflect.Method.class && m.getName().equals("invoke") && target instanceof java.lang.reflect.Method inner) checkInvoke(inner, null);
    }

    static boolean isExit(java.lang.reflect.Method m) {
        return m.getParameterCount() == 1 && m.getParameterTypes()[0] == int.class && isExitName(m.getDeclaringClass(), m.getName());
    }

    private static boolean isExitName(Class<?> owner, String name) {
        return owner == System.class && name.equals("exit") || owner == Runtime.class && (name.equals("exit") || name.equals("halt"));
    }

    private static void refuseHandle(Class<?> owner, String name) {
        if (isExitName(owner, name)) throw new ExitNotAllowed(owner.getSimpleName() + "." + name + " through a method handle");
    }

    public static MethodHandle findStatic(MethodHandles.Lookup l, Class<?> refc, String name, MethodType type) throws ReflectiveOperationException {
        refuseHandle(refc, name);
        return l.findStatic(refc, name, type);
    }

    public static MethodHandle findVirtual(MethodHandles.Lookup l, Class<?> refc, String name, MethodType type) throws ReflectiveOperationException {
        refuseHandle(refc, name);
        return l.findVirtual(refc, name, type);
    }

    public static MethodHandle findSpecial(MethodHandles.Lookup l, Class<?> refc, String name, MethodType type, Class<?> caller) throws ReflectiveOperationException {
        refuseHandle(refc, name);
        return l.findSpecial(refc, name, type, caller);
    }

    public static MethodHandle bind(MethodHandles.Lookup l, Object receiver, String name, MethodType type) throws ReflectiveOperationException {
        if (receiver != null) refuseHandle(receiver instanceof Runtime ? Runtime.class : receiver.getClass(), name);
        return l.bind(receiver, name, type);
    }

    public static MethodHandle unreflect(MethodHandles.Lookup l, java.lang.reflect.Method m) throws IllegalAccessException {
        if (isExit(m)) refuseHandle(m.getDeclaringClass(), m.getName());
        return l.unreflect(m);
    }

    public static MethodHandle unreflectSpecial(MethodHandles.Lookup l, java.lang.reflect.Method m, Class<?> caller) throws IllegalAccessException {
        if (isExit(m)) refuseHandle(m.getDeclaringClass(), m.getName());
        return l.unreflectSpecial(m, caller);
    }

    /** The class with its exit and halt calls redirected here; the same bytes when it has none. */
    public static byte[] guarded(byte[] bytes) {
        ClassFile cf = ClassFile.of();
        ClassModel model = cf.parse(bytes);
        if (!callsExit(model)) return bytes;
        CodeTransform redirect = (cb, e) -> {
            if (e instanceof InvokeInstruction i && isExit(i.owner().asSymbol(), i.name().stringValue(), i.typeSymbol())) {
                cb.invokestatic(GUARD, i.name().stringValue(), i.owner().asSymbol().equals(SYSTEM) ? STATUS : RUNTIME_STATUS);
            } else if (e instanceof InvokeInstruction i && isReflectiveInvoke(i)) {
                // [method, target, args]: the args aside, check (method, target), put the args back, invoke as before.
                int args = cb.allocateLocal(TypeKind.REFERENCE);
                cb.astore(args);
                cb.dup2();
                cb.invokestatic(GUARD, "checkInvoke", CHECK_INVOKE);
                cb.aload(args);
                cb.with(e);
            } else if (e instanceof InvokeInstruction i && isFinder(i)) {
                cb.invokestatic(GUARD, i.name().stringValue(), i.typeSymbol().insertParameterTypes(0, LOOKUP));
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

    private static boolean isReflectiveInvoke(InvokeInstruction i) {
        return i.opcode() == java.lang.classfile.Opcode.INVOKEVIRTUAL && i.owner().asSymbol().equals(METHOD) && i.name().equalsString("invoke") && i.typeSymbol().equals(INVOKE);
    }

    private static boolean isFinder(InvokeInstruction i) {
        return i.opcode() == java.lang.classfile.Opcode.INVOKEVIRTUAL && i.owner().asSymbol().equals(LOOKUP) && FINDERS.contains(i.name().stringValue());
    }

    /** A quick look at the constant pool, so classes without such calls are not rewritten. */
    static boolean callsExit(ClassModel model) {
        for (PoolEntry p : model.constantPool()) {
            if (!(p instanceof MethodRefEntry m)) continue;
            if (m.type().equalsString("(I)V") && isExit(m.owner().asSymbol(), m.name().stringValue(), STATUS)) return true;
            ClassDesc owner = m.owner().asSymbol();
            if (owner.equals(METHOD) && m.name().equalsString("invoke") || owner.equals(LOOKUP) && FINDERS.contains(m.name().stringValue())) return true;
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
