/**
 * Reading input files with a bound: {@link org.eventspace.base.io.BoundedFiles} checks a file's size against the
 * limit before a byte is read (a counting stream stops a pipe at the limit), so a trace or report too large for this
 * JVM is refused with one line naming the file, its size and the limit, never an {@code OutOfMemoryError}; and it
 * caps what the JSON parser accepts of one token ({@link org.eventspace.base.io.BoundedFiles#CONSTRAINTS}).
 */
package org.eventspace.base.io;
