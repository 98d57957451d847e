package io.multifactor.testkit.archfixture;

import io.multifactor.api.Selection;
import io.multifactor.kernel.scoring.SelectionWriter;
import io.multifactor.tools.Mf;

/** Violations for the rule tests only: an mf-testkit class that uses the CLI and writes a selection. */
public final class TestkitUsingTools
{
    private TestkitUsingTools()
    {
    }

    /** @return the CLI's class, which mf-testkit must not see. */
    public static Class<?> cli()
    {
        return Mf.class;
    }

    /**
     * Corrupts a result, which only the kernel may write.
     *
     * @param selection a caller's selection.
     */
    public static void forge(final Selection selection)
    {
        SelectionWriter.lease(selection, 42L);
    }
}
