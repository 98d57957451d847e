/**
 * The validated configuration as immutable records, one per block of a configuration file (either format); the kernel never
 * reads them, it reads the plans compiled from them.
 * <p>
 * Threading: every record is immutable and safe to share.
 */
package io.multifactor.config.model;
