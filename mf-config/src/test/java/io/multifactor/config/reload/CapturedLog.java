package io.multifactor.config.reload;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what one {@code System.Logger} (backed by java.util.logging) writes while a test provokes a failure, instead
 * of printing it on the build's console, and gives the records to assert on; {@link #close()} restores the logger.
 * <p>
 * This class is threadsafe: the logger's threads add records while the test reads them.
 */
final class CapturedLog implements AutoCloseable
{
    private final Logger logger;
    private final boolean parentHandlers;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler()
    {
        @Override
        public void publish(final LogRecord record)
        {
            records.add(record);
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };

    private CapturedLog(final String name)
    {
        logger = Logger.getLogger(name);
        parentHandlers = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
    }

    /**
     * @param name the logger's name, such as {@code io.multifactor.config.reload}.
     * @return a capture that lasts until closed.
     */
    static CapturedLog of(final String name)
    {
        return new CapturedLog(name);
    }

    /** @return what was logged so far, in order. */
    List<LogRecord> records()
    {
        return records;
    }

    @Override
    public void close()
    {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(parentHandlers);
    }
}
