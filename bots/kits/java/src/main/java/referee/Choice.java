package referee;

/** What a bot answers a request with: one of the legal {@link Action}s, or an {@link Answer} (an action and a note). */
public sealed interface Choice permits Action, Answer {
    /** The action chosen. */
    Action action();
}
