package org.eventspace.wan;

/** A link or series file that is not what docs/WAN-FORMAT.md describes: names the file, the line and what was expected. */
public final class WanFileException extends IllegalArgumentException {
    private final String file;
    private final int line;

    public WanFileException(String file, int line, String problem) {
        super(file + (line > 0 ? ":" + line : "") + ": " + problem);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    /** 1-based; 0 when the problem is the file as a whole. */
    public int line() {
        return line;
    }
}
