/**
 * The project's one JSON configuration, {@link org.eventspace.base.json.Json}: one thread-safe mapper and the
 * pretty writer derived from it. Reports and codecs with a fixed shape are records with
 * {@code @JsonPropertyOrder}, written by this mapper; trees are for shapes that are not fixed.
 */
package org.eventspace.base.json;
