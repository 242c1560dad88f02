package sdx;

/** Blob is defined again in a fresh class loader to make a new class. */
public final class Blob {
    public int value;
}
