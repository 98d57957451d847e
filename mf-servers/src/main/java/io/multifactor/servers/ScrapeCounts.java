package io.multifactor.servers;

/**
 * What the scrapes of one backend came to so far: good ones, failed ones (no connection, timeout, an HTTP status
 * other than 2xx) and refused ones (a body over the limit, or content without usable values), with the lines and
 * samples its bodies had that were skipped.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param ok scrapes whose values were stored.
 * @param failed scrapes that got no usable response.
 * @param refused scrapes whose response was too large or did not hold usable values.
 * @param linesMalformed lines of its bodies that were neither samples nor comments.
 * @param samplesRefused samples of the read names that were NaN, infinite, negative or out of range.
 */
public record ScrapeCounts(long ok, long failed, long refused, long linesMalformed, long samplesRefused)
{
}
