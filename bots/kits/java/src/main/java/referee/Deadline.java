package referee;

/**
 * The clock of one request (docs/PROTOCOL.md section 8): {@code deadlineMs} is the move limit plus what is left of
 * the seat's time bank, {@code bankMs} the bank alone (null from a referee that does not send it), {@code received}
 * when the kit read the request ({@link System#nanoTime()}). Keep a margin: the referee's clock started first.
 */
public record Deadline(long deadlineMs, Long bankMs, long received) {
    /** What is left of deadlineMs now, in milliseconds (negative when late). */
    public double remainingMs() {
        return remainingMs(System.nanoTime());
    }

    /** What is left of deadlineMs at {@code now}, a {@link System#nanoTime()} reading. */
    public double remainingMs(long now) {
        return deadlineMs - (now - received) / 1e6;
    }
}
