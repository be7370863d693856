package gluelab.kernel.eval;

import jdk.jshell.execution.LoaderDelegate;
import jdk.jshell.spi.ExecutionControl.ClassBytecodes;
import jdk.jshell.spi.ExecutionControl.ClassInstallException;
import jdk.jshell.spi.ExecutionControl.InternalException;

import java.io.File;
import java.lang.classfile.AccessFlags;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.FieldModel;
import java.lang.classfile.MethodModel;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loads the classes JShell compiles for each snippet, so that a long session does not keep the
 * classes of every cell it ran.
 *
 * <p>Declarations (variables, methods, types) go into one long-lived class loader, since later
 * snippets name them. A one-shot snippet (a statement, an expression, an expression's temporary)
 * compiles to a wrapper class that nothing names again, plus its own anonymous classes; those
 * get a class loader of their own, a child of the declarations' loader, which is unloaded with
 * everything it defined (lambda classes included) once {@link #forgetOneShots()} lets it go and
 * no value still uses it.
 *
 * <p>The cell's loader makes package {@code REPL} a different runtime package, so declarations are
 * loaded with package-private and protected access widened to public; private stays private
 * (javac already rejects it across snippets). Class bytes are not kept after definition.
 */
final class SnippetLoader implements LoaderDelegate {
    private final BytesLoader declarations;
    private final Map<String, Class<?>> oneShots = new ConcurrentHashMap<>();

    SnippetLoader(ClassLoader parent) {
        declarations = new BytesLoader(parent);
        Thread.currentThread().setContextClassLoader(declarations);
    }

    @Override public void load(ClassBytecodes[] cbcs) throws ClassInstallException {
        boolean[] installed = new boolean[cbcs.length];
        try {
            boolean oneShot = isOneShot(cbcs);
            BytesLoader into = oneShot ? new BytesLoader(declarations) : declarations;
            for (ClassBytecodes c : cbcs) into.declare(c.name(), ExitGuard.guarded(oneShot ? c.bytecodes() : widened(c.bytecodes())));
            for (int i = 0; i < cbcs.length; i++) {
                Class<?> c = into.loadClass(cbcs[i].name());
                if (oneShot) oneShots.put(cbcs[i].name(), c);
                installed[i] = true;
            }
        } catch (Throwable t) {
            throw new ClassInstallException("cannot load snippet classes: " + t, installed);
        }
    }

    @Override public void classesRedefined(ClassBytecodes[] cbcs) {
        // LocalExecutionControl never redefines: JShell gives a changed declaration a new class name.
    }

    @Override public void addToClasspath(String path) throws InternalException {
        try {
            for (String p : path.split(File.pathSeparator)) declarations.addURL(new File(p).toURI().toURL());
        } catch (MalformedURLException e) {
            throw new InternalException("bad classpath entry " + path + ": " + e.getMessage());
        }
    }

    @Override public Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> c = oneShots.get(name);
        return c != null ? c : declarations.loadClass(name);
    }

    /** Lets the one-shot classes of the cells run so far be unloaded; their values were already read. */
    void forgetOneShots() { oneShots.clear(); }

    /**
     * A batch whose wrapper runs code ({@code do_it$}) and has nothing later snippets can name
     * (besides that entry method only lambda bodies, constructors and static temporaries
     * {@code $1}, {@code $2}...), and whose other classes are the wrapper's own nested ones. A user's
     * variable named like a temporary ({@code int $3 = 1;}) is taken for one, and cannot be read later.
     */
    static boolean isOneShot(ClassBytecodes[] cbcs) {
        List<ClassModel> models = new ArrayList<>();
        for (ClassBytecodes c : cbcs) models.add(ClassFile.of().parse(c.bytecodes()));
        List<ClassModel> tops = models.stream().filter(m -> m.findAttribute(Attributes.nestHost()).isEmpty()).toList();
        if (tops.size() != 1) return false;
        ClassModel wrapper = tops.getFirst();
        // A type declaration's wrapper holds only the type (and a constructor): no do_it$.
        if (wrapper.methods().stream().noneMatch(m -> m.methodName().equalsString("do_it$"))) return false;
        // JShell names an expression's temporary $1, $2, ...; a user's `int $x` is a declaration.
        for (FieldModel f : wrapper.fields()) {
            if (!f.fieldName().stringValue().matches("\\$[0-9]+")) return false;
        }
        for (MethodModel method : wrapper.methods()) {
            String n = method.methodName().stringValue();
            if (!(n.equals("do_it$") || n.equals("<init>") || n.equals("<clinit>") || n.startsWith("lambda$"))) return false;
        }
        return true;
    }

    /** The class with package-private and protected access (of itself and its members) made public. */
    static byte[] widened(byte[] bytes) {
        ClassFile cf = ClassFile.of();
        return cf.transformClass(cf.parse(bytes), (cb, ce) -> {
            switch (ce) {
                case AccessFlags f -> cb.withFlags(widen(f.flagsMask()));
                case FieldModel fm -> cb.transformField(fm, (fb, fe) -> {
                    if (fe instanceof AccessFlags f) fb.withFlags(widen(f.flagsMask()));
                    else fb.with(fe);
                });
                case MethodModel mm when !mm.methodName().equalsString("<clinit>") -> cb.transformMethod(mm, (mb, me) -> {
                    if (me instanceof AccessFlags f) mb.withFlags(widen(f.flagsMask()));
                    else mb.with(me);
                });
                default -> cb.with(ce);
            }
        });
    }

    private static int widen(int flags) {
        if ((flags & ClassFile.ACC_PRIVATE) != 0) return flags;
        return (flags & ~ClassFile.ACC_PROTECTED) | ClassFile.ACC_PUBLIC;
    }

    /**
     * Defines classes from bytes handed to it, once each, then drops the bytes. Names in package
     * {@code REPL} are never passed to the application class loader, which would keep a lock
     * object for each of them for good (one per cell). Classes from added classpath entries are
     * defined here too, with their exit calls guarded ({@link ExitGuard}).
     */
    private static final class BytesLoader extends URLClassLoader {
        private static final String REPL = "REPL.";
        private final Map<String, byte[]> pending = new HashMap<>();

        BytesLoader(ClassLoader parent) { super(new URL[0], parent); }

        synchronized void declare(String name, byte[] bytes) { pending.put(name, bytes); }

        @Override protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(REPL)) return super.loadClass(name, resolve);
            synchronized (this) {
                Class<?> c = findLoadedClass(name);
                if (c != null) return c;
                byte[] bytes = pending.remove(name);
                if (bytes != null) return defineClass(name, bytes, 0, bytes.length);
            }
            if (getParent() instanceof BytesLoader declarations) return declarations.loadClass(name, resolve);
            throw new ClassNotFoundException(name);
        }

        @Override protected void addURL(URL url) { super.addURL(url); }

        @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
            URL url = findResource(name.replace('.', '/') + ".class");
            if (url == null) throw new ClassNotFoundException(name);
            byte[] bytes;
            try (var in = url.openStream()) {
                bytes = ExitGuard.guarded(in.readAllBytes());
            } catch (java.io.IOException | IllegalArgumentException e) {
                throw new ClassNotFoundException("cannot read " + url + ": " + e.getMessage(), e);
            }
            int dot = name.lastIndexOf('.');
            if (dot > 0 && getDefinedPackage(name.substring(0, dot)) == null) {
                try {
                    definePackage(name.substring(0, dot), null, null, null, null, null, null, null);
                } catch (IllegalArgumentException alreadyDefined) {
                    // another thread defined it first
                }
            }
            return defineClass(name, bytes, 0, bytes.length, new java.security.CodeSource(codeBase(url), (java.security.CodeSigner[]) null));
        }

        /** The jar or folder a class resource came from. */
        private static URL codeBase(URL classUrl) {
            try {
                if (classUrl.getProtocol().equals("jar")) return java.net.URI.create(classUrl.getPath().substring(0, classUrl.getPath().indexOf("!/"))).toURL();
            } catch (MalformedURLException | RuntimeException e) {
                return classUrl;
            }
            return classUrl;
        }
    }
}
