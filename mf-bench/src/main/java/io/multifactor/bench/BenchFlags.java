package io.multifactor.bench;

/**
 * Constants shared by every benchmark's annotations.
 * <p>
 * This class holds only compile-time constants and is threadsafe.
 */
public final class BenchFlags
{
    /** Agrona 2.x reads {@code jdk.internal.misc}; every forked benchmark JVM needs this flag (README.md, "Use it in your project"). */
    public static final String AGRONA_ADD_EXPORTS = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";

    private BenchFlags()
    {
    }
}
