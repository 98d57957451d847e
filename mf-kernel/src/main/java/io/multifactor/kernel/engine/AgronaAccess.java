package io.multifactor.kernel.engine;

import org.agrona.concurrent.AtomicBuffer;

/**
 * Checks, before an engine touches Agrona, that the JVM lets Agrona read {@code jdk.internal.misc}: without the flag
 * {@value #FLAG} the first counter would fail deep inside Agrona with an {@link IllegalAccessError}; with this check,
 * building an engine fails at once with one message that names the flag.
 * <p>
 * This class is stateless and threadsafe.
 */
final class AgronaAccess
{
    /** The JVM flag Agrona 2.x needs. */
    static final String FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    private AgronaAccess()
    {
    }

    /** @return whether {@code java.base} exports {@code jdk.internal.misc} to the module Agrona was loaded in. */
    static boolean granted()
    {
        return Object.class.getModule().isExported("jdk.internal.misc", AtomicBuffer.class.getModule());
    }

    /**
     * @throws IllegalStateException naming the flag when it is missing.
     */
    static void check()
    {
        if (!granted())
        {
            throw new IllegalStateException("multi-factor cannot start: this JVM lacks the flag " + FLAG +
                " that Agrona (the in-flight counters) needs. Add it to the java command line (Maven Surefire: " +
                "<argLine>, JMH: @Fork(jvmArgsAppend = ...), an executable jar: Add-Exports: java.base/jdk.internal.misc " +
                "in its manifest).");
        }
    }
}
