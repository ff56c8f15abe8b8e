package dev.quiver.model.ollama;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * langchain4j-ollama 1.18.1 runs on langchain4j-core and the HTTP client 1.19.0 (its 1.18.1
 * dependencies are excluded). This reads the constant pool of every class in the Ollama jar and
 * resolves each class, method and field it names in core or the HTTP client against 1.19.0, and
 * checks no concrete Ollama class is left with an abstract method by a newer core interface: what
 * would otherwise fail at run time as NoSuchMethodError, NoSuchFieldError, NoClassDefFoundError or
 * AbstractMethodError. The behaviour tests in OllamaModelProviderTest then run it for real.
 */
class OllamaLinkageTest {

    private static final String OWN = "dev/langchain4j/model/ollama/";

    @Test
    void theClassPathHasCore119AndNot118() {
        List<String> jars = classPath();
        assertTrue(jars.contains("langchain4j-core-1.19.0.jar"), jars.toString());
        assertTrue(jars.contains("langchain4j-http-client-1.19.0.jar"), jars.toString());
        assertTrue(jars.contains("langchain4j-ollama-1.18.1.jar"), jars.toString());
        assertFalse(jars.stream().anyMatch(jar -> jar.startsWith("langchain4j-") && jar.contains("1.18.1")
                && !jar.startsWith("langchain4j-ollama-")), jars.toString());
    }

    @Test
    void everyReferenceFromTheOllamaModuleIntoCoreResolves() throws Exception {
        ClassLoader loader = OllamaLinkageTest.class.getClassLoader();
        List<String> missing = new ArrayList<>();
        int checked = 0;
        int classes = 0;
        try (JarFile jar = new JarFile(onClassPath("langchain4j-ollama-1.18.1.jar").toFile())) {
            for (JarEntry entry : jar.stream().toList()) {
                if (!entry.getName().endsWith(".class") || !entry.getName().startsWith(OWN)) {
                    continue;
                }
                classes++;
                List<Ref> refs;
                try (InputStream in = jar.getInputStream(entry)) {
                    refs = references(in);
                }
                for (Ref ref : refs) {
                    if (!ref.owner().startsWith("dev/langchain4j/") || ref.owner().startsWith(OWN)) {
                        continue;
                    }
                    checked++;
                    String problem = resolve(loader, ref);
                    if (problem != null) {
                        missing.add(entry.getName() + " -> " + problem);
                    }
                }
                String abstractLeft = abstractMethodsLeft(loader, entry.getName());
                if (abstractLeft != null) {
                    missing.add(abstractLeft);
                }
            }
        }
        assertTrue(classes > 50, "found only " + classes + " classes");
        assertTrue(checked > 200, "checked only " + checked + " references");
        // the classes resolved against the 1.19.0 core that dev.quiver.langchain4j embeds
        assertTrue(Class.forName("dev.langchain4j.model.chat.ChatModel", false, loader).getProtectionDomain()
                .getCodeSource().getLocation().getPath().contains("langchain4j"));
        assertEquals(List.of(), missing);
    }

    private record Ref(char kind, String owner, String name, String descriptor) {
    }

    private static String resolve(ClassLoader loader, Ref ref) {
        Class<?> owner;
        try {
            owner = Class.forName(ref.owner().replace('/', '.'), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return "class " + ref.owner() + " is missing";
        }
        try {
            switch (ref.kind()) {
                case 'C':
                    return null;
                case 'F':
                    return findField(owner, ref.name(), ref.descriptor()) ? null
                            : "field " + ref.owner() + "." + ref.name() + " " + ref.descriptor();
                default:
                    if (ref.name().equals("<clinit>")) {
                        return null;
                    }
                    if (ref.name().equals("<init>")) {
                        for (Constructor<?> constructor : owner.getDeclaredConstructors()) {
                            if (descriptor(constructor.getParameterTypes(), void.class).equals(ref.descriptor())) {
                                return null;
                            }
                        }
                        return "constructor " + ref.owner() + ref.descriptor();
                    }
                    return findMethod(owner, ref.name(), ref.descriptor()) ? null
                            : "method " + ref.owner() + "." + ref.name() + ref.descriptor();
            }
        } catch (LinkageError e) {
            return ref + ": " + e;
        }
    }

    private static boolean findMethod(Class<?> start, String name, String descriptor) {
        for (Class<?> type : hierarchy(start)) {
            for (Method method : type.getDeclaredMethods()) {
                if (method.getName().equals(name)
                        && descriptor(method.getParameterTypes(), method.getReturnType()).equals(descriptor)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean findField(Class<?> start, String name, String descriptor) {
        for (Class<?> type : hierarchy(start)) {
            for (Field field : type.getDeclaredFields()) {
                if (field.getName().equals(name) && descriptor(field.getType()).equals(descriptor)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A concrete class of the Ollama module must implement every abstract method it inherits. */
    private static String abstractMethodsLeft(ClassLoader loader, String entry) {
        String name = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        Class<?> type;
        try {
            type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return entry + " does not load: " + e;
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            return null;
        }
        Set<String> left = new TreeSet<>();
        for (Class<?> declaring : hierarchy(type)) {
            for (Method method : declaring.getDeclaredMethods()) {
                if (Modifier.isAbstract(method.getModifiers()) && !implemented(type, method)) {
                    left.add(declaring.getName() + "." + method.getName());
                }
            }
        }
        return left.isEmpty() ? null : entry + " leaves abstract " + left;
    }

    private static boolean implemented(Class<?> type, Method abstractMethod) {
        for (Class<?> candidate : hierarchy(type)) {
            for (Method method : candidate.getDeclaredMethods()) {
                if (!Modifier.isAbstract(method.getModifiers()) && method.getName().equals(abstractMethod.getName())
                        && java.util.Arrays.equals(method.getParameterTypes(), abstractMethod.getParameterTypes())
                        && abstractMethod.getReturnType().isAssignableFrom(method.getReturnType())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The class, its superclasses and every interface they implement. */
    private static List<Class<?>> hierarchy(Class<?> start) {
        List<Class<?>> all = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        todo.add(start);
        while (!todo.isEmpty()) {
            Class<?> type = todo.poll();
            if (!seen.add(type)) {
                continue;
            }
            all.add(type);
            if (type.getSuperclass() != null) {
                todo.add(type.getSuperclass());
            }
            todo.addAll(List.of(type.getInterfaces()));
        }
        return all;
    }

    private static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder text = new StringBuilder("(");
        for (Class<?> parameter : parameters) {
            text.append(descriptor(parameter));
        }
        return text.append(')').append(descriptor(result)).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return type.getName().replace('.', '/');
        }
        if (type.isPrimitive()) {
            return switch (type.getName()) {
                case "void" -> "V";
                case "boolean" -> "Z";
                case "byte" -> "B";
                case "char" -> "C";
                case "short" -> "S";
                case "int" -> "I";
                case "long" -> "J";
                case "float" -> "F";
                case "double" -> "D";
                default -> throw new IllegalArgumentException(type.getName());
            };
        }
        return "L" + type.getName().replace('.', '/') + ";";
    }

    /** The classes, fields and methods a class file refers to, from its constant pool (JVMS 4.4). */
    private static List<Ref> references(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        if (data.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        data.readUnsignedShort();
        data.readUnsignedShort();
        int count = data.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classNames = new int[count];
        int[][] memberRefs = new int[count][];
        char[] memberKinds = new char[count];
        int[][] nameAndTypes = new int[count][];
        for (int i = 1; i < count; i++) {
            int tag = data.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = data.readUTF();
                case 3, 4 -> data.readInt();
                case 5, 6 -> {
                    data.readLong();
                    i++;
                }
                case 7 -> classNames[i] = data.readUnsignedShort();
                case 8, 16, 19, 20 -> data.readUnsignedShort();
                case 9, 10, 11 -> {
                    memberKinds[i] = tag == 9 ? 'F' : 'M';
                    memberRefs[i] = new int[] {data.readUnsignedShort(), data.readUnsignedShort()};
                }
                case 12 -> nameAndTypes[i] = new int[] {data.readUnsignedShort(), data.readUnsignedShort()};
                case 15 -> {
                    data.readUnsignedByte();
                    data.readUnsignedShort();
                }
                case 17, 18 -> {
                    data.readUnsignedShort();
                    data.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        List<Ref> refs = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            if (classNames[i] != 0) {
                String name = utf8[classNames[i]];
                if (!name.startsWith("[")) {
                    refs.add(new Ref('C', name, null, null));
                }
            }
            if (memberRefs[i] != null) {
                String owner = utf8[classNames[memberRefs[i][0]]];
                int[] nameAndType = nameAndTypes[memberRefs[i][1]];
                if (!owner.startsWith("[")) {
                    refs.add(new Ref(memberKinds[i], owner, utf8[nameAndType[0]], utf8[nameAndType[1]]));
                }
            }
        }
        return refs;
    }

    /** The file names on the test class path. */
    private static List<String> classPath() {
        List<String> names = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            names.add(Path.of(entry).getFileName().toString());
        }
        return names;
    }

    private static Path onClassPath(String name) {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().equals(name)) {
                return Path.of(entry);
            }
        }
        throw new AssertionError(name + " is not on the class path");
    }
}
