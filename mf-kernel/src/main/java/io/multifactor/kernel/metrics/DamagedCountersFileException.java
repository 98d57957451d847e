package io.multifactor.kernel.metrics;

import java.nio.file.Path;

/**
 * A counters file that is not what an engine writes: too short or too long for its header, without the marker, of an
 * unknown layout version, or with a counter record no engine writes (an unknown state, a label longer than the
 * maximum). The message names the file and what is wrong with it.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class DamagedCountersFileException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param file the file read.
     * @param what what is wrong, such as {@code "length 4096 bytes, its header says 5243008 (capacity 8192)"}.
     */
    public DamagedCountersFileException(final Path file, final String what)
    {
        super(file + ": damaged counters file: " + what);
    }
}
