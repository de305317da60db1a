/**
 * What Java does not give a thread on Linux and the kernel does, and what a native build needs: a nice value
 * ({@link org.eventspace.base.os.LowestPriority}), a short system command bounded in time
 * ({@link org.eventspace.base.os.ShortCommand}, for {@code renice} and {@code taskset -p}), and the fields of a
 * {@code /proc} stat line ({@link org.eventspace.base.os.ProcStat}). Stateless; each helper is called once per thread
 * or per check, never on a hot path.
 *
 * <p>Why here: the launcher (comm), the analysis threads (monitor), the dashboard's threads (ui), the MPI node agent
 * and the front-end placement (cli) all ask the kernel the same things; none of them is communication.
 */
package org.eventspace.base.os;
